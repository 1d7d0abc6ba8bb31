import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMembership, type Cast, makeCast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submit } from "../helpers/records";
import { spawnApp, type TestApp } from "../helpers/spawn-app";

// One rule for who is on a board (docs/contests.md "Who is on a board"): the JSON board, the grade book and the
// Contest API's teams and scoreboard name the same people — the domain's participants, submitted or not, and a
// student removed after submitting; not staff who tested the set, not an observer who may not submit — and a
// role change moves someone off all of them at once, whatever each kept.

let t: TestApp;
let cast: Cast;
let judger: TestUser;
const people = new Map<string, TestUser>();
let contest: string;
let homework: string;
const domain = () => `/domains/${cast.domain.id}`;
const tag = () => cast.domain.id.slice(0, 6);
const user = (name: string) => people.get(name)!;
const HOUR = 3_600_000;

async function judged(who: TestUser, set: string, problem: string, score: number) {
  const path = `${domain()}/problem_sets/${set}/problems/${problem}/submit`;
  const answer = await submit(t, who.token, path);
  expect(answer.body.errorCode).toBe("Success");
  const id = answer.body.data.id as string;
  const { task_id } = await recordRow(t, id);
  await t.api.post(`${domain()}/records/${id}/judge/claim`, { taskId: task_id }, { token: judger.token });
  const state = score === 100 ? "accepted" : "rejected";
  expect((await t.api.put(`${domain()}/records/${id}/judge`, { state, score }, { token: judger.token })).status).toBe(
    200,
  );
}

async function makeRole(role: string, permission: object) {
  const made = await t.api.post(`${domain()}/roles`, { role, permission }, { token: cast.owner.token });
  expect(made.body.errorCode).toBe("Success");
  return made.body.data.permission;
}

beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
  // An observer (a CDS, an analyst) reads records and may not submit; a role that does not name
  // problem.submit gets Horse's default, true: its members are participants.
  await makeRole("observer", { problem: { submit: false }, record: { view: true } });
  expect((await makeRole("quiz", { record: { view: true } })).problem.submit).toBe(true);
  await makeRole("ta", { problemSet: { viewHidden: true }, record: { view: true } });
  const roles = { sam: "user", nia: "user", rex: "user", tia: "user", quinn: "quiz", obi: "observer" };
  for (const [name, role] of Object.entries(roles)) {
    const person = await createUser(t, { username: `${name}-${tag()}` });
    await addMembership(t, cast.domain, person, role);
    people.set(name, person);
  }
  const problem = await judgeableProblem(t, cast);
  const window = { unlockAt: new Date(Date.now() - HOUR).toISOString(), lockAt: new Date(Date.now() + HOUR) };
  const sets = [
    { title: "Contest", scoreboardRule: "icpc", ...window },
    { title: "Homework 2", scoreboardRule: "best" },
  ];
  [contest, homework] = await Promise.all(
    sets.map(async (body) => {
      const id = (await t.api.post(`${domain()}/problem_sets`, body, { token: cast.admin.token })).body.data.id;
      await t.api.post(`${domain()}/problem_sets/${id}/problems`, { problem }, { token: cast.admin.token });
      return id as string;
    }),
  );
  for (const set of [contest, homework]) {
    await judged(cast.admin, set, problem, 100); // staff testing the set
    await judged(user("sam"), set, problem, 100);
    await judged(user("rex"), set, problem, 40);
    await judged(user("tia"), set, problem, 100);
  }
  // The observer's role says no: nothing of theirs can reach a board.
  const refused = await submit(t, user("obi").token, `${domain()}/problem_sets/${contest}/problems/${problem}/submit`);
  expect(refused.status).toBe(403);
  const removed = await t.api.delete(`${domain()}/users/${user("rex").user.id}`, { token: cast.admin.token });
  expect(removed.body.errorCode).toBe("Success");
});
afterAll(() => t?.close());

const board = async (set: string, token: string) =>
  (await t.api.get(`${domain()}/problem_sets/${set}/scoreboard`, { token })).body.data;
const boardIds = async (set: string, token = cast.admin.token) =>
  (await board(set, token)).rows.map((row: { userId: string }) => row.userId).sort();

