import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMembership, type Cast, makeCast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submit } from "../helpers/records";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { judgerKey } from "../helpers/judging";
import * as check from "../helpers/ccs-validate";
import { CCS_ENDPOINT_SCHEMAS, CcsList } from "../../src/modules/ccs/ccs.schemas";
import { logOf } from "../../src/modules/record-events/record-events.bus";
import Redis from "ioredis";

// The Contest API (docs/contest-api.md) over a scripted ICPC contest: every endpoint's answer checked against
// the spec's shapes (our own schemas, written from its text), the scoreboard against our board cell for cell
// and against one computed by hand, the public and admin views around the freeze, the event feed's replay,
// its live judgements and its since_token.

let t: TestApp;
let cast: Cast;
let judger: TestUser;
/** A reader of the public view who may see the records list (record.view), and submits nothing. */
let spectator: TestUser;
const students = new Map<string, TestUser>();
const problems: string[] = [];
let contest: string;
const currentContest = () => contest;
const DAY = "2026-03-01";
const at = (hhmm: string) => `${DAY}T${hhmm}:00Z`;
const domain = () => `/domains/${cast.domain.id}`;
const ccs = () => `/api/ccs/domains/${cast.domain.id}`;

type Verdict = "accepted" | "wrong_answer" | "compile_error" | "runtime_error";

async function judge(id: string, verdict: Verdict) {
  const { task_id } = await recordRow(t, id);
  const base = `${domain()}/records/${id}`;
  // Every step must be taken: a refused report would leave a judgement without its runs.
  const step = (what: string, answer: { body: any }) =>
    expect(answer.body.errorCode === "Success" ? `${what}: Success` : `${what}: ${JSON.stringify(answer.body)}`).toBe(
      `${what}: Success`,
    );
  step("claim", await t.api.post(`${base}/judge/claim`, { taskId: task_id }, { token: judger.token }));
  const cases = [verdict, verdict === "compile_error" ? verdict : "accepted"];
  for (const [i, state] of cases.entries())
    step(
      `case ${i}`,
      await t.api.put(
        `${base}/cases/${i}/judge`,
        { state, score: state === "accepted" ? 50 : 0, timeMs: 7 + i },
        { token: judger.token },
      ),
    );
  const final = verdict === "accepted" ? "accepted" : "rejected";
  step("final", await t.api.put(`${base}/judge`, { state: final }, { token: judger.token }));
}

async function scripted(set: string, who: string, problem: number, time: string | null, verdict: Verdict) {
  const path = `${domain()}/problem_sets/${set}/problems/${problems[problem]}/submit`;
  const answer = await submit(t, students.get(who)!.token, path);
  expect(answer.body.errorCode).toBe("Success");
  const id = answer.body.data.id as string;
  await judge(id, verdict);
  if (time)
    await t.orm.em
      .fork()
      .execute("update records set created_at = ?, updated_at = now() where id = ?", [new Date(at(time)), id]);
  return id;
}

async function get(path: string, token = cast.admin.token) {
  const response = await t.app.handle(
    new Request(`http://localhost${ccs()}${path}`, { headers: { authorization: `Bearer ${token}` } }),
  );
  const body = (await response.json()) as any;
  return { status: response.status, body };
}

