import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { addMembership, makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, submit } from "../helpers/records";
import type { AuditEventView } from "../../src/modules/audit/audit.schemas";

// Extensions: a student's own due and lock times on a set, granted by staff, used by every window check.
let t: TestApp;
let cast: Cast;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  const tag = randomUUID().slice(0, 6);
  // Named so that their order by username is known: alice before bob.
  alice = await createUser(t, { username: `ext-alice-${tag}` });
  bob = await createUser(t, { username: `ext-bob-${tag}` });
  await addMembership(t, cast.domain, alice, "user");
  await addMembership(t, cast.domain, bob, "user");
});
afterAll(() => t.close());

const hour = 3_600_000;
const sets = () => `/domains/${cast.domain.id}/problem_sets`;
const extensions = (setId: string) => `${sets()}/${setId}/extensions`;
const extensionOf = (setId: string, user: string) => `${extensions(setId)}/${encodeURIComponent(user)}`;
const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00");

async function makeSet(body: Record<string, unknown> = {}, problemId?: string): Promise<string> {
  const created = await t.api.post(sets(), { title: "Homework", ...body }, { token: cast.admin.token });
  expect(created.body.errorCode).toBe("Success");
  const id = created.body.data.id as string;
  if (problemId) await t.api.post(`${sets()}/${id}/problems`, { problem: problemId }, { token: cast.admin.token });
  return id;
}

async function grant(setId: string, user: string, body: Record<string, unknown>) {
  const response = await t.api.put(extensionOf(setId, user), body, { token: cast.admin.token });
  expect(response.body.errorCode).toBe("Success");
  return response.body.data;
}

/** The events of an action on a set, oldest first. */
async function eventsOn(setId: string, action: string): Promise<AuditEventView[]> {
  const query = `action=${action}&limit=500&ordering=created_at`;
  const response = await t.api.get(`/domains/${cast.domain.id}/audit?${query}`, { token: cast.owner.token });
  expect(response.body.errorCode).toBe("Success");
  return (response.body.data.results as AuditEventView[]).filter((e) => e.targetId === setId);
}

describe("who may manage extensions", () => {
  test("no token is 401; a student and a guest are 403; to a non-member the domain does not exist", async () => {
    const set = await makeSet();
    const calls = [
      (token?: string) => t.api.get(extensions(set), { token }),
      (token?: string) => t.api.put(extensionOf(set, alice.user.id), { dueAt: Date.now() }, { token }),
      (token?: string) => t.api.delete(extensionOf(set, alice.user.id), { token }),
    ];
    for (const call of calls) {
      expect((await call()).status).toBe(401);
      for (const caller of [alice, cast.guest]) {
        const refused = await call(caller.token);
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual({ detail: "problem_set edit Permission Denied." });
      }
      expect((await call(cast.outsider.token)).body.errorCode).toBe("DomainNotFoundError");
    }
    expect((await t.api.get(extensions(set), { token: cast.admin.token })).body.data).toEqual({
      count: 0,
      results: [],
    });
  });
});