/** The grade book's rows: each row's username, by the ids of those the test knows. */
async function csvIds(set: string, query = "", token = cast.admin.token) {
  const response = await t.app.handle(
    new Request(`http://localhost/api/v1${domain()}/problem_sets/${set}/scoreboard.csv${query}`, {
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  const lines = (await response.text()).split("\r\n").filter(Boolean).slice(1);
  const everyone = [...people.values(), cast.owner, cast.admin, cast.member, cast.guest];
  const named = everyone.filter((person) => lines.some((line) => line.split(",")[2] === person.user.username));
  expect(named).toHaveLength(lines.length);
  return named.map((person) => person.user.id).sort();
}

async function ccs(path: string) {
  const response = await t.app.handle(
    new Request(`http://localhost/api/ccs/domains/${cast.domain.id}/contests/${contest}${path}`, {
      headers: { authorization: `Bearer ${cast.admin.token}` },
    }),
  );
  return (await response.json()) as any;
}
const teamIds = async () => (await ccs("/teams")).map((team: { id: string }) => team.id).sort();
const ccsRowIds = async () => (await ccs("/scoreboard")).rows.map((row: { team_id: string }) => row.team_id).sort();

const ids = (...names: string[]) => names.map((name) => user(name).user.id);
/** The participants: the students (one removed after submitting, one who never did), the quiz role, the cast's. */
const participants = () => [...ids("sam", "nia", "rex", "tia", "quinn"), cast.member.user.id].sort();

describe("who is on a board", () => {
  test("the JSON board, the grade book and the Contest API's teams and scoreboard name the same people", async () => {
    for (const set of [contest, homework]) {
      expect(await boardIds(set)).toEqual(participants());
      expect(await boardIds(set, user("sam").token)).toEqual(participants());
      expect(await csvIds(set)).toEqual(participants());
    }
    // A homework set is no contest: the Contest API serves the ICPC one.
    expect(await teamIds()).toEqual(participants());
    expect(await ccsRowIds()).toEqual(participants());
  });

  test("a participant who never submitted has a row with nothing, ranked with those who scored nothing", async () => {
    const nia = user("nia").user.id;
    const icpc = await board(contest, cast.admin.token);
    const row = icpc.rows.find((r: { userId: string }) => r.userId === nia);
    expect(row).toMatchObject({ solved: 0, penalty: 0, totalScore: 0, cells: [] });
    // sam and tia solved it: 1 each; everyone else ties at 3.
    expect(row.rank).toBe(3);
    expect(icpc.rows.slice(0, 2).map((r: { solved: number }) => r.solved)).toEqual([1, 1]);
    const best = await board(homework, cast.admin.token);
    expect(best.rows.find((r: { userId: string }) => r.userId === nia)).toMatchObject({ totalScore: 0, cells: [] });
    // Rex scored 40: ahead of the rows with no score.
    expect(best.rows[2]).toMatchObject({ userId: user("rex").user.id, totalScore: 40, rank: 3 });
    const ccsRow = (await ccs("/scoreboard")).rows.find((r: { team_id: string }) => r.team_id === nia);
    expect(ccsRow).toMatchObject({ rank: 3, score: { num_solved: 0, total_time: 0 } });
    expect(ccsRow.problems).toEqual([expect.objectContaining({ num_judged: 0, num_pending: 0, solved: false })]);
  });

  test("staff who tested the set are in the grade book only with staff=true, with their score", async () => {
    const admin = cast.admin.user.id;
    const everyMember = await csvIds(homework, "?staff=true");
    expect(everyMember).toContain(admin);
    expect(everyMember).toEqual(
      [...participants(), ...ids("obi"), admin, cast.owner.user.id, cast.guest.user.id].sort(),
    );
    expect(await csvIds(homework, "?staff=true", user("sam").token)).toEqual(participants());
    const response = await t.app.handle(
      new Request(`http://localhost/api/v1${domain()}/problem_sets/${homework}/scoreboard.csv?staff=true`, {
        headers: { authorization: `Bearer ${cast.admin.token}` },
      }),
    );
    const line = (await response.text()).split("\r\n").find((l) => l.includes(cast.admin.user.username));
    expect(line?.endsWith(",100")).toBe(true);
  });

  test("a role change takes members off every board at once: a student made a TA, a role made staff", async () => {
    // Boards read and kept first: what each view kept must not keep tia.
    for (const set of [contest, homework]) expect(await boardIds(set)).toContain(user("tia").user.id);
    expect(await teamIds()).toContain(user("tia").user.id);
    const made = await t.api.patch(
      `${domain()}/users/${user("tia").user.id}`,
      { role: "ta" },
      { token: cast.owner.token },
    );
    expect(made.body.errorCode).toBe("Success");
    const left = participants().filter((id) => id !== user("tia").user.id);
    for (const set of [contest, homework]) {
      expect(await boardIds(set)).toEqual(left);
      expect(await boardIds(set, user("sam").token)).toEqual(left);
      expect(await csvIds(set)).toEqual(left);
    }
    expect(await teamIds()).toEqual(left);
    expect(await ccsRowIds()).toEqual(left);
    // The quiz role now manages sets: quinn is staff, off the boards with no membership changed.
    const edited = await t.api.patch(
      `${domain()}/roles/quiz`,
      { permission: { problemSet: { viewHidden: true } } },
      { token: cast.owner.token },
    );
    expect(edited.body.errorCode).toBe("Success");
    const fewer = left.filter((id) => id !== user("quinn").user.id);
    expect(await boardIds(homework)).toEqual(fewer);
    expect(await teamIds()).toEqual(fewer);
    expect(await ccsRowIds()).toEqual(fewer);
  });
});
