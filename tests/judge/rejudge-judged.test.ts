import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { addMembership, makeCast, type Cast } from "../helpers/domain-factories";
import { createUser } from "../helpers/factories";
import { submission, submit } from "../helpers/records";
import {
  finalRecord,
  judgeEnv,
  judgerKey,
  listen,
  problemWithData,
  startJudge,
  uploadConfig,
} from "../helpers/judging";

// A teacher's wrong expected output, found after the students submitted: the data is fixed in a new
// config version and the problem is rejudged, all with real programs in the real sandbox.
const UID_BASE = 66_000;
let t: TestApp;
let cast: Cast;
let judge: Awaited<ReturnType<typeof startJudge>>;

const CONFIG = {
  languageDefault: {
    cases: [
      { executeInputFile: "data/1.in", executeOutputFile: "data/1.out" },
      { executeInputFile: "data/2.in", executeOutputFile: "data/2.out" },
    ],
  },
  languages: [
    {
      name: "c",
      compileFiles: ["main.c"],
      compileArgs: ["gcc", "-O2", "-o", "main", "main.c"],
      caseDefault: {
        time: "1s",
        memory: "64m",
        score: 50,
        category: "pretest",
        executeFiles: ["main"],
        executeArgs: ["./main"],
      },
    },
  ],
};
/** 40 + 2 is not 43: the mistake the rejudge corrects. */
const WRONG_DATA = { "data/1.in": "1 2\n", "data/1.out": "3\n", "data/2.in": "40 2\n", "data/2.out": "43\n" };
const FIXED_DATA = { ...WRONG_DATA, "data/2.out": "42\n" };
const program = (sum: string) =>
  `#include <stdio.h>\nint main(void){ long a, b; if (scanf("%ld %ld", &a, &b) != 2) return 1; printf("%ld\\n", ${sum}); return 0; }`;

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
  judge = await startJudge(judgeEnv(t, listen(t), await judgerKey(t, cast), UID_BASE));
}, 60_000);
afterAll(async () => {
  await judge?.stop();
  await t.app.stop(true);
  await t.close();
});

test("a rejudge after a config change moves the verdicts, numAccept and the scoreboard; the history shows the old results", async () => {
  const domain = `/domains/${cast.domain.id}`;
  const problem = await problemWithData(t, cast, CONFIG, WRONG_DATA);
  const set = (await t.api.post(`${domain}/problem_sets`, { title: "Lab 2: sums" }, { token: cast.owner.token })).body
    .data.id;
  await t.api.post(`${domain}/problem_sets/${set}/problems`, { problem }, { token: cast.owner.token });
  const [chloe, jose] = [await createUser(t), await createUser(t)];
  for (const student of [chloe, jose]) await addMembership(t, cast.domain, student, "user");
  // Two right answers, and one that learned the wrong data by heart.
  const students = { right: cast.member, alsoRight: chloe, overfit: jose };
  const sources = { right: program("a + b"), alsoRight: program("b + a"), overfit: program("a + b + (a == 40)") };
  const ids: Record<string, string> = {};
  for (const [name, student] of Object.entries(students)) {
    const form = submission("c", { "main.c": sources[name as keyof typeof sources] });
    ids[name] = (
      await submit(t, student.token, `${domain}/problem_sets/${set}/problems/${problem}/submit`, form)
    ).body.data.id;
  }
  const verdicts = async () => {
    const rows = await Promise.all(
      Object.entries(ids).map(async ([name, id]) => [name, (await finalRecord(t, id, 90_000)).state] as const),
    );
    return Object.fromEntries(rows);
  };
  const standing = async () => {
    const board = (await t.api.get(`${domain}/problem_sets/${set}/scoreboard`, { token: cast.owner.token })).body.data;
    return Object.fromEntries(
      board.rows.map((row: { userId: string; totalScore: number }) => [row.userId, row.totalScore]),
    );
  };
  const numAccept = async () =>
    (await t.api.get(`${domain}/problems/${problem}`, { token: cast.owner.token })).body.data.numAccept;

  expect(await verdicts()).toEqual({ right: "rejected", alsoRight: "rejected", overfit: "accepted" });
  const compiles = () => judge.logs.filter((line) => line.msg === "program compiled").length;
  expect(compiles()).toBe(3);
  expect(await numAccept()).toBe(1);
  expect(await standing()).toEqual({ [cast.member.user.id]: 50, [chloe.user.id]: 50, [jose.user.id]: 100 });
  const before = (await t.api.get(`${domain}/records/${ids.overfit}`, { token: cast.owner.token })).body.data;

  await uploadConfig(t, cast, problem, CONFIG, FIXED_DATA);
  const answer = await t.api.post(
    `${domain}/problems/${problem}/rejudge`,
    { problemSet: set },
    { token: cast.owner.token },
  );
  expect(answer.body.data).toEqual({ queued: 3, skipped: 0 });

  expect(await verdicts()).toEqual({ right: "accepted", alsoRight: "accepted", overfit: "rejected" });
  // The same sources, compile command and compiler under the new version: every program came from the cache.
  expect(compiles()).toBe(3);
  expect(await numAccept()).toBe(2);
  expect(await standing()).toEqual({ [cast.member.user.id]: 100, [chloe.user.id]: 100, [jose.user.id]: 50 });
  const after = (await t.api.get(`${domain}/records/${ids.overfit}`, { token: jose.token })).body.data;
  expect(after.problemConfigId).not.toBe(before.problemConfigId);
  expect(after.cases.map((c: { state: string }) => c.state)).toEqual(["accepted", "wrong_answer"]);
  expect(after.history).toEqual([
    {
      state: "accepted",
      score: 100,
      timeMs: before.timeMs,
      memoryKb: before.memoryKb,
      problemConfigId: before.problemConfigId,
      judgedAt: before.judgedAt,
      rejudgedAt: expect.any(String),
      rejudgedBy: cast.owner.user.id,
    },
  ]);
}, 240_000);