/** An NDJSON feed read line by line until `done` says so (or the time is up). */
async function feed(of: string, query: string, token: string, done: (lines: any[]) => boolean, ms = 10_000) {
  const abort = new AbortController();
  const response = await t.app.handle(
    new Request(`http://localhost${ccs()}/contests/${of}/event-feed${query}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: abort.signal,
    }),
  );
  const lines: any[] = [];
  const reader = response.body!.getReader();
  let text = "";
  let ended = "";
  const until = Date.now() + ms;
  const more = async () => {
    while (!done(lines) && Date.now() < until) {
      const next = await Promise.race([reader.read(), Bun.sleep(until - Date.now()).then(() => null)]);
      if (!next || next.done) {
        ended = next ? "the server ended the stream" : "the time was up";
        return;
      }
      text += new TextDecoder().decode(next.value);
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n")) {
        if (nl > 0) lines.push(JSON.parse(text.slice(0, nl)));
        text = text.slice(nl + 1);
      }
    }
    if (!done(lines) && !ended) ended = "the time was up";
  };
  await more();
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    lines,
    /** Why reading stopped before `done` held ("" while it holds or reading goes on). */
    ended: () => ended,
    more: async (next: (lines: any[]) => boolean) => {
      done = next;
      await more();
    },
    close: () => abort.abort(),
  };
}

beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
  for (const name of ["李雷", "Zoë Ñúñez", "Chloé", "Dina"]) {
    const student = await createUser(t, { username: `${name} ${cast.domain.id.slice(0, 4)}` });
    await addMembership(t, cast.domain, student, "user");
    students.set(name, student);
  }
  const analyst = { role: "analyst", permission: { record: { view: true }, problem: { submit: false } } };
  expect((await t.api.post(`${domain()}/roles`, analyst, { token: cast.owner.token })).body.errorCode).toBe("Success");
  spectator = await createUser(t, { username: `Spectator ${cast.domain.id.slice(0, 4)}` });
  await addMembership(t, cast.domain, spectator, "analyst");
  for (let i = 0; i < 3; i++) problems.push(await judgeableProblem(t, cast, { categories: ["pretest", "secret"] }));
  const set = (
    await t.api.post(
      `${domain()}/problem_sets`,
      { title: "Regional 2026", scoreboardRule: "icpc", penaltyMinutes: 20 },
      {
        token: cast.admin.token,
      },
    )
  ).body.data;
  contest = set.id;
  for (const problem of problems)
    await t.api.post(`${domain()}/problem_sets/${contest}/problems`, { problem }, { token: cast.admin.token });
  // The contest starts at 09:00, freezes at 13:00, ends at 14:00.
  await scripted(contest, "李雷", 0, "10:12", "wrong_answer");
  await scripted(contest, "李雷", 0, "10:30", "accepted");
  await scripted(contest, "李雷", 1, "11:00", "accepted");
  await scripted(contest, "Zoë Ñúñez", 0, "10:20", "accepted");
  await scripted(contest, "Zoë Ñúñez", 2, "13:30", "runtime_error");
  await scripted(contest, "Zoë Ñúñez", 2, "13:40", "accepted");
  await scripted(contest, "Chloé", 1, "10:50", "compile_error");
  await scripted(contest, "Chloé", 1, "11:30", "accepted");
  await scripted(contest, "Chloé", 2, "13:10", "accepted");
  const window = { unlockAt: at("09:00"), dueAt: at("14:00"), lockAt: at("14:00"), freezeAt: at("13:00") };
  expect(
    (await t.api.patch(`${domain()}/problem_sets/${contest}`, window, { token: cast.admin.token })).body.errorCode,
  ).toBe("Success");
}, 120_000);
afterAll(() => t?.close());

const COLLECTIONS = [
  "judgement-types",
  "languages",
  "problems",
  "groups",
  "organizations",
  "teams",
  "submissions",
  "judgements",
  "runs",
  "awards",
];

/** Every endpoint's answer as `token` sees it, each checked; the problems found, and the answers. */
async function everyEndpoint(token: string, contest = currentContest()) {
  const found: string[] = [];
  const note = (where: string, list: string[]) => found.push(...list.map((p) => `${where}${p}`));
  const answers: Record<string, any> = {};
  const read = async (name: string, path: string) => {
    const answer = await get(path, token);
    expect({ name, status: answer.status }).toEqual({ name, status: 200 });
    answers[name] = answer.body;
    return answer.body;
  };
  note("/", check.ccsProblems(CCS_ENDPOINT_SCHEMAS.api, await read("api", "")));
  const contests = await read("contests", "/contests");
  note("/contests", check.ccsProblems(CcsList(CCS_ENDPOINT_SCHEMAS.contest), contests));
  const one = await read("contest", `/contests/${contest}`);
  note("/contest", [...check.ccsProblems(CCS_ENDPOINT_SCHEMAS.contest, one), ...check.contestRules(one)]);
  note("/access", check.ccsProblems(CCS_ENDPOINT_SCHEMAS.access, await read("access", `/contests/${contest}/access`)));
  const state = await read("state", `/contests/${contest}/state`);
  note("/state", [...check.ccsProblems(CCS_ENDPOINT_SCHEMAS.state, state), ...check.stateRules(state)]);
  for (const name of COLLECTIONS) {
    const list = await read(name, `/contests/${contest}/${name}`);
    note(`/${name}`, check.ccsProblems(CcsList(CCS_ENDPOINT_SCHEMAS[name]), list));
    for (const object of list) {
      if (name === "judgement-types") note(`/${name}`, check.judgementTypeRules(object, one));
      if (name === "languages") note(`/${name}`, check.languageRules(object));
      if (name === "problems") note(`/${name}`, check.problemRules(object, one));
      if (name === "judgements") note(`/${name}`, check.judgementRules(object, one));
      if (name === "runs") note(`/${name}`, check.runRules(object));
    }
    if (list.length > 0) expect((await get(`/contests/${contest}/${name}/${list[0].id}`, token)).body).toEqual(list[0]);
  }
  const board = await read("scoreboard", `/contests/${contest}/scoreboard`);
  note("/scoreboard", [...check.ccsProblems(CCS_ENDPOINT_SCHEMAS.scoreboard, board), ...check.scoreboardRules(board)]);
  return { found, answers };
}

/** Our own board as a Contest API board would say it: [team, rank, solved, penalty, [judged, pending, minute]…]. */
async function ourBoard(query: string) {
  const board = (await t.api.get(`${domain()}/problem_sets/${contest}/scoreboard${query}`, { token: cast.admin.token }))
    .body.data;
  return board.rows.map((row: any) => [
    row.userId,
    row.rank,
    row.solved,
    row.penalty,
    problems.map((p) => {
      const cell = row.cells.find((c: any) => c.problemId === p);
      return [cell?.submissions ?? 0, cell?.pending ?? 0, cell?.solvedMinute ?? null];
    }),
  ]);
}

function ccsBoard(board: any, teams: string[]) {
  return board.rows
    .filter((row: any) => teams.includes(row.team_id))
    .map((row: any) => [
      row.team_id,
      row.rank,
      row.score.num_solved,
      row.score.total_time,
      row.problems.map((c: any) => [c.num_judged, c.num_pending, c.solved ? c.time : null]),
    ]);
}

const id = (name: string) => students.get(name)!.user.id;
/** Every team: the students and the cast's member (role user), who never submits; staff and the spectator none. */
const everyone = () => [...[...students.values()].map((s) => s.user.id), cast.member.user.id];

describe("a scripted ICPC contest through the Contest API", () => {
  test("every endpoint answers in the spec's shapes, for the admin and for the public", async () => {
    for (const token of [cast.admin.token, spectator.token, students.get("李雷")!.token]) {
      const { found, answers } = await everyEndpoint(token);
      expect(found).toEqual([]);
      expect(answers.contest).toMatchObject({
        id: contest,
        name: "Regional 2026",
        start_time: "2026-03-01T09:00:00.000Z",
        duration: "5:00:00.000",
        scoreboard_freeze_duration: "1:00:00.000",
        scoreboard_type: "pass-fail",
        penalty_time: 20,
      });
      expect(answers.problems.map((p: any) => [p.label, p.ordinal, p.test_data_count])).toEqual([
        ["A", 0, 2],
        ["B", 1, 2],
        ["C", 2, 2],
      ]);
      expect(answers.state).toMatchObject({ started: "2026-03-01T09:00:00.000Z", frozen: "2026-03-01T13:00:00.000Z" });
      expect(answers.state.thawed).toBeNull();
      expect(answers.teams.map((team: any) => team.id)).toEqual(
        expect.arrayContaining([...students.values()].map((s) => s.user.id)),
      );
    }
  });

  test("the scoreboard is our board cell for cell, and the one computed by hand, frozen for the public", async () => {
    const teams = [...students.values()].map((s) => s.user.id);
    const admin = (await get(`/contests/${contest}/scoreboard`)).body;
    const publicBoard = (await get(`/contests/${contest}/scoreboard`, students.get("Dina")!.token)).body;
    // Row for row, the teams that never submitted too (our board has them: one rule, board-people.ts).
    expect(admin.rows).toHaveLength(everyone().length);
    expect(ccsBoard(admin, everyone())).toEqual(await ourBoard(""));
    expect(ccsBoard(publicBoard, everyone())).toEqual(await ourBoard("?view=public"));
    // By hand: 李雷 A at 90 + 20 for the wrong answer, B at 120; Zoë A at 80, C at 280 + 20 (a run-time error);
    // Chloé B at 150 (a compile error is free), C at 250. Dina submitted nothing: last, nothing solved.
    const summary = (board: any) =>
      board.rows
        .filter((r: any) => teams.includes(r.team_id))
        .map((r: any) => [r.team_id, r.rank, r.score.num_solved, r.score.total_time]);
    expect(summary(admin)).toEqual([
      [id("李雷"), 1, 2, 230],
      [id("Zoë Ñúñez"), 2, 2, 380],
      [id("Chloé"), 3, 2, 400],
      [id("Dina"), 4, 0, 0],
    ]);
    // Frozen at 13:00: Zoë's and Chloé's C are pending for the public.
    expect(summary(publicBoard)).toEqual([
      [id("李雷"), 1, 2, 230],
      [id("Zoë Ñúñez"), 2, 1, 80],
      [id("Chloé"), 3, 1, 150],
      [id("Dina"), 4, 0, 0],
    ]);
    const zoe = publicBoard.rows.find((r: any) => r.team_id === id("Zoë Ñúñez"));
    expect(zoe.problems[2]).toEqual({ problem_id: expect.any(String), num_judged: 0, num_pending: 2, solved: false });
  });

  test("public and admin views differ around the freeze: judgements, runs, files and awards", async () => {
    const student = spectator.token;
    // A participant without record.view sees no one's submissions here, as in the records list.
    for (const name of ["submissions", "judgements", "runs"])
      expect((await get(`/contests/${contest}/${name}`, students.get("Dina")!.token)).body).toEqual([]);
    const [adminJudgements, publicJudgements] = [
      (await get(`/contests/${contest}/judgements`)).body,
      (await get(`/contests/${contest}/judgements`, student)).body,
    ];
    const submissions = (await get(`/contests/${contest}/submissions`)).body;
    const late = submissions.filter((s: any) => s.time >= "2026-03-01T13:00:00.000Z").map((s: any) => s.id);
    expect(late).toHaveLength(3);
    expect(adminJudgements).toHaveLength(9);
    expect(publicJudgements.map((j: any) => j.submission_id)).toEqual(
      adminJudgements.map((j: any) => j.submission_id).filter((s: string) => !late.includes(s)),
    );
    const publicRuns = (await get(`/contests/${contest}/runs`, student)).body;
    expect(publicRuns.every((r: any) => publicJudgements.some((j: any) => j.id === r.judgement_id))).toBe(true);
    expect((await get(`/contests/${contest}/runs`)).body).toHaveLength(18);
    // Files: the admin's, a zip of the code; none for the public.
    const publicFiles = (await get(`/contests/${contest}/submissions`, student)).body.map((s: any) => s.files);
    expect(publicFiles.every((files: unknown) => Array.isArray(files) && files.length === 0)).toBe(true);
    const code = await t.app.handle(
      new Request(submissions[0].files[0].href.replace(/^https?:\/\/[^/]+/, "http://localhost"), {
        headers: { authorization: `Bearer ${cast.admin.token}` },
      }),
    );
    expect(code.status).toBe(200);
    const typeOf = (submission: string) =>
      adminJudgements.find((j: any) => j.submission_id === submission).judgement_type_id;
    // In time order: 李雷's first A a wrong answer, Chloé's first B a compile error, Zoë's first C a run-time error.
    expect(submissions.map((s: any) => typeOf(s.id))).toEqual(["WA", "AC", "AC", "CE", "AC", "AC", "AC", "RTE", "AC"]);
    const award = (list: any[], name: string) => list.find((a: any) => a.id === name).team_ids;
    const [adminAwards, publicAwards] = [
      (await get(`/contests/${contest}/awards`)).body,
      (await get(`/contests/${contest}/awards`, student)).body,
    ];
    const problemIds = (await get(`/contests/${contest}/problems`)).body.map((p: any) => p.id);
    expect(award(adminAwards, "winner")).toEqual([id("李雷")]);
    expect(problemIds.map((p: string) => award(adminAwards, `first-to-solve-${p}`))).toEqual([
      [id("Zoë Ñúñez")],
      [id("李雷")],
      [id("Chloé")],
    ]);
    expect(award(publicAwards, `first-to-solve-${problemIds[2]}`)).toEqual([]);
    // The spec's filters: ?team_id= keeps one team's.
    const own = (await get(`/contests/${contest}/submissions?team_id=${id("Chloé")}`)).body;
    expect(own.map((s: any) => s.team_id)).toEqual([id("Chloé"), id("Chloé"), id("Chloé")]);
  });

  test("a contest that is not there, or no ICPC set, is the spec's 404; a stale since_token a 400", async () => {
    expect(await get(`/contests/00000000-0000-4000-8000-000000000000`)).toMatchObject({
      status: 404,
      body: { code: 404 },
    });
    const homework = (await t.api.post(`${domain()}/problem_sets`, { title: "Lab 1" }, { token: cast.admin.token }))
      .body.data;
    expect((await get(`/contests/${homework.id}/state`)).status).toBe(404);
    expect((await get(`/contests/${contest}/teams/nobody`)).status).toBe(404);
    const stale = await get(`/contests/${contest}/event-feed?since_token=not-a-token`);
    expect(stale).toMatchObject({ status: 400, body: { code: 400 } });
    // The spec's own check-api.sh (2023-06, -e): what it asks for, and the status it wants.
    const checked: [string, number][] = [
      ["doesnt-exist", 404],
      ["doesnt-exist/42", 404],
      ["submissions/999999", 404],
      ["submissions/xyz9999", 404],
      ["submissions/XYZ_999", 404],
      ["submissions/XYZ-999", 404],
      ["event-feed?since_id=999999", 400],
      ["event-feed?since_id=xY-99_", 400],
    ];
    for (const [path, status] of checked)
      expect({ path, ...(await get(`/contests/${contest}/${path}`)) }).toMatchObject({
        path,
        status,
        body: { code: status },
      });
    expect((await t.app.handle(new Request(`http://localhost${ccs()}/contests`))).status).toBe(401);
  });
});

