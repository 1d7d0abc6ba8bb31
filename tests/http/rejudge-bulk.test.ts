import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { configWith, judgeableProblem, recordRow, submission, submit } from "../helpers/records";

// Rejudging a problem's records in bulk: who may, which records each filter takes, what it answers.
let t: TestApp;
let cast: Cast;
let judger: TestUser;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
});
afterAll(() => t.close());

const domain = () => `/domains/${cast.domain.id}`;
const base = (id: string) => `${domain()}/records/${id}`;
const rejudge = (problem: string, body?: object, token = cast.admin.token) =>
  t.api.post(`${domain()}/problems/${problem}/rejudge`, body, { token });

type Verdict = "accepted" | "rejected" | "failed" | null;

/** A submission (through `set` or the problem's own route) judged to `verdict` by a judger, or left waiting. */
async function record(problem: string, set: string | null, language: "c" | "cpp", verdict: Verdict) {
  const path = set ? `${domain()}/problem_sets/${set}/problems/${problem}/submit` : `${domain()}/problems/${problem}`;
  const files: Record<string, string> =
    language === "c" ? { "main.c": "int main(void){return 0;}" } : { "main.cpp": "int main(){}" };
  const id = (await submit(t, cast.member.token, path, submission(language, files))).body.data.id as string;
  if (verdict) {
    const { task_id: taskId } = await recordRow(t, id);
    expect((await t.api.post(`${base(id)}/judge/claim`, { taskId }, { token: judger.token })).body.errorCode).toBe(
      "Success",
    );
    await t.api.put(
      `${base(id)}/cases/0/judge`,
      { state: verdict === "accepted" ? "accepted" : "wrong_answer", score: 10, taskId },
      { token: judger.token },
    );
    expect(
      (await t.api.put(`${base(id)}/judge`, { state: verdict, taskId }, { token: judger.token })).body.errorCode,
    ).toBe("Success");
  }
  return id;
}

/** A problem with a set and six records spread over the filters, and what each looks like now. */
async function spread() {
  const problem = await judgeableProblem(t, cast, { languages: ["c", "cpp"] });
  const set = (await t.api.post(`${domain()}/problem_sets`, { title: "Midterm" }, { token: cast.owner.token })).body
    .data.id as string;
  await t.api.post(`${domain()}/problem_sets/${set}/problems`, { problem }, { token: cast.owner.token });
  const records = {
    setCAccepted: await record(problem, set, "c", "accepted"),
    setCRejected: await record(problem, set, "c", "rejected"),
    setCppFailed: await record(problem, set, "cpp", "failed"),
    ownCFailed: await record(problem, null, "c", "failed"),
    ownCppAccepted: await record(problem, null, "cpp", "accepted"),
    ownCWaiting: await record(problem, null, "c", null),
  };
  return { problem, set, records };
}

const tasks = async (records: Record<string, string>) =>
  Object.fromEntries(
    await Promise.all(Object.entries(records).map(async ([name, id]) => [name, (await recordRow(t, id)).task_id])),
  );

/** The names of the records whose task changed between two snapshots. */
const requeued = (before: Record<string, unknown>, after: Record<string, unknown>) =>
  Object.keys(before)
    .filter((name) => before[name] !== after[name])
    .sort();

const numAccept = async (path: string) =>
  (await t.api.get(`${domain()}/${path}`, { token: cast.owner.token })).body.data.numAccept as number;

