import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { judgeableProblem, submission } from "../helpers/records";

// A user's limits on runs (docs/running-a-course.md "Runs"), under concurrent requests: RUNS_WAITING runs
// queued or being judged at once, RUNS_PER_MINUTE runs accepted in any 60 s. No judge runs here, so a run
// stays queued until a test marks it done in its row; "a minute ago" is a row's created_at moved back.
interface Limited {
  t: TestApp;
  cast: Cast;
  problem: string;
}

async function limitedApp(env: Record<string, string>): Promise<Limited> {
  const t = await spawnApp(env);
  const cast = await makeCast(t);
  return { t, cast, problem: await judgeableProblem(t, cast) };
}

function run({ t, cast, problem }: Limited, token: string) {
  const form = submission("c", { "main.c": "int main(){return 0;}" });
  form.set("input", "1 2");
  return t.api.post(`/domains/${cast.domain.id}/problems/${problem}/runs`, undefined, { token, multipart: form });
}

const runsAtOnce = (app: Limited, token: string, n: number) =>
  Promise.all(Array.from({ length: n }, () => run(app, token)));

const accepted = (answers: { body: { errorCode: string } }[]) =>
  answers.filter((a) => a.body.errorCode === "Success").length;

const refusalText = (answer: { body: { detail?: string; errorMsg?: string } }) =>
  answer.body.detail ?? answer.body.errorMsg ?? "";

const sql = (app: Limited, statement: string, values: unknown[] = []) => app.t.orm.em.fork().execute(statement, values);

describe("RUNS_PER_MINUTE", () => {
  let app: Limited;
  beforeAll(async () => {
    app = await limitedApp({ RUNS_PER_MINUTE: "10", RUNS_WAITING: "1000" });
  });
  afterAll(() => app.t.close());

  test("of 30 at once, exactly 10 are accepted and 20 answer 429 with Retry-After", async () => {
    const answers = await runsAtOnce(app, app.cast.member.token, 30);

    expect(accepted(answers)).toBe(10);
    for (const refused of answers.filter((a) => a.body.errorCode !== "Success")) {
      expect(refused.status).toBe(429);
      expect(refusalText(refused)).toContain("too many runs");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    const owned = await sql(app, "select count(*)::int as n from runs where owner_id = ?", [app.cast.member.user.id]);
    expect(owned).toEqual([{ n: 10 }]);
  });

  test("a run counts for the whole minute after it was accepted, not a share of it", async () => {
    // 50 s ago: the budget has not come back, not even in part (a bucket refilling would allow 8 more).
    await sql(app, "update runs set created_at = now() - interval '50 seconds' where owner_id = ?", [
      app.cast.member.user.id,
    ]);
    const early = await run(app, app.cast.member.token);
    expect(early.status).toBe(429);
    expect(Number(early.headers.get("retry-after"))).toBeWithin(1, 11);

    await sql(app, "update runs set created_at = now() - interval '61 seconds' where owner_id = ?", [
      app.cast.member.user.id,
    ]);
    expect(accepted(await runsAtOnce(app, app.cast.member.token, 30))).toBe(10);
  });

  test("another user's minute is their own", async () => {
    expect(accepted(await runsAtOnce(app, app.cast.admin.token, 12))).toBe(10);
  });
});

describe("RUNS_WAITING beside RUNS_PER_MINUTE", () => {
  let app: Limited;
  beforeAll(async () => {
    app = await limitedApp({ RUNS_PER_MINUTE: "4", RUNS_WAITING: "2" });
  });
  afterAll(() => app.t.close());

  test("of 40 at once, 2 are queued and 38 answer 429 with Retry-After; another user is not held up", async () => {
    const answers = await runsAtOnce(app, app.cast.member.token, 40);

    expect(accepted(answers)).toBe(2);
    for (const refused of answers.filter((a) => a.body.errorCode !== "Success")) {
      expect(refused.status).toBe(429);
      expect(refusalText(refused)).toContain("still waiting");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect((await run(app, app.cast.admin.token)).body.errorCode).toBe("Success");
    expect(await sql(app, "select count(*)::int as n from runs")).toEqual([{ n: 3 }]);
  });

  test("refusals for RUNS_WAITING spend none of the minute; runs that ended still count in it", async () => {
    const owner = app.cast.owner.token;
    expect(accepted(await runsAtOnce(app, owner, 12))).toBe(2);
    await sql(app, "update runs set state = 'done'");

    // Ten refusals for waiting spent nothing: two more of the four fit, then the minute is full.
    expect(accepted(await runsAtOnce(app, owner, 2))).toBe(2);
    await sql(app, "update runs set state = 'done'");
    const over = await run(app, owner);
    expect(over.status).toBe(429);
    expect(refusalText(over)).toContain("too many runs");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