describe("who reads what", () => {
  const basic = (key: { accessKeyId: string; secretAccessKey: string }) =>
    `Basic ${Buffer.from(`${key.accessKeyId}:${key.secretAccessKey}`).toString("base64")}`;
  const as = async (path: string, authorization: string) => {
    const response = await t.app.handle(new Request(`http://localhost${ccs()}${path}`, { headers: { authorization } }));
    return { status: response.status, body: (await response.json()) as any };
  };

  test("a tool's access key (basic auth): refused without problemSet.view, the admin view as a domain admin", async () => {
    const key = await judgerKey(t, cast);
    expect((await as(`/contests/${contest}/submissions`, basic(key))).status).toBe(403);
    await addMembership(t, cast.domain, { user: { id: key.id } } as TestUser, "admin");
    const submissions = await as(`/contests/${contest}/submissions`, basic(key));
    expect(submissions.status).toBe(200);
    expect(submissions.body.every((s: any) => s.files?.[0]?.mime === "application/zip")).toBe(true);
    const wrong = basic({ accessKeyId: key.accessKeyId, secretAccessKey: "not the secret" });
    expect((await as(`/contests/${contest}/submissions`, wrong)).status).toBe(401);
  });

  test("another domain's contest is not here; its members and outsiders read nothing of this one", async () => {
    const other = await makeCast(t);
    const theirs = (
      await t.api.post(
        `/domains/${other.domain.id}/problem_sets`,
        { title: "Elsewhere", scoreboardRule: "icpc", dueAt: at("14:00") },
        { token: other.admin.token },
      )
    ).body.data.id;
    expect(await get(`/contests/${theirs}`)).toMatchObject({ status: 404, body: { code: 404 } });
    expect((await get(`/contests/${theirs}/event-feed?stream=false`)).status).toBe(404);
    // Outside the domain it does not exist (the API says DomainNotFoundError), in the spec's shape: a 404.
    for (const who of [other.admin, cast.outsider]) {
      const board = await t.api.get(`${domain()}/problem_sets/${contest}/scoreboard`, { token: who.token });
      expect(board.body.errorCode).toBe("DomainNotFoundError");
      for (const path of ["/contests", `/contests/${contest}/teams`, `/contests/${contest}/event-feed?stream=false`])
        expect(await get(path, who.token)).toMatchObject({ status: 404, body: { code: 404 } });
    }
    // A guest of the domain holds no problemSet.view: a 403.
    expect(await get(`/contests/${contest}/teams`, cast.guest.token)).toMatchObject({
      status: 403,
      body: { code: 403 },
    });
  });

  test("a hidden scoreboard stays hidden: its board and awards a 403, its feed without awards", async () => {
    const secret = (
      await t.api.post(
        `${domain()}/problem_sets`,
        { title: "Mock", scoreboardRule: "icpc", dueAt: at("14:00"), scoreboardHidden: true },
        { token: cast.admin.token },
      )
    ).body.data.id as string;
    for (const path of ["scoreboard", "awards"])
      expect(await get(`/contests/${secret}/${path}`, spectator.token)).toMatchObject({
        status: 403,
        body: { code: 403 },
      });
    expect((await get(`/contests/${secret}/scoreboard`)).status).toBe(200);
    const lines = (await feed(secret, "?stream=false", spectator.token, () => false)).lines;
    expect(lines[0].type).toBe("contest");
    expect(lines.some((l) => l.type === "awards")).toBe(false);
  });

  test("a hidden set is no contest to the public, and listed only for those who manage sets", async () => {
    const hidden = (
      await t.api.post(
        `${domain()}/problem_sets`,
        { title: "Tomorrow", scoreboardRule: "icpc", dueAt: at("14:00"), hidden: true },
        { token: cast.admin.token },
      )
    ).body.data.id;
    const student = students.get("Dina")!.token;
    expect((await get(`/contests/${hidden}`, student)).status).toBe(404);
    expect((await get("/contests", student)).body.map((c: any) => c.id)).not.toContain(hidden);
    expect((await get("/contests")).body.map((c: any) => c.id)).toContain(hidden);
  });
});

