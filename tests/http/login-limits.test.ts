import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser } from "../helpers/factories";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { judgeableProblem, submission, submit } from "../helpers/records";

// Every limit under requests sent at the same moment: N concurrent attempts meet exactly the limit N
// sequential ones meet (each attempt reserves its place before any work), and a refused one costs no hash.
let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  t = await spawnApp({
    TRUSTED_PROXIES: "127.0.0.1/32",
    PASSWORD_HASH_CONCURRENCY: "1",
    RATE_LOGIN_FAILURES_PER_IP: "1,12",
    RATE_LOGIN_FAILURES_PER_ACCOUNT_IP: "1,5",
    RATE_LOGIN_FAILURES_PER_ACCOUNT: "0.5,6",
    RATE_LOGINS_PER_ACCOUNT: "1,20",
    RATE_REGISTRATIONS_PER_IP: "1,5",
    RATE_SUBMISSIONS_PER_USER: "1,3",
  });
  cast = await makeCast(t);
});
afterAll(() => t.close());

const login = (username: string, password: string, from: string) =>
  t.api.post(
    "/auth/login?responseType=json&cookie=false",
    { username, password },
    { form: true, headers: { "x-forwarded-for": from } },
  );
/** Checked means the password was hashed: answered with its verdict, not refused with a 429. */
const checked = (answers: { status: number }[]) => answers.filter((a) => a.status !== 429).length;
const at = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("wrong passwords at the same moment", () => {
  test("40 at once against one account from one address: exactly 5 are checked, the rest 429 with Retry-After", async () => {
    const { user } = await createUser(t);
    const answers = await Promise.all(at(40).map(() => login(user.username, "guess", "203.0.113.10")));
    expect(checked(answers)).toBe(5);
    const refused = answers.find((a) => a.status === 429)!;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.body).toMatchObject({ errorCode: "Error", data: null });
  });

  test("30 at once from one address against 30 accounts: exactly the address's 12 are checked", async () => {
    const answers = await Promise.all(at(30).map((i) => login(`sprayed-${i}`, "Summer2026!", "203.0.113.11")));
    expect(checked(answers)).toBe(12);
  });
});

describe("lockout that protects the owner", () => {
  test("failures from many addresses lock the account for them, never for an address with no failure", async () => {
    const { user, password } = await createUser(t);
    // Six addresses fail once each: the account's own bucket (6) is spent.
    const first = await Promise.all(at(6).map((i) => login(user.username, "guess", `198.51.100.${i + 1}`)));
    expect(checked(first)).toBe(6);
    // An address that failed is refused now, even with the right password.
    expect((await login(user.username, password, "198.51.100.1")).status).toBe(429);
    expect((await login(user.username, "again", "198.51.100.2")).status).toBe(429);
    // The owner, from an address with no failure, logs in.
    expect((await login(user.username, password, "192.0.2.200")).body.errorCode).toBe("Success");
    // Guessing on from 20 fresh addresses: one try each, then nothing for a day.
    const fresh = await Promise.all(at(20).map((i) => login(user.username, "guess", `100.64.1.${i + 1}`)));
    expect(checked(fresh)).toBe(20);
    const again = await Promise.all(at(20).map((i) => login(user.username, "guess-2", `100.64.1.${i + 1}`)));
    expect(checked(again)).toBe(0);
  });

  test("a class behind one address: other students log in while one mistypes", async () => {
    const [clumsy, careful] = [await createUser(t), await createUser(t)];
    for (let i = 0; i < 5; i++) await login(clumsy.user.username, "mistyped", "203.0.113.50");
    expect((await login(clumsy.user.username, clumsy.password, "203.0.113.50")).status).toBe(429);
    expect((await login(careful.user.username, careful.password, "203.0.113.50")).body.errorCode).toBe("Success");
  });
});

describe("a flood of correct logins", () => {
  test("30 at once by one user: 5 in flight (the rest 429 at once), and another user's login is served next", async () => {
    const [flooder, other] = [await createUser(t), await createUser(t)];
    const finished: string[] = [];
    const flood = at(30).map(() =>
      login(flooder.user.username, flooder.password, "203.0.113.60").then((a) => {
        if (a.status !== 429) finished.push("flood");
        return a;
      }),
    );
    await Bun.sleep(5);
    const mine = login(other.user.username, other.password, "203.0.113.61").then((a) => {
      finished.push("other");
      return a;
    });
    const answers = await Promise.all(flood);
    expect(answers.filter((a) => a.body.errorCode === "Success")).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(25);
    expect((await mine).body.errorCode).toBe("Success");
    // One hash at a time, each client in its own line, served in turn: only the hash already under way
    // and at most one more of the flood's come before it.
    expect(finished.indexOf("other")).toBeLessThanOrEqual(2);
  });

  test("successful logins from one address are limited too, generously: the 21st in a row waits", async () => {
    const { user, password } = await createUser(t);
    const answers = [];
    for (let i = 0; i < 21; i++) answers.push(await login(user.username, password, "203.0.113.62"));
    expect(answers.slice(0, 20).every((a) => a.body.errorCode === "Success")).toBe(true);
    expect(answers[20].status).toBe(429);
    expect((await login(user.username, password, "203.0.113.63")).body.errorCode).toBe("Success");
  });
});

describe("the other limits under concurrency", () => {
  test("20 registrations at once from one address: exactly 5 accounts are made", async () => {
    const answers = await Promise.all(
      at(20).map((i) =>
        t.api.post(
          "/auth/register?responseType=json&cookie=false",
          { username: `burst-${i}`, email: `burst-${i}@sjtu.edu.cn`, password: "a long enough password" },
          { headers: { "x-forwarded-for": "203.0.113.70" } },
        ),
      ),
    );
    expect(answers.filter((a) => a.body.errorCode === "Success")).toHaveLength(5);
    const [{ n }] = await t.orm.em
      .fork()
      .execute<{ n: string }[]>("select count(*) as n from users where username like 'burst-%'");
    expect(Number(n)).toBe(5);
  });

  test("10 submissions at once by one user: exactly 3 are recorded", async () => {
    const problem = await judgeableProblem(t, cast);
    const answers = await Promise.all(
      at(10).map(() => submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${problem}`, submission("c"))),
    );
    expect(answers.filter((a) => a.body.errorCode === "Success")).toHaveLength(3);
    const [{ n }] = await t.orm.em
      .fork()
      .execute<{ n: string }[]>("select count(*) as n from records where problem_id = ?", [problem]);
    expect(Number(n)).toBe(3);
  });

  test("15 wrong invitation codes at once: exactly 10 are looked up, then even the right code waits", async () => {
    await t.api.post(
      `/domains/${cast.domain.id}/invitations`,
      { code: "RIGHT-CODE", role: "user" },
      { token: cast.owner.token },
    );
    const answers = await Promise.all(
      at(15).map((i) =>
        t.api.post(`/domains/${cast.domain.id}/join?invitationCode=WRONG-${i}`, undefined, {
          token: cast.outsider.token,
        }),
      ),
    );
    expect(answers.filter((a) => a.body.errorCode === "DomainInvitationBadRequestError")).toHaveLength(10);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(5);
    expect(
      (
        await t.api.post(`/domains/${cast.domain.id}/join?invitationCode=RIGHT-CODE`, undefined, {
          token: cast.outsider.token,
        })
      ).status,
    ).toBe(429);
  });
});