describe("granting, replacing, listing and revoking", () => {
  test("each change is one audit event that names the student; the list is ordered by username", async () => {
    const dueAt = Date.UTC(2031, 0, 10);
    const lockAt = Date.UTC(2031, 0, 12);
    const set = await makeSet({ dueAt, lockAt });

    const granted = await grant(set, alice.user.username, { dueAt: dueAt + 24 * hour });
    expect(granted).toMatchObject({
      userId: alice.user.id,
      username: alice.user.username,
      dueAt: iso(dueAt + 24 * hour),
      lockAt: null,
      grantedById: cast.admin.user.id,
    });
    const replaced = await grant(set, alice.user.id, { dueAt: dueAt + 48 * hour, lockAt: lockAt + 48 * hour });
    expect(replaced).toMatchObject({ dueAt: iso(dueAt + 48 * hour), lockAt: iso(lockAt + 48 * hour) });
    expect(replaced.createdAt).toBe(granted.createdAt);
    await grant(set, alice.user.id, { dueAt: dueAt + 48 * hour, lockAt: lockAt + 48 * hour });
    await grant(set, bob.user.username, { lockAt: "2031-01-13T08:00:00+08:00" });

    const list = (await t.api.get(extensions(set), { token: cast.admin.token })).body.data;
    expect(list.count).toBe(2);
    expect(list.results.map((e: { username: string }) => e.username)).toEqual([alice.user.username, bob.user.username]);
    expect(list.results[0]).toEqual(replaced);
    expect(list.results[1]).toMatchObject({ dueAt: null, lockAt: iso(Date.UTC(2031, 0, 13)) });

    const grants = await eventsOn(set, "problem_set.extension_grant");
    const aliceGrants = grants.filter((e) => e.changes.userId.after === alice.user.id);
    // The third PUT changed nothing, so it is no event.
    expect(aliceGrants.map((e) => e.changes)).toEqual([
      {
        userId: { before: null, after: alice.user.id },
        username: { before: null, after: alice.user.username },
        dueAt: { before: null, after: iso(dueAt + 24 * hour) },
      },
      {
        userId: { before: alice.user.id, after: alice.user.id },
        username: { before: alice.user.username, after: alice.user.username },
        dueAt: { before: iso(dueAt + 24 * hour), after: iso(dueAt + 48 * hour) },
        lockAt: { before: null, after: iso(lockAt + 48 * hour) },
      },
    ]);
    expect(aliceGrants[0].actorId).toBe(cast.admin.user.id);

    expect((await t.api.delete(extensionOf(set, alice.user.username), { token: cast.admin.token })).body).toEqual({
      errorCode: "Success",
      errorMsg: null,
      data: {},
    });
    const [revoked] = await eventsOn(set, "problem_set.extension_revoke");
    expect(revoked.changes).toEqual({
      userId: { before: alice.user.id, after: null },
      username: { before: alice.user.username, after: null },
      dueAt: { before: iso(dueAt + 48 * hour), after: null },
      lockAt: { before: iso(lockAt + 48 * hour), after: null },
    });
    const after = (await t.api.get(extensions(set), { token: cast.admin.token })).body.data;
    expect(after.results.map((e: { userId: string }) => e.userId)).toEqual([bob.user.id]);
  });

  test("ten concurrent PUTs for one student end with one row; exactly one of their events is the grant", async () => {
    const set = await makeSet({ dueAt: Date.UTC(2031, 1, 1) });
    const dues = Array.from({ length: 10 }, (_, i) => Date.UTC(2031, 1, 2 + i));
    const answers = await Promise.all(
      dues.map((dueAt) => t.api.put(extensionOf(set, bob.user.id), { dueAt }, { token: cast.admin.token })),
    );
    expect(answers.map((a) => a.body.errorCode)).toEqual(Array(10).fill("Success"));
    const rows = await t.orm.em
      .fork()
      .getConnection()
      .execute<{ due_at: Date }[]>("select due_at from problem_set_extensions where problem_set_id = ?", [set]);
    expect(rows).toHaveLength(1);
    expect(dues).toContain(new Date(rows[0].due_at).getTime());
    const events = await eventsOn(set, "problem_set.extension_grant");
    expect(events).toHaveLength(10);
    expect(events.filter((e) => e.changes.dueAt.before === null)).toHaveLength(1);
  });

  test("PUTs racing DELETEs all get a business answer, never an internal error; at most one row is left", async () => {
    const set = await makeSet();
    const calls = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0
        ? t.api.put(extensionOf(set, bob.user.id), { dueAt: Date.UTC(2031, 3, 1 + i) }, { token: cast.admin.token })
        : t.api.delete(extensionOf(set, bob.user.id), { token: cast.admin.token }),
    );
    const codes = (await Promise.all(calls)).map((response) => response.body.errorCode);
    expect(codes.filter((code) => code !== "Success" && code !== "IntegrityError")).toEqual([]);
    const [{ n }] = await t.orm.em
      .fork()
      .getConnection()
      .execute<{ n: number }[]>("select count(*)::int as n from problem_set_extensions where problem_set_id = ?", [
        set,
      ]);
    expect(n).toBeLessThanOrEqual(1);
  });
});

describe("submitting by one's own window", () => {
  test("past the set's lock, an extended student is accepted (late by their own due); others are refused", async () => {
    const problem = await judgeableProblem(t, cast);
    const lockAt = Date.now() - hour;
    const set = await makeSet({ dueAt: Date.now() - 2 * hour, lockAt }, problem);
    await grant(set, alice.user.id, { dueAt: Date.now() + hour, lockAt: Date.now() + 2 * hour });
    await grant(set, bob.user.id, { dueAt: Date.now() - hour / 2, lockAt: Date.now() + hour });
    const path = `${sets()}/${set}/problems/${problem}/submit`;

    const onTime = await submit(t, alice.token, path);
    expect(onTime.body.errorCode).toBe("Success");
    expect(onTime.body.data.late).toBe(false);
    const late = await submit(t, bob.token, path);
    expect(late.body.errorCode).toBe("Success");
    expect(late.body.data.late).toBe(true);
    const refused = await submit(t, cast.member.token, path);
    expect(refused.body).toMatchObject({
      errorCode: "Error",
      errorMsg: `the problem set is locked since ${iso(lockAt)}: no more submissions`,
    });
  });

  test("an extension that only moves the due time keeps the set's lock", async () => {
    const problem = await judgeableProblem(t, cast);
    const set = await makeSet({ dueAt: Date.now() - 2 * hour, lockAt: Date.now() - hour }, problem);
    await grant(set, alice.user.id, { dueAt: Date.now() - 90 * 60_000 });
    const refused = await submit(t, alice.token, `${sets()}/${set}/problems/${problem}/submit`);
    expect(refused.body.errorMsg).toContain("locked");
  });
});

