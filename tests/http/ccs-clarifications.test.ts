import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { addMembership, type Cast, makeCast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import * as check from "../helpers/ccs-validate";
import { CCS_ENDPOINT_SCHEMAS, CcsClarification, CcsList } from "../../src/modules/ccs/ccs.schemas";

// A contest's clarifications through the ICPC Contest API: every message in the admin view, only those to all
// teams in the public one, in the collection, by id and in the event feed, live too.
let t: TestApp;
let cast: Cast;
let alice: TestUser;
let bob: TestUser;
let contest: string;
let problemA: string;
const hour = 3_600_000;
const startMs = Date.now() - hour;
const messages: Record<string, string> = {};
const domain = () => `/domains/${cast.domain.id}`;
const ccs = () => `/api/ccs/domains/${cast.domain.id}`;
const clarifications = () => `${domain()}/problem_sets/${contest}/clarifications`;

async function post(path: string, body: object, user: TestUser): Promise<string> {
  const answer = await t.api.post(path, body, { token: user.token });
  expect(answer.body.errorCode).toBe("Success");
  return answer.body.data.id;
}

async function get(path: string, token = cast.admin.token) {
  const response = await t.app.handle(
    new Request(`http://localhost${ccs()}${path}`, { headers: { authorization: `Bearer ${token}` } }),
  );
  return { status: response.status, body: (await response.json()) as any };
}

/** The event feed read line by line; `until` waits for a line that matches, or the feed's end. */
async function feed(query: string, token: string) {
  const abort = new AbortController();
  const response = await t.app.handle(
    new Request(`http://localhost${ccs()}/contests/${contest}/event-feed${query}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: abort.signal,
    }),
  );
  const lines: any[] = [];
  const reader = response.body!.getReader();
  let text = "";
  let ended = false;
  const until = async (match: (line: any) => boolean) => {
    while (!ended && !lines.some(match)) {
      const next = await reader.read();
      if (next.done) ended = true;
      else text += new TextDecoder().decode(next.value);
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n")) {
        if (nl > 0) lines.push(JSON.parse(text.slice(0, nl)));
        text = text.slice(nl + 1);
      }
    }
    return lines.find(match);
  };
  return { lines, until, close: () => abort.abort() };
}

beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  const tag = randomUUID().slice(0, 6);
  alice = await createUser(t, { username: `ccs-alice-${tag}` });
  bob = await createUser(t, { username: `ccs-bob-${tag}` });
  await addMembership(t, cast.domain, alice, "user");
  await addMembership(t, cast.domain, bob, "user");
  problemA = await post(`${domain()}/problems`, { title: "Asteroids" }, cast.owner);
  const window = { unlockAt: new Date(startMs).toISOString(), lockAt: new Date(startMs + 5 * hour).toISOString() };
  contest = await post(
    `${domain()}/problem_sets`,
    { title: "Regional", scoreboardRule: "icpc", ...window },
    cast.admin,
  );
  await post(`${domain()}/problem_sets/${contest}/problems`, { problem: problemA }, cast.admin);
  // The script: alice asks about A and is answered privately; bob asks and is answered to all; an announcement;
  // and a question by staff, who are no team.
  messages.aliceAsks = await post(clarifications(), { text: "Are the asteroids round?", problem: problemA }, alice);
  messages.toAlice = await post(
    `${clarifications()}/${messages.aliceAsks}/answer`,
    { text: "Read again." },
    cast.admin,
  );
  messages.bobAsks = await post(clarifications(), { text: "May we use a calculator?\nA pocket one?" }, bob);
  const toAll = { text: "No calculators.", public: true };
  messages.toAll = await post(`${clarifications()}/${messages.bobAsks}/answer`, toAll, cast.admin);
  messages.news = await post(`${clarifications()}/announcements`, { text: "Lunch at noon." }, cast.admin);
  messages.staffAsks = await post(clarifications(), { text: "Testing the form." }, cast.admin);
});
afterAll(() => t.close());

/** Every problem of a list of Contest API clarifications: the schema's and the spec's rule on teams. */
const problemsOf = (list: any[]) => [
  ...check.ccsProblems(CcsList(CCS_ENDPOINT_SCHEMAS.clarifications), list),
  ...list.flatMap((c) => check.clarificationRules(c)),
];

describe("GET …/contests/{id}/clarifications", () => {
  test("the admin view has every team's message, each from or to its team, with the CCS problem id", async () => {
    const problem = (await get(`/contests/${contest}/problems`)).body[0].id as string;
    const { status, body } = await get(`/contests/${contest}/clarifications`);
    expect(status).toBe(200);
    expect(problemsOf(body)).toEqual([]);
    expect(body.map((c: any) => c.id)).toEqual(
      ["aliceAsks", "toAlice", "bobAsks", "toAll", "news"].map((k) => messages[k]),
    );
    const [asks, toAlice, , toAll, news] = body;
    expect(asks).toMatchObject({
      from_team_id: alice.user.id,
      to_team_id: null,
      reply_to_id: null,
      problem_id: problem,
    });
    expect(asks.text).toBe("Are the asteroids round?");
    expect(toAlice).toMatchObject({ from_team_id: null, to_team_id: alice.user.id, reply_to_id: messages.aliceAsks });
    expect(toAll).toMatchObject({ from_team_id: null, to_team_id: null, reply_to_id: messages.bobAsks });
    expect(toAll.text).toBe("No calculators.");
    expect(news).toMatchObject({ from_team_id: null, to_team_id: null, reply_to_id: null, problem_id: null });
    // Contest time counts from the start (an hour before the script ran).
    const sinceStart = check.relTimeMs(news.contest_time);
    expect(sinceStart).toBeGreaterThanOrEqual(hour);
    expect(Date.parse(news.time) - startMs).toBe(sinceStart);
  });

  test("the public view has only the messages to all teams; an answer quotes its question and names no asker", async () => {
    for (const reader of [alice, bob]) {
      const { body } = await get(`/contests/${contest}/clarifications`, reader.token);
      expect(problemsOf(body)).toEqual([]);
      expect(body.map((c: any) => c.id)).toEqual([messages.toAll, messages.news]);
      expect(body[0]).toMatchObject({ from_team_id: null, to_team_id: null, reply_to_id: null });
      expect(body[0].text).toBe("> May we use a calculator?\n> A pocket one?\n\nNo calculators.");
      expect(JSON.stringify(body)).not.toContain("asteroids");
    }
  });

  test("one by id, as listed; another's or a private one is a 404 to the public; filters on ids work", async () => {
    const listed = (await get(`/contests/${contest}/clarifications`)).body;
    expect((await get(`/contests/${contest}/clarifications/${messages.toAlice}`)).body).toEqual(listed[1]);
    for (const hidden of [messages.aliceAsks, messages.toAlice, messages.staffAsks]) {
      expect(await get(`/contests/${contest}/clarifications/${hidden}`, bob.token)).toMatchObject({
        status: 404,
        body: { code: 404 },
      });
    }
    const aboutA = (await get(`/contests/${contest}/clarifications?problem_id=${listed[0].problem_id}`)).body;
    expect(aboutA.map((c: any) => c.id)).toEqual([messages.aliceAsks, messages.toAlice]);
    const fromAlice = (await get(`/contests/${contest}/clarifications?from_team_id=${alice.user.id}`)).body;
    expect(fromAlice.map((c: any) => c.id)).toEqual([messages.aliceAsks]);
  });

  test("/access lists the endpoint with its eight properties, in both views", async () => {
    for (const token of [cast.admin.token, alice.token]) {
      const endpoints = (await get(`/contests/${contest}/access`, token)).body.endpoints;
      expect(endpoints.find((e: any) => e.type === "clarifications").properties).toEqual(
        Object.keys(CcsClarification.properties),
      );
    }
  });
});

describe("clarifications in the event feed", () => {
  test("after runs and before awards, each valid; the public feed has only the messages to all", async () => {
    const admin = await feed("?stream=false", cast.admin.token);
    await admin.until(() => false);
    expect(admin.lines.flatMap((line) => check.eventProblems(line))).toEqual([]);
    const types = [...new Set(admin.lines.map((line) => line.type))];
    expect(types.indexOf("clarifications")).toBeGreaterThan(types.indexOf("state"));
    if (types.includes("awards")) expect(types.indexOf("clarifications")).toBeLessThan(types.indexOf("awards"));
    const sent = (lines: any[]) => lines.filter((l) => l.type === "clarifications").map((l) => l.id);
    expect(sent(admin.lines)).toHaveLength(5);
    const open = await feed("?stream=false", bob.token);
    await open.until(() => false);
    expect(sent(open.lines)).toEqual([messages.toAll, messages.news]);
  });

  test("live: a new announcement and public answer reach the public feed; a private answer does not", async () => {
    const open = await feed("", alice.token);
    const staff = await feed("", cast.admin.token);
    try {
      await open.until((line) => line.id === messages.news);
      const question = await post(clarifications(), { text: "Live: is n positive?" }, bob);
      const privately = await post(`${clarifications()}/${question}/answer`, { text: "Live: yes." }, cast.admin);
      const openly = { text: "Live: n is positive.", public: true };
      const toAll = await post(`${clarifications()}/${question}/answer`, openly, cast.admin);
      const last = await post(`${clarifications()}/announcements`, { text: "Live: the last one." }, cast.admin);
      expect(await open.until((line) => line.id === last)).toMatchObject({ type: "clarifications" });
      expect(open.lines.some((line) => line.id === toAll)).toBe(true);
      expect(open.lines.some((line) => line.id === privately || line.id === question)).toBe(false);
      expect(await staff.until((line) => line.id === last)).toBeTruthy();
      expect(staff.lines.filter((line) => [question, privately, toAll].includes(line.id))).toHaveLength(3);
      expect([...open.lines, ...staff.lines].flatMap((line) => check.eventProblems(line))).toEqual([]);
    } finally {
      open.close();
      staff.close();
    }
  });
});
