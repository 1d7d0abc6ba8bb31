import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { configVersion, recordRow, scriptedJudger, submission, submit } from "../helpers/records";
import { readStream } from "../helpers/sse";
import { houseKeepRuns } from "../../src/modules/runs/runs.jobs";
import type { RecordJudgePayload } from "../../src/jobs/catalogue";

// Runs through the API (docs/api.md "Runs"), judged by a scripted judger speaking the protocol: what a run
// hands the judge (never a hidden case), what it leaves untouched (records, counts, the audit log), its
// fences, its priority behind submissions and its housekeeping. Its limits per user: runs-limits.test.ts.
let t: TestApp;
let cast: Cast;
let judger: TestUser;
let problem: string;

const HIDDEN_IN = "HIDDEN-INPUT-7f3a 1 1\n";
const HIDDEN_OUT = "HIDDEN-ANSWER-7f3a\n";
const CONFIG = {
  languages: [
    {
      name: "c",
      compileFiles: ["main.c"],
      compileArgs: ["gcc", "-o", "main", "main.c"],
      caseDefault: { executeFiles: ["main"], executeArgs: ["./main"], time: "2s", memory: "128m" },
      cases: [
        { category: "sample", executeInputFile: "s/1.in", executeOutputFile: "s/1.out", score: 10 },
        { category: "secret", executeInputFile: "h/1.in", executeOutputFile: "h/1.out", score: 90 },
        { category: "sample", executeInputFile: "s/2.in", executeOutputFile: "s/2.out", score: 0 },
      ],
    },
  ],
};
const DATA = {
  "s/1.in": "1 2\n",
  "s/1.out": "3\n",
  "s/2.in": "5 5\n",
  "s/2.out": "10\n",
  "h/1.in": HIDDEN_IN,
  "h/1.out": HIDDEN_OUT,
};
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

beforeAll(async () => {
  t = await spawnApp({ RUNS_WAITING: "100", RUNS_PER_MINUTE: "0" });
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
  const created = await t.api.post(
    `/domains/${cast.domain.id}/problems`,
    { title: "A + B" },
    { token: cast.owner.token },
  );
  problem = created.body.data.id;
  await configVersion(t, problem, CONFIG, DATA);
});
afterAll(() => t.close());

const domain = () => `/domains/${cast.domain.id}`;
const PROGRAM = { "main.c": '#include <stdio.h>\nint main(){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);}\n' };

function runForm(
  fields: { input?: string; samples?: string; language?: string } = {},
  files: Record<string, string> = PROGRAM,
) {
  const form = submission(fields.language ?? "c", files);
  if (fields.input !== undefined) form.set("input", fields.input);
  if (fields.samples !== undefined) form.set("samples", fields.samples);
  return form;
}
const startRun = (token: string, form: FormData, path = `${domain()}/problems/${problem}/runs`) =>
  t.api.post(path, undefined, { token, multipart: form });
const count = async (sql: string, values: unknown[] = []) =>
  (await t.orm.em.fork().execute<{ n: number }[]>(sql, values))[0].n;
const runCount = () => count("select count(*)::int as n from runs");

/** Claims a run as the judger, from the task next_task hands out or the row's own. */
async function claimRun(id: string) {
  const [{ task_id: taskId }] = await t.orm.em
    .fork()
    .execute<{ task_id: string }[]>("select task_id from runs where id = ?", [id]);
  const claim = await t.api.post(`${domain()}/runs/${id}/judge/claim`, { taskId }, { token: judger.token });
  return { taskId, claim };
}

