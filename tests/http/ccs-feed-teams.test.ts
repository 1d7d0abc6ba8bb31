import { afterAll, beforeAll, expect, test } from "bun:test";
import Redis from "ioredis";
import { logOf, memberChange, setChange } from "../../src/modules/record-events/record-events.bus";
import { addMembership, type Cast, makeCast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem } from "../helpers/records";
import { readNdjson } from "../helpers/ndjson-feed";
import { spawnApp, type TestApp } from "../helpers/spawn-app";

// The Contest API's feed tells a client everything it caches about the teams and problems (docs/contest-api.md
// "The event feed"): a member removed, added or given a role that does not take part changes the contest's
// teams, and the feed says so at once, with no record changing, and again to a client resuming from before it;
// a problem added to the set or taken out is a problem's line or its deletion, at once.
let t: TestApp;
let cast: Cast;
let contest: string;
let spare: string;
const people = new Map<string, TestUser>();
const domain = () => `/domains/${cast.domain.id}`;
const HOUR = 3_600_000;

/** A live NDJSON feed, read in the background; `until` waits for a line (bounded) and answers it. */
async function openFeed(query = "") {
  const feed = await readNdjson(
    t,
    `/api/ccs/domains/${cast.domain.id}/contests/${contest}/event-feed${query}`,
    cast.admin.token,
  );
  return { lines: feed.lines, until: feed.find, close: feed.close };
}

const team =
  (who: string, gone = false) =>
  (line: any) =>
    line.type === "teams" && line.id === people.get(who)!.user.id && (gone ? line.data === null : line.data !== null);

beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  for (const name of ["Amara Okonkwo", "Björn Lindqvist", "Chen Jing", "Dmitri Volkov", "Emeka Obi"]) {
    const user = await createUser(t, { username: `${name} ${cast.domain.id.slice(0, 4)}` });
    if (name !== "Chen Jing") await addMembership(t, cast.domain, user, "user");
    people.set(name.split(" ")[0], user);
  }
  const observer = { role: "observer", permission: { problem: { submit: false }, record: { view: true } } };
  expect((await t.api.post(`${domain()}/roles`, observer, { token: cast.owner.token })).body.errorCode).toBe("Success");
  const problem = await judgeableProblem(t, cast);
  const now = Date.now();
  contest = (
    await t.api.post(
      `${domain()}/problem_sets`,
      {
        title: "Spring qualifier",
        scoreboardRule: "icpc",
        unlockAt: new Date(now - HOUR).toISOString(),
        dueAt: new Date(now + HOUR).toISOString(),
      },
      { token: cast.admin.token },
    )
  ).body.data.id;
  await t.api.post(`${domain()}/problem_sets/${contest}/problems`, { problem }, { token: cast.admin.token });
  spare = await judgeableProblem(t, cast, { body: { title: "Bracelets" } });
});
afterAll(() => t?.close());

/** The newest announcement in the domain's change log, read the moment it is asked (no wait). */
async function newestAnnouncement(): Promise<string | undefined> {
  const redis = new Redis(t.config.redisUrl);
  try {
    const [entry] = await redis.xrevrange(logOf(t.config.queuePrefix, cast.domain.id), "+", "-", "COUNT", 1);
    const fields = entry?.[1] ?? [];
    return fields[fields.indexOf("r") + 1];
  } finally {
    redis.disconnect();
  }
}

test("live: a member removed is a team's deletion, one added a new team, one made an observer a deletion", async () => {
  const feed = await openFeed();
  try {
    expect(await feed.until(team("Björn"))).not.toBeNull();
    const removed = await t.api.delete(`${domain()}/users/${people.get("Björn")!.user.id}`, {
      token: cast.owner.token,
    });
    expect(removed.body.errorCode).toBe("Success");
    expect(await feed.until(team("Björn", true))).not.toBeNull();
    const added = await t.api.post(
      `${domain()}/users`,
      { user: people.get("Chen")!.user.id, role: "user" },
      { token: cast.owner.token },
    );
    expect(added.body.errorCode).toBe("Success");
    expect(await feed.until(team("Chen"))).not.toBeNull();
    const observed = await t.api.patch(
      `${domain()}/users/${people.get("Amara")!.user.id}`,
      { role: "observer" },
      { token: cast.owner.token },
    );
    expect(observed.body.errorCode).toBe("Success");
    expect(await feed.until(team("Amara", true))).not.toBeNull();
  } finally {
    feed.close();
  }
});

test("resumed from before a removal: the removed team's deletion comes with the rest", async () => {
  const first = await openFeed("?stream=false");
  expect(await first.until(team("Dmitri"))).not.toBeNull();
  const token = first.lines.at(-1).token as string;
  first.close();
  await t.api.delete(`${domain()}/users/${people.get("Dmitri")!.user.id}`, { token: cast.owner.token });
  // The answer comes once the removal is in the log: a resume made at once cannot miss it.
  expect(await newestAnnouncement()).toBe(memberChange(people.get("Dmitri")!.user.id));
  const resumed = await openFeed(`?stream=false&since_token=${encodeURIComponent(token)}`);
  expect(await resumed.until(team("Dmitri", true))).not.toBeNull();
  // Those still there are sent again, whole; no deletion for them.
  expect(resumed.lines.some(team("Emeka"))).toBe(true);
  expect(resumed.lines.some(team("Emeka", true))).toBe(false);
  resumed.close();
});

test("live: a problem added to the set is a new problem, one taken out its deletion", async () => {
  const feed = await openFeed();
  try {
    const first = await feed.until((line) => line.type === "problems");
    expect(first).not.toBeNull();
    const path = `${domain()}/problem_sets/${contest}/problems`;
    expect((await t.api.post(path, { problem: spare }, { token: cast.admin.token })).body.errorCode).toBe("Success");
    const added = await feed.until((line) => line.type === "problems" && line.data?.name === "Bracelets");
    expect(added).not.toBeNull();
    const removed = await t.api.delete(`${path}/${spare}`, { token: cast.admin.token });
    expect(removed.body.errorCode).toBe("Success");
    expect(
      await feed.until((line) => line.type === "problems" && line.id === added.id && line.data === null),
    ).not.toBeNull();
  } finally {
    feed.close();
  }
});

test("resumed from before a problem was taken out: its deletion comes with the rest", async () => {
  const path = `${domain()}/problem_sets/${contest}/problems`;
  expect((await t.api.post(path, { problem: spare }, { token: cast.admin.token })).body.errorCode).toBe("Success");
  const first = await openFeed("?stream=false");
  const line = await first.until((l) => l.type === "problems" && l.data?.name === "Bracelets");
  expect(line).not.toBeNull();
  const token = first.lines.at(-1).token as string;
  first.close();
  expect((await t.api.delete(`${path}/${spare}`, { token: cast.admin.token })).body.errorCode).toBe("Success");
  expect(await newestAnnouncement()).toBe(setChange(contest, spare));
  const resumed = await openFeed(`?stream=false&since_token=${encodeURIComponent(token)}`);
  expect(await resumed.until((l) => l.type === "problems" && l.id === line.id && l.data === null)).not.toBeNull();
  resumed.close();
});
