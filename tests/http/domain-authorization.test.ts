import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser } from "../helpers/factories";
import { addMembership, makeCast, type Cast } from "../helpers/domain-factories";
import type { ErrorCode } from "../../src/errors";
import { DomainRole } from "../../src/modules/domains/domain-role.entity";
import { DomainInvitation } from "../../src/modules/domains/domain-invitation.entity";
import { uniformPermissions } from "../../src/auth/permissions";

/**
 * Who gets what, for every domain operation: one row per operation, one column per kind of caller,
 * on a hidden domain (the strictest case). Each cell is its own test.
 *   401: no token · 403: Horse's permission refusal · NF: DomainNotFoundError (a hidden domain does
 *   not exist for outsiders) · OK: Success · CARD: Success with the public card only.
 */
type Outcome = 401 | 403 | "NF" | "OK" | "CARD" | ErrorCode;
type Caller = "anonymous" | "outsider" | "guest" | "member" | "admin" | "owner" | "siteRoot";
const CALLERS: Caller[] = ["anonymous", "outsider", "guest", "member", "admin", "owner", "siteRoot"];

interface Operation {
  name: string;
  method: string;
  /** May create what the call acts on (a fresh member, role or invitation), so each cell stands alone. */
  path: (c: Cast) => string | Promise<string>;
  body?: () => Promise<unknown> | unknown;
  expect: Outcome[]; // in CALLERS order
  /** The operation makes the outsider a member: use a fresh outsider so other rows are unaffected. */
  freshOutsider?: boolean;
}

let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t, { hidden: true, url: "secret-course" });
});
afterAll(() => t.close());

const d = (c: Cast) => `/domains/${c.domain.url}`;
const freshUserId = async () => (await createUser(t)).user.id;
const freshMember = async (c: Cast) => {
  const user = await createUser(t);
  await addMembership(t, c.domain, user, "user");
  return user.user.id;
};
async function freshRow<T extends "role" | "invitation">(c: Cast, kind: T): Promise<string> {
  const em = t.orm.em.fork();
  const name = `x-${randomUUID()}`;
  if (kind === "role") em.create(DomainRole, { domain: c.domain.id, role: name, permission: uniformPermissions(false) });
  else em.create(DomainInvitation, { domain: c.domain.id, url: name, code: name, role: "user" });
  await em.flush();
  return name;
}