describe("POST …/problems/{p}/runs", () => {
  test("answers the queued run at once; no record, count, audit event or board changes", async () => {
    const auditBefore = await count("select count(*)::int as n from audit_events");
    const response = await startRun(cast.member.token, runForm({ input: "5 7\n" }));
    if (response.body.errorCode !== "Success")
      console.log(JSON.stringify(t.logs.filter((l) => l.level === "error" || l.error)).slice(0, 3000));
    expect(response.body.errorCode).toBe("Success");
    expect(response.body.data).toMatchObject({
      mode: "input",
      state: "queued",
      compileOutput: null,
      results: [],
      problemId: problem,
    });
    const id = response.body.data.id;
    expect((await t.api.get(`${domain()}/runs/${id}`, { token: cast.member.token })).body.data).toEqual(
      response.body.data,
    );
    expect(await count("select count(*)::int as n from records where problem_id = ?", [problem])).toBe(0);
    const seen = await t.api.get(`${domain()}/problems/${problem}`, { token: cast.owner.token });
    expect([seen.body.data.numSubmit, seen.body.data.numAccept]).toEqual([0, 0]);
    expect(await count("select count(*)::int as n from audit_events")).toBe(auditBefore);
    const own = await t.api.get(`${domain()}/problems/${problem}`, { token: cast.member.token });
    expect(own.body.data.latestRecord ?? null).toBeNull();
    // Only its owner sees it: staff and strangers alike are told there is no such run.
    for (const token of [cast.admin.token, cast.owner.token])
      expect((await t.api.get(`${domain()}/runs/${id}`, { token })).body.errorCode).toBe("RecordNotFoundError");
    expect((await t.api.get(`${domain()}/runs/${id}`, { token: cast.outsider.token })).body.errorCode).not.toBe(
      "Success",
    );
  });

  test("bad input is refused with its field and leaves nothing behind", async () => {
    const before = await runCount();
    const tooBig = await startRun(cast.member.token, runForm({ input: "x".repeat(64 * 1024 + 1) }));
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.detail[0].loc).toEqual(["body", "input"]);
    const both = await startRun(cast.member.token, runForm({ input: "1 2", samples: "true" }));
    expect([both.status, both.body.detail[0].loc]).toEqual([422, ["body", "input"]]);
    const samplesWord = await startRun(cast.member.token, runForm({ samples: "yes" }));
    expect(samplesWord.status).toBe(422);
    expect((await startRun(cast.member.token, runForm({ language: "rust", input: "" }))).body.errorCode).toBe(
      "UnsupportedLanguageError",
    );
    const noFiles = new FormData();
    noFiles.set("language", "c");
    expect((await startRun(cast.member.token, noFiles)).status).toBe(422);
    const nul = await startRun(cast.member.token, runForm({ input: "1\u00002" }));
    expect([nul.status, nul.body.detail[0].loc]).toEqual([422, ["body", "input"]]);
    // A body over the run's limit (a submission's files and the input) is refused before it is read.
    const huge = await startRun(cast.member.token, runForm({ input: "" }, { "main.c": "x".repeat(3 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
    const traversal = await startRun(cast.member.token, runForm({ input: "" }, { "../main.c": "int main(){}" }));
    expect(traversal.body.errorCode).toBe("FileValidationError");
    expect(await runCount()).toBe(before);
  });

  test("whoever may submit may run: a guest may not, and neither may an outsider", async () => {
    for (const user of [cast.guest, cast.outsider]) {
      const submitted = await submit(t, user.token, `${domain()}/problems/${problem}`);
      const ran = await startRun(user.token, runForm({ input: "" }));
      expect(ran.status).toBe(submitted.status);
      expect(ran.body.errorCode ?? ran.status).toBe(submitted.body.errorCode ?? submitted.status);
      expect(ran.body.errorCode).not.toBe("Success");
    }
  });
});

describe("what the judge is given", () => {
  test("input mode: the generated config and the user's input, never a hidden case's file", async () => {
    await t.orm.em.fork().execute("update runs set state = 'done' where state = 'queued'");
    // Non-ASCII text reaches the program byte for byte; a browser's \r\n line ends arrive as \n.
    const id = (await startRun(cast.member.token, runForm({ input: "40 2\r\n李雷 Zoë ₂\n" }))).body.data.id;
    const offered = await t.api.post("/judge/next_task", { waitSeconds: 0 }, { token: judger.token });
    expect(offered.body.data).toMatchObject({ recordId: id, kind: "run", language: "c" });
    const { claim } = await claimRun(id);
    expect(claim.body.errorCode).toBe("Success");
    const files = claim.body.data.configFiles as { path: string; digest: string; url: string }[];
    expect(files.map((f) => f.path).sort()).toEqual(["config.json", "s/1.in"]);
    expect(files.find((f) => f.path === "s/1.in")!.digest).toBe(sha("40 2\n李雷 Zoë ₂\n"));
    const configUrl = files.find((f) => f.path === "config.json")!.url;
    const config = JSON.parse(
      new TextDecoder().decode((await t.api.get(configUrl, { token: judger.token, binary: true })).body),
    );
    expect(config.languages).toHaveLength(1);
    expect(config.languages[0].cases).toHaveLength(1);
    expect(config.languages[0].cases[0]).toMatchObject({ compare: "none", checker: null, time: "2s", memory: "128m" });
    expect(JSON.stringify(claim.body.data)).not.toContain("h/1");
    // A hidden file's digest is not the run's: the run's file route refuses it.
    const hidden = await t.api.get(`${domain()}/runs/${id}/judge/files/${sha(HIDDEN_IN)}`, { token: judger.token });
    expect(hidden.body.errorCode).toBe("FileDownloadError");
    expect(claim.body.data.codeFiles.map((f: { path: string }) => f.path)).toEqual(["main.c"]);
  });

  test("samples mode: the public cases' data only, in their order", async () => {
    const id = (await startRun(cast.member.token, runForm({ samples: "true" }))).body.data.id;
    const { claim } = await claimRun(id);
    const paths = (claim.body.data.configFiles as { path: string }[]).map((f) => f.path).sort();
    expect(paths).toEqual(["config.json", "s/1.in", "s/1.out", "s/2.in", "s/2.out"]);
    const digests = JSON.stringify(claim.body.data);
    for (const secret of [HIDDEN_IN, HIDDEN_OUT]) expect(digests).not.toContain(sha(secret));
  });
});

describe("the protocol's fences", () => {
  test("only the holder of the current task reports or reads; the view follows the reports", async () => {
    const id = (await startRun(cast.member.token, runForm({ input: "1 1\n" }))).body.data.id;
    const other = await createUser(t, { role: "judger" });
    const wrongTask = await t.api.post(
      `${domain()}/runs/${id}/judge/claim`,
      { taskId: crypto.randomUUID() },
      { token: judger.token },
    );
    expect(wrongTask.body.errorCode).toBe("Error");
    const { taskId } = await claimRun(id);
    const base = `${domain()}/runs/${id}`;
    const stolen = await t.api.post(`${base}/judge/claim`, { taskId }, { token: other.token });
    expect(stolen.body.errorCode).toBe("Error");
    expect((await t.api.get(`${base}/judge/config`, { token: other.token })).body.errorCode).toBe("Error");
    const byOther = await t.api.put(`${base}/cases/0/judge`, { state: "accepted", taskId }, { token: other.token });
    expect(byOther.body.errorCode).toBe("Error");
    const outOfRange = await t.api.put(`${base}/cases/1/judge`, { state: "accepted", taskId }, { token: judger.token });
    expect(outOfRange.body.errorCode).toBe("Error");
    const report = {
      state: "time_limit_exceeded",
      timeMs: 2004,
      memoryKb: 812,
      returnCode: 137,
      stdout: "partial",
      stderr: "",
    };
    expect(
      (await t.api.put(`${base}/cases/0/judge`, { ...report, taskId }, { token: judger.token })).body.errorCode,
    ).toBe("Success");
    expect(
      (await t.api.put(`${base}/judge`, { state: "rejected", taskId }, { token: judger.token })).body.errorCode,
    ).toBe("Success");
    const view = (await t.api.get(base, { token: cast.member.token })).body.data;
    expect(view).toMatchObject({ state: "done", compileOutput: "" });
    expect(view.results).toEqual([
      {
        index: 0,
        sampleIndex: null,
        verdict: "time_limit_exceeded",
        stdout: "partial",
        stderr: "",
        timeMs: 2004,
        memoryKb: 812,
        exitCode: null,
        signal: 9,
      },
    ]);
    // Done: no further report moves it.
    expect(
      (await t.api.put(`${base}/judge`, { state: "failed", taskId }, { token: judger.token })).body.errorCode,
    ).toBe("Error");
  });

  test("a judger's report loses the server's secrets before the run keeps it", async () => {
    const id = (await startRun(cast.member.token, runForm({ input: "1 1\n" }))).body.data.id;
    const { taskId } = await claimRun(id);
    const leak = { index: 0, state: "accepted", stdout: `key=${t.config.jwtSecret}`, stderr: t.config.databaseUrl };
    await t.api.put(`${domain()}/runs/${id}/cases/judge`, { cases: [leak], taskId }, { token: judger.token });
    await t.api.put(`${domain()}/runs/${id}/judge`, { state: "accepted", taskId }, { token: judger.token });
    const [result] = (await t.api.get(`${domain()}/runs/${id}`, { token: cast.member.token })).body.data.results;
    expect(result.stdout).toStartWith("key=");
    expect(JSON.stringify(result)).not.toContain(t.config.jwtSecret);
    expect(JSON.stringify(result)).not.toContain(t.config.databaseUrl!);
  });

  test("a compile error is the compiler's output and no results; a release queues it under a new task", async () => {
    const id = (await startRun(cast.member.token, runForm({ samples: "true" }))).body.data.id;
    const base = `${domain()}/runs/${id}`;
    const first = await claimRun(id);
    // A task id that is no UUID is refused, not a server error (issue 53).
    const malformed = await t.api.post(`${base}/judge/release`, { taskId: "not-a-uuid" }, { token: judger.token });
    expect({ status: malformed.status, errorCode: malformed.body.errorCode }).toEqual({
      status: 200,
      errorCode: "Error",
    });
    // A second claim of the task, even by its holder, is refused: one attempt, one judge loop.
    expect(
      (await t.api.post(`${base}/judge/claim`, { taskId: first.taskId }, { token: judger.token })).body.errorCode,
    ).toBe("Error");
    expect(
      (await t.api.post(`${base}/judge/release`, { taskId: first.taskId }, { token: judger.token })).body.errorCode,
    ).toBe("Success");
    expect(
      (await t.api.post(`${base}/judge/claim`, { taskId: first.taskId }, { token: judger.token })).body.errorCode,
    ).toBe("Error");
    const { taskId, claim } = await claimRun(id);
    expect(taskId).not.toBe(first.taskId);
    expect(claim.body.errorCode).toBe("Success");
    const compileError = { state: "compile_error", stderr: "main.c:1: error: expected ';'" };
    const cases = [0, 1].map((index) => ({
      index,
      ...compileError,
      stderr: index === 0 ? compileError.stderr : "see case 0",
    }));
    await t.api.put(`${base}/cases/judge`, { cases, taskId }, { token: judger.token });
    await t.api.put(`${base}/judge`, { state: "rejected", taskId }, { token: judger.token });
    expect((await t.api.get(base, { token: cast.member.token })).body.data).toMatchObject({
      state: "done",
      compileOutput: "main.c:1: error: expected ';'",
      results: [],
    });
  });
});

describe("problem sets", () => {
  async function setWith(body: object) {
    const created = await t.api.post(
      `${domain()}/problem_sets`,
      { title: "Exam", ...body },
      { token: cast.admin.token },
    );
    const id = created.body.data.id as string;
    await t.api.post(`${domain()}/problem_sets/${id}/problems`, { problem }, { token: cast.admin.token });
    return { id, runs: `${domain()}/problem_sets/${id}/problems/${problem}/runs` };
  }
  const boardOf = async (set: string) => {
    const board = await t.api.get(`${domain()}/problem_sets/${set}/scoreboard`, { token: cast.admin.token });
    const csv = await t.app.handle(
      new Request(`http://localhost/api/v1${domain()}/problem_sets/${set}/scoreboard.csv`, {
        headers: { authorization: `Bearer ${cast.admin.token}` },
      }),
    );
    return { board: board.body.data, csv: await csv.text() };
  };

  test("runs through a set leave its board and grades as they were, and the set's numSubmit", async () => {
    const { id, runs } = await setWith({});
    const before = await boardOf(id);
    for (const form of [runForm({ input: "1 2" }), runForm({ samples: "true" })])
      expect((await startRun(cast.member.token, form, runs)).body.errorCode).toBe("Success");
    expect(await boardOf(id)).toEqual(before);
    const set = await t.api.get(`${domain()}/problem_sets/${id}`, { token: cast.admin.token });
    expect(set.body.data.numSubmit ?? 0).toBe(0);
  });

  test("a set's window holds as for a submission, and runsAllowed: false turns runs off", async () => {
    const open = await startRun(cast.member.token, runForm({ input: "1 2" }), (await setWith({})).runs);
    expect(open.body.errorCode).toBe("Success");
    expect(open.body.data.problemSetId).not.toBeNull();
    const off = await startRun(
      cast.member.token,
      runForm({ input: "1 2" }),
      (await setWith({ runsAllowed: false })).runs,
    );
    expect([off.body.errorCode, off.body.errorMsg]).toEqual(["Error", "runs are turned off in this problem set"]);
    const past = new Date(Date.now() - 3_600_000).toISOString();
    const locked = await startRun(
      cast.member.token,
      runForm({ input: "1 2" }),
      (await setWith({ dueAt: past, lockAt: past })).runs,
    );
    expect(locked.body.errorCode).toBe("Error");
    expect(locked.body.errorMsg).toContain("locked");
  });
});

describe("fair to submissions", () => {
  test("records submitted behind 50 queued runs are judged first, by a queue judge and over HTTP", async () => {
    await t.orm.em.fork().execute("update runs set state = 'done' where state = 'queued'");
    const runs = await Promise.all(
      Array.from({ length: 50 }, () => startRun(cast.member.token, runForm({ input: "1 2" }))),
    );
    expect(runs.every((r) => r.body.errorCode === "Success")).toBe(true);
    const records: string[] = [];
    for (let i = 0; i < 5; i++)
      records.push((await submit(t, cast.member.token, `${domain()}/problems/${problem}`)).body.data.id);
    const offered = await t.api.post("/judge/next_task", { waitSeconds: 0 }, { token: judger.token });
    expect(records).toContain(offered.body.data.recordId);
    expect(offered.body.data.kind).toBeUndefined();
    const order: RecordJudgePayload[] = [];
    const worker = await scriptedJudger(
      t,
      async (job) => {
        order.push(job);
        return null;
      },
      1,
    );
    // Jobs of earlier tests' runs are on the queue too: every one of the 50 is taken, after the records.
    const ids = new Set(runs.map((r) => r.body.data.id as string));
    const taken = () => order.filter((j) => ids.has(j.recordId)).length;
    for (let i = 0; i < 800 && taken() < 50; i++) await Bun.sleep(25);
    await worker.close();
    expect(taken()).toBe(50);
    expect(
      order
        .slice(0, 5)
        .map((j) => j.recordId)
        .sort(),
    ).toEqual([...records].sort());
    expect(order.slice(0, 5).every((j) => j.kind === undefined)).toBe(true);
    expect(order.slice(5).every((j) => j.kind === "run")).toBe(true);
    for (const id of records) expect((await recordRow(t, id)).state).toBe("queueing");
  }, 60_000);
});

describe("the owner's live list", () => {
  test("announces the run as a `run` event, to its owner only", async () => {
    const open = async (token: string) => {
      const abort = new AbortController();
      const response = await t.app.handle(
        new Request(`http://localhost/api/v1${domain()}/records/events`, {
          signal: abort.signal,
          headers: { authorization: `Bearer ${token}` },
        }),
      );
      return readStream(response, abort);
    };
    const mine = await open(cast.member.token);
    const staff = await open(cast.admin.token);
    await Bun.sleep(200);
    const id = (await startRun(cast.member.token, runForm({ input: "2 2" }))).body.data.id;
    const event = await mine.until((e) => e.event === "run");
    expect(event?.data).toMatchObject({ id, state: "queued" });
    await Bun.sleep(600);
    expect(staff.events.filter((e) => e.event === "run")).toEqual([]);
    await Promise.all([mine.close(), staff.close()]);
  });
});

describe("housekeeping", () => {
  test("a lapsed lease goes back to the queue, then fails after its attempts; expired runs are deleted with their files", async () => {
    const id = (await startRun(cast.member.token, runForm({ input: "3 4" }))).body.data.id;
    const em = () => t.orm.em.fork();
    const { taskId } = await claimRun(id);
    await em().execute("update runs set lease_expires_at = now() - interval '1 second' where id = ?", [id]);
    const first = await houseKeepRuns(em(), t.jobs, t.logger, t.config.judging);
    expect(first.requeued).toBeGreaterThanOrEqual(1);
    const [requeued] = await em().execute<{ state: string; task_id: string }[]>(
      "select state, task_id from runs where id = ?",
      [id],
    );
    expect(requeued.state).toBe("queued");
    expect(requeued.task_id).not.toBe(taskId);
    expect(await t.jobs.isLive("judge", requeued.task_id)).toBe(true);
    await em().execute("update runs set attempts = ? where id = ?", [t.config.judging.maxAttempts, id]);
    await claimRun(id);
    await em().execute("update runs set lease_expires_at = now() - interval '1 second' where id = ?", [id]);
    expect((await houseKeepRuns(em(), t.jobs, t.logger, t.config.judging)).failed).toBe(1);
    const failed = (await t.api.get(`${domain()}/runs/${id}`, { token: cast.member.token })).body.data;
    expect(failed.state).toBe("failed");
    expect(failed.results[0].verdict).toBe("system_error");

    await em().execute("update runs set expires_at = now() - interval '1 second' where id = ?", [id]);
    expect((await houseKeepRuns(em(), t.jobs, t.logger, t.config.judging)).expired).toBe(1);
    expect(await count("select count(*)::int as n from run_files where run_id = ?", [id])).toBe(0);
    expect((await t.api.get(`${domain()}/runs/${id}`, { token: cast.member.token })).body.errorCode).toBe(
      "RecordNotFoundError",
    );
  });
});