describe("an IOI set, a score contest", () => {
  test("points in the spec's shapes (max scores, judgements' scores, no penalty), and the board is ours", async () => {
    const olympiad = (
      await t.api.post(
        `${domain()}/problem_sets`,
        { title: "Olympiad, day 1", scoreboardRule: "ioi" },
        {
          token: cast.admin.token,
        },
      )
    ).body.data.id as string;
    for (const problem of problems.slice(0, 2))
      await t.api.post(`${domain()}/problem_sets/${olympiad}/problems`, { problem }, { token: cast.admin.token });
    await scripted(olympiad, "李雷", 0, "09:30", "wrong_answer");
    await scripted(olympiad, "李雷", 0, "10:00", "accepted");
    await scripted(olympiad, "李雷", 1, "10:10", "wrong_answer");
    await scripted(olympiad, "Zoë Ñúñez", 0, "09:40", "accepted");
    await t.api.patch(
      `${domain()}/problem_sets/${olympiad}`,
      { unlockAt: at("09:00"), dueAt: at("14:00") },
      {
        token: cast.admin.token,
      },
    );
    const { found, answers } = await everyEndpoint(cast.admin.token, olympiad);
    expect(found).toEqual([]);
    expect(answers.contest.scoreboard_type).toBe("score");
    expect(answers.contest).not.toHaveProperty("penalty_time");
    expect(answers.problems.map((p: any) => p.max_score)).toEqual([20, 20]);
    expect(answers["judgement-types"].every((type: any) => !("penalty" in type))).toBe(true);
    expect(answers.judgements.every((j: any) => typeof j.score === "number")).toBe(true);
    const ours = (await t.api.get(`${domain()}/problem_sets/${olympiad}/scoreboard`, { token: cast.admin.token })).body
      .data;
    const mine = ours.rows.map((row: any) => [
      row.userId,
      row.rank,
      row.totalScore,
      problems.slice(0, 2).map((p) => row.cells.find((c: any) => c.problemId === p)?.score ?? 0),
    ]);
    const theirs = answers.scoreboard.rows
      .slice(0, ours.rows.length)
      .map((row: any) => [row.team_id, row.rank, row.score.score, row.problems.map((c: any) => c.score)]);
    expect(theirs).toEqual(mine);
    expect(mine.map((row: any) => row[0]).slice(0, 2)).toEqual([id("李雷"), id("Zoë Ñúñez")]);
    // The teams that never submitted in this set: rows with no score, tied after those who scored.
    expect(mine.slice(2).map((row: any) => [row[0], row[1], row[2]])).toEqual(
      expect.arrayContaining([id("Chloé"), id("Dina"), cast.member.user.id].map((team) => [team, 3, 0])),
    );
    expect(mine).toHaveLength(everyone().length);
    expect(answers.awards).toEqual([{ id: "winner", citation: "Contest winner", team_ids: [id("李雷")] }]);
  });
});