describe("POST …/problems/{problem}/rejudge", () => {
  test("needs a login, the domain and record.rejudge; a refusal queues nothing", async () => {
    const { problem, records } = await spread();
    const before = await tasks(records);
    expect((await t.api.post(`${domain()}/problems/${problem}/rejudge`, {})).status).toBe(401);
    const member = await rejudge(problem, {}, cast.member.token);
    expect(member.status).toBe(403);
    expect(member.body.detail).toBe("record rejudge Permission Denied.");
    expect((await rejudge(problem, {}, cast.guest.token)).status).toBe(403);
    expect(await tasks(records)).toEqual(before);
  });

  test("a state filter (only failed) queues exactly the failed records, at once", async () => {
    const { problem, records } = await spread();
    const before = await tasks(records);
    expect((await rejudge(problem, { state: "failed" })).body).toEqual({
      errorCode: "Success",
      errorMsg: null,
      data: { queued: 2, skipped: 0 },
    });
    expect(requeued(before, await tasks(records))).toEqual(["ownCFailed", "setCppFailed"]);
    expect(await recordRow(t, records.ownCFailed)).toMatchObject({
      state: "queueing",
      judger_id: null,
      score: 0,
      cases: [],
    });
  });

  test("problemSet and language filters, and a list of states, queue exactly the matching records", async () => {
    const { problem, set, records } = await spread();
    const [problemBefore, setBefore] = [await numAccept(`problems/${problem}`), await numAccept(`problem_sets/${set}`)];
    let before = await tasks(records);
    expect((await rejudge(problem, { problemSet: set, language: "c" })).body.data).toEqual({ queued: 2, skipped: 0 });
    expect(requeued(before, await tasks(records))).toEqual(["setCAccepted", "setCRejected"]);
    // The accepted one no longer counts, in its problem and in its set.
    expect([await numAccept(`problems/${problem}`), await numAccept(`problem_sets/${set}`)]).toEqual([
      problemBefore - 1,
      setBefore - 1,
    ]);
    before = await tasks(records);
    expect((await rejudge(problem, { state: ["accepted", "failed"], language: "cpp" })).body.data).toEqual({
      queued: 2,
      skipped: 0,
    });
    expect(requeued(before, await tasks(records))).toEqual(["ownCppAccepted", "setCppFailed"]);
    expect(await numAccept(`problems/${problem}`)).toBe(problemBefore - 2);
    // No filter: every record of the problem, the ones still waiting included.
    before = await tasks(records);
    expect((await rejudge(problem)).body.data).toEqual({ queued: 6, skipped: 0 });
    expect(requeued(before, await tasks(records))).toEqual(Object.keys(records).sort());
  });

  test("judged records keep their result in their history; a waiting one has none to keep", async () => {
    const { problem, records } = await spread();
    await rejudge(problem);
    const detail = async (id: string) => (await t.api.get(base(id), { token: cast.admin.token })).body.data;
    expect((await detail(records.ownCppAccepted)).history).toEqual([
      expect.objectContaining({ state: "accepted", score: 10, rejudgedBy: cast.admin.user.id }),
    ]);
    expect((await detail(records.setCppFailed)).history).toEqual([expect.objectContaining({ state: "failed" })]);
    expect((await detail(records.ownCWaiting)).history).toEqual([]);
  });

  test("records in a language the latest config dropped are skipped, unless their own config version is asked for", async () => {
    const { problem, records } = await spread();
    await t.api.post(`${domain()}/problems/${problem}/configs/json`, configWith(["c"]), { token: cast.owner.token });
    let before = await tasks(records);
    expect((await rejudge(problem, { state: ["accepted", "rejected", "failed"] })).body.data).toEqual({
      queued: 3,
      skipped: 2,
    });
    expect(requeued(before, await tasks(records))).toEqual(["ownCFailed", "setCAccepted", "setCRejected"]);
    before = await tasks(records);
    expect((await rejudge(problem, { language: "cpp", config: "record" })).body.data).toEqual({
      queued: 2,
      skipped: 0,
    });
    expect(requeued(before, await tasks(records))).toEqual(["ownCppAccepted", "setCppFailed"]);
  });

  test("1,100 records are taken in batches, each exactly once, ties in submission time included", async () => {
    const problem = await judgeableProblem(t, cast);
    const model = await record(problem, null, "c", "rejected");
    // Copies of a judged record (as the reconciler's backlog test makes them); half share one created_at.
    const em = t.orm.em.fork();
    const columns = (
      await em.execute<{ column_name: string }[]>(
        "select column_name from information_schema.columns where table_name = 'records'",
      )
    ).map((c) => c.column_name);
    const copied = columns.map((c) =>
      c === "id" || c === "task_id"
        ? "gen_random_uuid()"
        : c === "created_at"
          ? "created_at + make_interval(secs => n % 550)"
          : `"${c}"`,
    );
    await em.execute(
      `insert into records (${columns.map((c) => `"${c}"`).join(", ")})
      select ${copied.join(", ")} from records, generate_series(1, 1099) as n where id = ?`,
      [model],
    );
    expect((await rejudge(problem, { state: "rejected" })).body.data).toEqual({ queued: 1100, skipped: 0 });
    const [counts] = await em.execute<{ queueing: number; once: number; tasks: number }[]>(
      `select count(*) filter (where state = 'queueing')::int as queueing,
              count(*) filter (where jsonb_array_length(history) = 1)::int as once, count(distinct task_id)::int as tasks
         from records where problem_id = ?`,
      [problem],
    );
    expect(counts).toEqual({ queueing: 1100, once: 1100, tasks: 1100 });
    // Each record's new task is queued once, behind new submissions (other tests' jobs share the queue).
    const tasksOf = new Set(
      (await em.execute<{ task_id: string }[]>("select task_id from records where problem_id = ?", [problem])).map(
        (r) => r.task_id,
      ),
    );
    const prioritized = await t.jobs.queues.judge.getJobs(["prioritized"], 0, -1);
    expect(prioritized.filter((job) => tasksOf.has(job.id!)).length).toBe(1100);
  }, 60_000);

  test("an unknown problem or set is not found, a bad filter is a 422 naming it; neither queues anything", async () => {
    const { problem, records } = await spread();
    const before = await tasks(records);
    expect((await rejudge(crypto.randomUUID())).body.errorCode).toBe("ProblemNotFoundError");
    expect((await rejudge(problem, { problemSet: crypto.randomUUID() })).body.errorCode).toBe(
      "ProblemSetNotFoundError",
    );
    const other = await makeCast(t);
    const foreign = await judgeableProblem(t, other);
    expect((await rejudge(foreign)).body.errorCode).toBe("ProblemNotFoundError");
    for (const [body, field] of [
      [{ state: "broken" }, "state"],
      [{ state: [] }, "state"],
      [{ language: 5 }, "language"],
      [{ config: "oldest" }, "config"],
    ] as const) {
      const refused = await rejudge(problem, body);
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(["body", field]);
    }
    expect(await tasks(records)).toEqual(before);
  });
});

describe("one bulk rejudge of a problem at a time", () => {
  test("while one is being queued (its lock held, by any API process) a second is refused and changes nothing", async () => {
    const { problem, records } = await spread();
    const before = await tasks(records);
    const redis = await t.jobs.commands();
    const key = `${t.config.queuePrefix}:rejudge:problem:${problem}`;
    await redis.set(key, "another-process", "PX", 60_000);
    const refused = await rejudge(problem);
    expect(refused.body).toMatchObject({ errorCode: "Error" });
    expect(refused.body.errorMsg).toContain("being queued right now");
    expect(requeued(before, await tasks(records))).toEqual([]);
    // Not its lock: a refused request leaves the other's in place; once it is gone the rejudge runs.
    expect(await redis.get(key)).toBe("another-process");
    await redis.del(key);
    expect((await rejudge(problem)).body.data.queued).toBe(6);
    expect(await redis.get(key)).toBeNull();
  });
});