describe("what each caller sees of a set", () => {
  test("the student sees their own dates and extended: true; a classmate and staff see the set's", async () => {
    const dueAt = Date.UTC(2031, 2, 1);
    const lockAt = Date.UTC(2031, 2, 2);
    const set = await makeSet({ dueAt, lockAt });
    await grant(set, alice.user.id, { lockAt: lockAt + 72 * hour });
    await grant(set, cast.admin.user.id, { dueAt: dueAt + hour });
    const seen = async (token: string) => {
      const one = (await t.api.get(`${sets()}/${set}`, { token })).body.data;
      const listed = (await t.api.get(`${sets()}?limit=100`, { token })).body.data.results.find(
        (s: { id: string }) => s.id === set,
      );
      expect(listed).toEqual({ ...listed, dueAt: one.dueAt, lockAt: one.lockAt, extended: one.extended });
      return { dueAt: one.dueAt, lockAt: one.lockAt, extended: one.extended };
    };

    expect(await seen(alice.token)).toEqual({ dueAt: iso(dueAt), lockAt: iso(lockAt + 72 * hour), extended: true });
    expect(await seen(bob.token)).toEqual({ dueAt: iso(dueAt), lockAt: iso(lockAt), extended: false });
    expect(await seen(cast.owner.token)).toEqual({ dueAt: iso(dueAt), lockAt: iso(lockAt), extended: false });
    // Staff see the set's own dates unless they themselves have an extension.
    expect(await seen(cast.admin.token)).toEqual({ dueAt: iso(dueAt + hour), lockAt: iso(lockAt), extended: true });
  });
});

describe("refusals", () => {
  test("only a member of the domain: an unknown user and a non-member are refused with Horse's codes", async () => {
    const set = await makeSet();
    const body = { dueAt: Date.UTC(2031, 0, 1) };
    const unknown = await t.api.put(extensionOf(set, `nobody-${randomUUID()}`), body, { token: cast.admin.token });
    expect(unknown.body.errorCode).toBe("UserNotFoundError");
    const outsider = await t.api.put(extensionOf(set, cast.outsider.user.id), body, { token: cast.admin.token });
    expect(outsider.body).toMatchObject({
      errorCode: "DomainUserNotFoundError",
      errorMsg: "the user is not a member of this domain",
    });
  });

  test("the student's window must stay in order with the set's unlockAt: a 422 at the field to change", async () => {
    const day = 24 * hour;
    const base = Date.UTC(2031, 5, 1);
    const set = await makeSet({ unlockAt: base, dueAt: base + 2 * day, lockAt: base + 3 * day });
    const cases: [Record<string, unknown>, string[]][] = [
      [{ dueAt: base - day }, ["body", "dueAt"]], // before the set unlocks
      [{ lockAt: base + day }, ["body", "lockAt"]], // before the set's due time
      [{ dueAt: base + 5 * day }, ["body", "dueAt"]], // after the set's lock time
      [{ dueAt: base + 5 * day, lockAt: base + 4 * day }, ["body", "lockAt"]],
      [{ dueAt: "2031-02-30" }, ["body", "dueAt"]],
      [{}, ["body"]],
      [{ dueAt: null, lockAt: null }, ["body"]],
    ];
    for (const [body, loc] of cases) {
      const response = await t.api.put(extensionOf(set, alice.user.id), body, { token: cast.admin.token });
      expect({ body, status: response.status, loc: response.body.detail?.[0]?.loc }).toEqual({
        body,
        status: 422,
        loc,
      });
    }
    expect((await t.api.get(extensions(set), { token: cast.admin.token })).body.data.count).toBe(0);
    expect(await grant(set, alice.user.id, { dueAt: base + 5 * day, lockAt: base + 5 * day })).toMatchObject({
      dueAt: iso(base + 5 * day),
    });
  });

  test("deleting an extension the student does not have is refused", async () => {
    const set = await makeSet();
    const response = await t.api.delete(extensionOf(set, bob.user.id), { token: cast.admin.token });
    expect(response.body).toMatchObject({
      errorCode: "IntegrityError",
      errorMsg: "the user has no extension on this problem set",
    });
    expect(await eventsOn(set, "problem_set.extension_revoke")).toEqual([]);
  });
});