/** Until the domain's change log stops growing: announcements reach it in batches up to 10 ms apart. */
async function settled() {
  const redis = new Redis(t.config.redisUrl);
  let last = "";
  for (let i = 0; i < 100; i++) {
    const [entry] = await redis.xrevrange(logOf(t.config.queuePrefix, cast.domain.id), "+", "-", "COUNT", 1);
    if (entry?.[0] === last) break;
    last = entry?.[0] ?? "";
    await Bun.sleep(50);
  }
  redis.disconnect();
}

describe("the event feed", () => {
  const dump = (token: string, of = contest, query = "") => feed(of, `?stream=false${query}`, token, () => false);

  test("replays the contest, every line in the spec's shape, the public's without the frozen judgements", async () => {
    const admin = await dump(cast.admin.token);
    expect(admin.status).toBe(200);
    expect(admin.type).toBe("application/x-ndjson");
    const problemsFound = admin.lines.flatMap((line, i) => check.eventProblems(line).map((p) => `line ${i}${p}`));
    expect(problemsFound).toEqual([]);
    expect(admin.lines[0]).toMatchObject({ type: "contest", id: null, data: { id: contest } });
    const types = [...new Set(admin.lines.map((line) => line.type))];
    expect(types).toEqual([
      "contest",
      "judgement-types",
      "languages",
      "problems",
      "teams",
      "state",
      "submissions",
      "judgements",
      "runs",
      "awards",
    ]);
    const count = (lines: any[], type: string) => lines.filter((line) => line.type === type).length;
    expect([count(admin.lines, "submissions"), count(admin.lines, "judgements"), count(admin.lines, "runs")]).toEqual([
      9, 9, 18,
    ]);
    expect(new Set(admin.lines.map((line) => line.token)).size).toBe(1);
    expect((await dump(students.get("Dina")!.token)).lines.some((l) => l.type === "submissions")).toBe(false);
    const open = await dump(spectator.token);
    expect(open.lines.flatMap((line) => check.eventProblems(line))).toEqual([]);
    expect([count(open.lines, "submissions"), count(open.lines, "judgements")]).toEqual([9, 6]);
    expect(open.lines.find((line) => line.type === "submissions").data.files).toEqual([]);
  });

  test("streams a new judgement live, and since_token resends what changed since, not the rest", async () => {
    const now = Date.now();
    const live = (
      await t.api.post(
        `${domain()}/problem_sets`,
        {
          title: "Live round",
          scoreboardRule: "icpc",
          unlockAt: new Date(now - 3_600_000).toISOString(),
          dueAt: new Date(now + 3_600_000).toISOString(),
        },
        { token: cast.admin.token },
      )
    ).body.data.id as string;
    await t.api.post(
      `${domain()}/problem_sets/${live}/problems`,
      { problem: problems[0] },
      { token: cast.admin.token },
    );
    const earlier = await scripted(live, "Dina", 0, null, "wrong_answer");
    await settled();
    const before = await dump(cast.admin.token, live);
    const token = before.lines.at(-1).token;
    const stream = await feed(live, "", cast.admin.token, (lines) => lines.length >= before.lines.length);
    expect(stream.lines.map((l) => l.type)).toEqual(before.lines.map((l) => l.type));
    const fresh = await scripted(live, "李雷", 0, null, "accepted");
    const judged = (lines: any[]) =>
      lines.find(
        (l) => l.type === "judgements" && l.data?.submission_id === fresh && l.data.judgement_type_id === "AC",
      );
    const ran = (lines: any[]) =>
      lines.some(
        (l) => l.type === "runs" && l.data?.judgement_id === judged(lines)?.id && l.data.judgement_type_id === "AC",
      );
    // The judgement, its runs and the winner's award, in whatever bursts they come (bounded: the feed's 10 s).
    await stream.more(
      (lines) =>
        !!judged(lines) &&
        ran(lines) &&
        lines.some((l) => l.type === "awards" && l.id === "winner" && l.data?.team_ids.includes(id("李雷"))),
    );
    stream.close();
    const news = stream.lines.slice(before.lines.length);
    // Said whole when it fails: why the stream stopped, what it sent, what the server logged.
    const logged = t.logs.filter((l) => l.level === "error" || l.level === "warn");
    expect({ ended: stream.ended(), news: news.map((l) => `${l.type}/${l.id}`), logged }).toMatchObject({
      ended: "",
    });
    expect(news.flatMap((line) => check.eventProblems(line))).toEqual([]);
    expect(news.some((l) => l.type === "submissions" && l.id === fresh)).toBe(true);
    // Said whole when it fails (it did, rarely, in CI): every new line, and the record as PostgreSQL holds it now.
    const acRun = news.some((l) => l.type === "runs" && l.data?.judgement_type_id === "AC");
    if (!acRun) {
      const [row] = await t.orm.em
        .fork()
        .execute("select state, cases, judged_at, updated_at from records where id = ?", [fresh]);
      const lines = news.map((l) => `${l.type}/${l.id}:${l.data === null ? "null" : (l.data.judgement_type_id ?? "")}`);
      const found: Record<string, unknown> = {
        acRun,
        lines,
        row,
        before: before.lines.length,
        all: stream.lines.length,
      };
      expect(found).toEqual({ acRun: true });
    }
    expect(news.find((l) => l.type === "awards" && l.id === "winner")?.data.team_ids).toEqual([id("李雷")]);
    // Resuming from before the new judgement: the configuration and state again, the new record's objects,
    // none of the earlier record's.
    const resumed = await dump(cast.admin.token, live, `&since_token=${encodeURIComponent(token)}`);
    expect(resumed.lines.flatMap((line) => check.eventProblems(line))).toEqual([]);
    expect(resumed.lines[0].type).toBe("contest");
    expect(resumed.lines.some((l) => l.type === "state")).toBe(true);
    expect(resumed.lines.some((l) => l.type === "judgements" && l.data.submission_id === fresh)).toBe(true);
    expect(resumed.lines.some((l) => l.type === "submissions" && l.id === earlier)).toBe(false);
  }, 30_000);

  // Last: the thaw cannot be undone.
  test("the thaw: a public feed gets the state and the hidden judgements, and the boards agree again", async () => {
    const student = spectator.token;
    const before = await dump(student);
    const stream = await feed(contest, "", student, (lines) => lines.length >= before.lines.length);
    const unfrozen = await t.api.post(`${domain()}/problem_sets/${contest}/scoreboard/unfreeze`, undefined, {
      token: cast.admin.token,
    });
    expect(unfrozen.body.errorCode).toBe("Success");
    await stream.more((lines) => lines.filter((l) => l.type === "judgements").length >= 9);
    stream.close();
    const state = stream.lines.filter((l) => l.type === "state").at(-1).data;
    expect(state.thawed).not.toBeNull();
    expect(state.finalized).toBe(state.thawed);
    expect(stream.lines.filter((l) => l.type === "judgements")).toHaveLength(9);
    expect(check.stateRules(state)).toEqual([]);
    const publicBoard = (await get(`/contests/${contest}/scoreboard`, student)).body;
    expect(ccsBoard(publicBoard, everyone())).toEqual(await ourBoard("?view=public"));
    expect(ccsBoard(publicBoard, everyone())).toEqual(
      ccsBoard((await get(`/contests/${contest}/scoreboard`)).body, everyone()),
    );
  }, 30_000);
});