const OPERATIONS: Operation[] = [
  { name: "GET domain", method: "GET", path: d, expect: [401, "CARD", "CARD", "OK", "OK", "OK", "OK"] },
  { name: "PATCH domain", method: "PATCH", path: d, body: () => ({ bulletin: `b-${randomUUID()}` }), expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  { name: "GET members", method: "GET", path: (c) => `${d(c)}/users`, expect: [401, "NF", 403, "OK", "OK", "OK", "OK"] },
  { name: "POST member", method: "POST", path: (c) => `${d(c)}/users`, body: async () => ({ user: await freshUserId() }), expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  { name: "GET member", method: "GET", path: (c) => `${d(c)}/users/${c.member.user.id}`, expect: [401, "NF", 403, "OK", "OK", "OK", "OK"] },
  { name: "GET own permission", method: "GET", path: (c) => `${d(c)}/users/me/permission`, expect: [401, "OK", "OK", "OK", "OK", "OK", "OK"] },
  { name: "GET another's permission", method: "GET", path: (c) => `${d(c)}/users/${c.member.user.id}/permission`, expect: [401, "NF", 403, "OK", "OK", "OK", "OK"] },
  { name: "GET candidates", method: "GET", path: (c) => `${d(c)}/candidates?query=user`, expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  { name: "GET roles", method: "GET", path: (c) => `${d(c)}/roles`, expect: [401, "NF", 403, "OK", "OK", "OK", "OK"] },
  { name: "GET role", method: "GET", path: (c) => `${d(c)}/roles/user`, expect: [401, "NF", 403, "OK", "OK", "OK", "OK"] },
  { name: "POST role", method: "POST", path: (c) => `${d(c)}/roles`, body: () => ({ role: `r-${randomUUID()}`, permission: {} }), expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  { name: "GET invitations", method: "GET", path: (c) => `${d(c)}/invitations`, expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  { name: "POST invitation", method: "POST", path: (c) => `${d(c)}/invitations`, body: () => ({ code: randomUUID() }), expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  { name: "PATCH member", method: "PATCH", path: async (c) => `${d(c)}/users/${await freshMember(c)}`, body: () => ({ role: "guest" }), expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  { name: "DELETE member", method: "DELETE", path: async (c) => `${d(c)}/users/${await freshMember(c)}`, expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  { name: "PATCH role", method: "PATCH", path: async (c) => `${d(c)}/roles/${await freshRow(c, "role")}`, body: () => ({ permission: { general: { view: true } } }), expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  { name: "DELETE role", method: "DELETE", path: async (c) => `${d(c)}/roles/${await freshRow(c, "role")}`, expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  { name: "GET invitation", method: "GET", path: async (c) => `${d(c)}/invitations/${await freshRow(c, "invitation")}`, expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  { name: "PATCH invitation", method: "PATCH", path: async (c) => `${d(c)}/invitations/${await freshRow(c, "invitation")}`, body: () => ({ code: randomUUID() }), expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  { name: "DELETE invitation", method: "DELETE", path: async (c) => `${d(c)}/invitations/${await freshRow(c, "invitation")}`, expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
  {
    name: "POST join",
    method: "POST",
    path: async (c) => `${d(c)}/join?invitationCode=${await freshRow(c, "invitation")}`,
    freshOutsider: true,
    // The code is the proof, hidden domain or not; members are members already.
    expect: [401, "OK", "UserAlreadyInDomainBadRequestError", "UserAlreadyInDomainBadRequestError", "UserAlreadyInDomainBadRequestError", "UserAlreadyInDomainBadRequestError", "OK"],
  },
  {
    name: "POST transfer (to a non-root member)",
    method: "POST",
    path: (c) => `${d(c)}/transfer`,
    body: () => ({ targetUser: cast.admin.user.id }),
    // Only the owner and a site root get past the ownership check, to the root-member rule.
    expect: [401, "NF", 403, "DomainNotOwnerError", "DomainNotOwnerError", "DomainNotRootError", "DomainNotRootError"],
  },
];

function callerToken(caller: Caller): string | undefined {
  return caller === "anonymous" ? undefined : cast[caller].token;
}

describe.each(OPERATIONS.map((op) => [op.name, op] as const))("%s", (_, op) => {
  test.each(CALLERS.map((caller, i) => [caller, op.expect[i]] as const))("%s → %p", async (caller, expected) => {
    const body = op.body ? await op.body() : undefined;
    const token = caller === "outsider" && op.freshOutsider ? (await createUser(t)).token : callerToken(caller);
    const response = await t.api.call(op.method, await op.path(cast), body, { token });
    if (expected === 401 || expected === 403) {
      expect(response.status).toBe(expected);
      expect(typeof response.body.detail).toBe("string");
      return;
    }
    expect(response.status).toBe(200);
    if (expected === "NF") {
      expect(response.body).toEqual({ errorCode: "DomainNotFoundError", errorMsg: "domain not found", data: null });
      return;
    }
    if (expected !== "OK" && expected !== "CARD") {
      expect(response.body.errorCode).toBe(expected);
      return;
    }
    expect(response.body.errorCode).toBe("Success");
    if (op.name === "GET domain") {
      // The public card of a hidden domain is id, url and name; members who may view get everything.
      const keys = Object.keys(response.body.data).sort();
      if (expected === "CARD") expect(keys).toEqual(["id", "name", "url"]);
      else expect(keys).toContain("ownerId");
    }
  });
});

describe("the 403 names Horse's scope and permission", () => {
  test("a guest member editing the domain", async () => {
    const response = await t.api.patch(d(cast), { bulletin: "x" }, { token: cast.guest.token });
    expect(response.body).toEqual({ detail: "general edit Permission Denied." });
  });
});
