import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { createUser } from "../helpers/factories";
import { addMembership } from "../helpers/domain-factories";
import { judgeableProblem, recordRow, submission, submit } from "../helpers/records";

let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  t = await spawnApp({ SUBMIT_MAX_FILES: "3", SUBMIT_MAX_FILE_BYTES: "1000", SUBMIT_MAX_TOTAL_BYTES: "1500" });
  cast = await makeCast(t);
});
afterAll(() => t.close());

const domain = () => `/domains/${cast.domain.id}`;
const count = async (sql: string, params: unknown[] = []) =>
  Number((await t.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from ${sql}`, params))[0].n);
const numSubmit = async (table: "problems" | "problem_sets", id: string) =>
  (await t.orm.em.fork().execute<{ n: number }[]>(`select num_submit as n from ${table} where id = ?`, [id]))[0].n;

async function makeSet(body: Record<string, unknown>, problemId: string): Promise<string> {
  const set = await t.api.post(`${domain()}/problem_sets`, { title: "Set", ...body }, { token: cast.admin.token });
  expect(set.body.errorCode).toBe("Success");
  await t.api.post(
    `${domain()}/problem_sets/${set.body.data.id}/problems`,
    { problem: problemId },
    { token: cast.admin.token },
  );
  return set.body.data.id;
}

describe("submitting", () => {
  test("the answer is the queued record; it pins the latest config and its job id is its task id", async () => {
    const problem = await judgeableProblem(t, cast);
    const response = await submit(
      t,
      cast.member.token,
      `${domain()}/problems/${problem}`,
      submission("c", { "src/main.c": "int main(){}", README: "hi" }),
    );
    expect(response.body.errorCode).toBe("Success");
    const record = response.body.data;
    expect(record).toMatchObject({
      domainId: cast.domain.id,
      state: "queueing",
      language: "c",
      score: 0,
      timeMs: 0,
      memoryKb: 0,
      judgedAt: null,
      late: false,
    });
    expect(record.createdAt).toEndWith("+00:00");
    const row = await recordRow(t, record.id);
    const job = await t.jobs.queues.judge.getJob(row.task_id!);
    expect(job?.data).toEqual({ recordId: record.id, domainId: cast.domain.id, taskId: row.task_id });
    const [pinned] = await t.orm.em
      .fork()
      .execute<{ config_id: string; latest: string }[]>(
        "select r.config_id, (select id from problem_configs where problem_id = r.problem_id order by version desc limit 1) as latest from records r where r.id = ?",
        [record.id],
      );
    expect(pinned.config_id).toBe(pinned.latest);
    const files = await t.orm.em
      .fork()
      .execute<{ path: string }[]>("select path from record_files where record_id = ? order by path", [record.id]);
    expect(files.map((f) => f.path)).toEqual(["README", "src/main.c"]);
    expect(await numSubmit("problems", problem)).toBe(1);
  });

  test("a problem without a config, or a language it does not list, is refused and nothing is written", async () => {
    const bare = (await t.api.post(`${domain()}/problems`, { title: "no config" }, { token: cast.owner.token })).body
      .data.id;
    const before = await count("records");
    expect((await submit(t, cast.member.token, `${domain()}/problems/${bare}`)).body.errorCode).toBe(
      "ProblemConfigNotFoundError",
    );
    const problem = await judgeableProblem(t, cast, { languages: ["c", "python3"] });
    const wrong = await submit(t, cast.member.token, `${domain()}/problems/${problem}`, submission("C"));
    expect(wrong.body.errorCode).toBe("UnsupportedLanguageError");
    expect(wrong.body.errorMsg).toContain("c, python3");
    expect(await count("records")).toBe(before);
    expect(await numSubmit("problems", problem)).toBe(0);
  });

  test("limits on file count, file size, total size and paths are business errors that write nothing", async () => {
    const problem = await judgeableProblem(t, cast);
    const path = `${domain()}/problems/${problem}`;
    const before = await count("records");
    const blobs = await count("blobs");
    const cases: [Record<string, string>, string][] = [
      [{ a: "1", b: "2", c: "3", d: "4" }, "at most 3 files"],
      [{ big: "x".repeat(1001) }, "larger than 1000 bytes"],
      [{ a: "x".repeat(800), b: "y".repeat(800) }, "add up to more than 1500 bytes"],
      [{ "../escape.c": "x" }, "outside"],
      [{ "/etc/passwd": "x" }, "absolute path"],
      // What the judge could not lay out in its run directory: refused here, never failed there.
      [{ lib: "x", "lib/util.h": "y" }, '"lib" is both a file and a folder'],
      [{ [`${"题".repeat(134)}.c`]: "x" }, "longer than 255 bytes in UTF-8"],
      [{ [`src/${"a".repeat(256)}.c`]: "x" }, "longer than 255 characters"],
    ];
    for (const [files, message] of cases) {
      const response = await submit(t, cast.member.token, path, submission("c", files));
      expect(response.body.errorCode).toBe("FileValidationError");
      expect(response.body.errorMsg).toContain(message);
    }
    expect(await count("records")).toBe(before);
    expect(await count("blobs")).toBe(blobs);
    // No files, no language, a wrong body type: validation errors.
    const noFiles = new FormData();
    noFiles.set("language", "c");
    expect((await submit(t, cast.member.token, path, noFiles)).status).toBe(422);
    expect((await t.api.post(path, { language: "c" }, { token: cast.member.token })).status).toBe(422);
  });

  test("who may submit: problem.submit in a visible domain, a visible problem", async () => {
    const problem = await judgeableProblem(t, cast);
    const hidden = await judgeableProblem(t, cast, { body: { hidden: true } });
    const path = `${domain()}/problems/${problem}`;
    expect((await submit(t, cast.guest.token, path)).body).toEqual({ detail: "problem submit Permission Denied." });
    // The cast's domain is hidden: it does not exist for non-members.
    expect((await submit(t, cast.outsider.token, path)).body.errorCode).toBe("DomainNotFoundError");
    expect((await t.api.post(path, undefined, { multipart: submission("c") })).status).toBe(401);
    expect((await submit(t, cast.member.token, `${domain()}/problems/${hidden}`)).body.errorCode).toBe(
      "ProblemNotFoundError",
    );
    expect((await submit(t, cast.admin.token, `${domain()}/problems/${hidden}`)).body.errorCode).toBe("Success");
  });

  test("concurrent submissions keep numSubmit exact, for the problem and the set", async () => {
    const problem = await judgeableProblem(t, cast);
    const set = await makeSet({}, problem);
    const users = await Promise.all(Array.from({ length: 8 }, () => createUser(t)));
    for (const u of users) await addMembership(t, cast.domain, u, "user");
    const answers = await Promise.all(
      users.flatMap((u) => [
        submit(t, u.token, `${domain()}/problems/${problem}`),
        submit(t, u.token, `${domain()}/problem_sets/${set}/problems/${problem}/submit`),
        submit(t, u.token, `${domain()}/problem_sets/${set}/problems/${problem}/submit`),
      ]),
    );
    expect(answers.every((a) => a.body.errorCode === "Success")).toBe(true);
    expect(await numSubmit("problems", problem)).toBe(24);
    expect(await numSubmit("problem_sets", set)).toBe(16);
  });

  test("each user's latest record, per problem and per problem in a set", async () => {
    const problem = await judgeableProblem(t, cast);
    const set = await makeSet({}, problem);
    const direct = `${domain()}/problems/${problem}`;
    const viaSet = `${domain()}/problem_sets/${set}/problems/${problem}`;
    expect((await t.api.get(direct, { token: cast.member.token })).body.data.latestRecord).toBeNull();
    await submit(t, cast.member.token, direct);
    const second = (await submit(t, cast.member.token, direct)).body.data;
    const inSet = (await submit(t, cast.member.token, `${viaSet}/submit`)).body.data;
    expect((await t.api.get(direct, { token: cast.member.token })).body.data.latestRecord).toEqual({
      id: second.id,
      state: "queueing",
      createdAt: second.createdAt,
    });
    expect((await t.api.get(viaSet, { token: cast.member.token })).body.data.latestRecord.id).toBe(inSet.id);
    const listed = (await t.api.get(`${domain()}/problem_sets/${set}/problems`, { token: cast.member.token })).body.data
      .results;
    expect(listed[0].latestRecord.id).toBe(inSet.id);
    const detail = (await t.api.get(`${domain()}/problem_sets/${set}`, { token: cast.member.token })).body.data;
    expect(detail.problems[0].latestRecord.id).toBe(inSet.id);
    const problems = (await t.api.get(`${domain()}/problems`, { token: cast.member.token })).body.data.results;
    expect(problems.find((p: { id: string }) => p.id === problem).latestRecord.id).toBe(second.id);
    // Someone else's view of the same problem: their own (none).
    expect((await t.api.get(direct, { token: cast.admin.token })).body.data.latestRecord).toBeNull();
  });
});

describe("time windows of a set (for everyone without problemSet.viewHidden)", () => {
  test("before unlockAt: refused; from unlockAt on: accepted", async () => {
    const problem = await judgeableProblem(t, cast);
    const unlockAt = Date.now() + 1500;
    const set = await makeSet({ unlockAt }, problem);
    const path = `${domain()}/problem_sets/${set}/problems/${problem}/submit`;
    const early = await submit(t, cast.member.token, path);
    expect(early.body.errorCode).toBe("ProblemNotFoundError");
    expect(early.body.errorMsg).toContain("opens at");
    expect((await submit(t, cast.admin.token, path)).body.errorCode).toBe("Success");
    await Bun.sleep(Math.max(0, unlockAt - Date.now()) + 20);
    expect((await submit(t, cast.member.token, path)).body.data.late).toBe(false);
  });

  test("between dueAt and lockAt: accepted and marked late; from lockAt on: refused, except for managers", async () => {
    const problem = await judgeableProblem(t, cast);
    const lockAt = Date.now() + 1500;
    const set = await makeSet({ dueAt: Date.now() - 1000, lockAt }, problem);
    const path = `${domain()}/problem_sets/${set}/problems/${problem}/submit`;
    const late = await submit(t, cast.member.token, path);
    expect(late.body.data.late).toBe(true);
    expect((await recordRow(t, late.body.data.id)).late).toBe(true);
    await Bun.sleep(Math.max(0, lockAt - Date.now()) + 20);
    const locked = await submit(t, cast.member.token, path);
    expect(locked.body.errorCode).toBe("Error");
    expect(locked.body.errorMsg).toContain("locked");
    expect((await submit(t, cast.admin.token, path)).body.errorCode).toBe("Success");
    expect(await numSubmit("problem_sets", set)).toBe(2);
  });

  test("a problem not in the set, a hidden set, a hidden problem in the set: not found", async () => {
    const problem = await judgeableProblem(t, cast);
    const other = await judgeableProblem(t, cast);
    const hiddenProblem = await judgeableProblem(t, cast, { body: { hidden: true } });
    const set = await makeSet({}, problem);
    await t.api.post(
      `${domain()}/problem_sets/${set}/problems`,
      { problem: hiddenProblem },
      { token: cast.admin.token },
    );
    const hiddenSet = await makeSet({ hidden: true }, problem);
    expect(
      (await submit(t, cast.member.token, `${domain()}/problem_sets/${set}/problems/${other}/submit`)).body.errorCode,
    ).toBe("ProblemNotFoundError");
    expect(
      (await submit(t, cast.member.token, `${domain()}/problem_sets/${set}/problems/${hiddenProblem}/submit`)).body
        .errorCode,
    ).toBe("ProblemNotFoundError");
    expect(
      (await submit(t, cast.member.token, `${domain()}/problem_sets/${hiddenSet}/problems/${problem}/submit`)).body
        .errorCode,
    ).toBe("ProblemSetNotFoundError");
  });
});

describe("no submission is lost", () => {
  test("with Redis unreachable the submission is still saved and answered", async () => {
    const down = await spawnApp({ REDIS_URL: "redis://127.0.0.1:1" });
    try {
      const downCast = await makeCast(down);
      const problem = await judgeableProblem(down, downCast);
      const response = await submit(down, downCast.member.token, `/domains/${downCast.domain.id}/problems/${problem}`);
      expect(response.body.errorCode).toBe("Success");
      expect((await recordRow(down, response.body.data.id)).state).toBe("queueing");
      expect(down.logs.some((l) => l.msg === "record saved but not enqueued; the reconciler will enqueue it")).toBe(
        true,
      );
    } finally {
      await down.close();
    }
  });
});
