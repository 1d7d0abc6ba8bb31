import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { authorizationMatrix, type Caller, type Operation } from "../helpers/authorization-matrix";
import { randomUUID } from "node:crypto";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser } from "../helpers/factories";
import { addMembership, makeCast, type Cast } from "../helpers/domain-factories";
import { DomainRole } from "../../src/modules/domains/domain-role.entity";
import { DomainInvitation } from "../../src/modules/domains/domain-invitation.entity";
import { uniformPermissions } from "../../src/modules/identity/permissions";

/** Who gets what, for every domain operation, on a hidden domain (the strictest case). */
const CALLERS: Caller[] = ["anonymous", "outsider", "guest", "member", "admin", "owner", "siteRoot"];

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
  if (kind === "role")
    em.create(DomainRole, { domain: c.domain.id, role: name, permission: uniformPermissions(false) });
  else em.create(DomainInvitation, { domain: c.domain.id, url: name, code: name, role: "user" });
  await em.flush();
  return name;
}

const OPERATIONS: Operation[] = [
  {
    name: "GET domain",
    method: "GET",
    path: d,
    expect: [401, "CARD", "CARD", "OK", "OK", "OK", "OK"],
    // The public card of a hidden domain is id, url and name; members who may view get everything.
    check: (response, expected) => {
      const keys = Object.keys(response.body.data).sort();
      if (expected === "CARD") expect(keys).toEqual(["id", "name", "url"]);
      else expect(keys).toContain("ownerId");
    },
  },
  {
    name: "PATCH domain",
    method: "PATCH",
    path: d,
    body: () => ({ bulletin: `b-${randomUUID()}` }),
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  {
    name: "GET members",
    method: "GET",
    path: (c) => `${d(c)}/users`,
    expect: [401, "NF", 403, "OK", "OK", "OK", "OK"],
  },
  {
    name: "POST member",
    method: "POST",
    path: (c) => `${d(c)}/users`,
    body: async () => ({ user: await freshUserId() }),
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  {
    name: "GET member",
    method: "GET",
    path: (c) => `${d(c)}/users/${c.member.user.id}`,
    expect: [401, "NF", 403, "OK", "OK", "OK", "OK"],
  },
  {
    name: "GET own permission",
    method: "GET",
    path: (c) => `${d(c)}/users/me/permission`,
    expect: [401, "OK", "OK", "OK", "OK", "OK", "OK"],
  },
  {
    name: "GET another's permission",
    method: "GET",
    path: (c) => `${d(c)}/users/${c.member.user.id}/permission`,
    expect: [401, "NF", 403, "OK", "OK", "OK", "OK"],
  },
  {
    name: "GET candidates",
    method: "GET",
    path: (c) => `${d(c)}/candidates?query=user`,
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  { name: "GET roles", method: "GET", path: (c) => `${d(c)}/roles`, expect: [401, "NF", 403, "OK", "OK", "OK", "OK"] },
  {
    name: "GET role",
    method: "GET",
    path: (c) => `${d(c)}/roles/user`,
    expect: [401, "NF", 403, "OK", "OK", "OK", "OK"],
  },
  {
    name: "POST role",
    method: "POST",
    path: (c) => `${d(c)}/roles`,
    body: () => ({ role: `r-${randomUUID()}`, permission: {} }),
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  {
    name: "GET invitations",
    method: "GET",
    path: (c) => `${d(c)}/invitations`,
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  {
    name: "POST invitation",
    method: "POST",
    path: (c) => `${d(c)}/invitations`,
    body: () => ({ code: randomUUID() }),
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  {
    name: "PATCH member",
    method: "PATCH",
    path: async (c) => `${d(c)}/users/${await freshMember(c)}`,
    body: () => ({ role: "guest" }),
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  {
    name: "DELETE member",
    method: "DELETE",
    path: async (c) => `${d(c)}/users/${await freshMember(c)}`,
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  {
    name: "PATCH role",
    method: "PATCH",
    path: async (c) => `${d(c)}/roles/${await freshRow(c, "role")}`,
    body: () => ({ permission: { general: { view: true } } }),
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  {
    name: "DELETE role",
    method: "DELETE",
    path: async (c) => `${d(c)}/roles/${await freshRow(c, "role")}`,
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  {
    name: "GET invitation",
    method: "GET",
    path: async (c) => `${d(c)}/invitations/${await freshRow(c, "invitation")}`,
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  {
    name: "PATCH invitation",
    method: "PATCH",
    path: async (c) => `${d(c)}/invitations/${await freshRow(c, "invitation")}`,
    body: () => ({ code: randomUUID() }),
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  {
    name: "DELETE invitation",
    method: "DELETE",
    path: async (c) => `${d(c)}/invitations/${await freshRow(c, "invitation")}`,
    expect: [401, "NF", 403, 403, "OK", "OK", "OK"],
  },
  {
    name: "POST join",
    method: "POST",
    path: async (c) => `${d(c)}/join?invitationCode=${await freshRow(c, "invitation")}`,
    freshOutsider: true,
    // The code is the proof, hidden domain or not; members are members already.
    expect: [
      401,
      "OK",
      "UserAlreadyInDomainBadRequestError",
      "UserAlreadyInDomainBadRequestError",
      "UserAlreadyInDomainBadRequestError",
      "UserAlreadyInDomainBadRequestError",
      "OK",
    ],
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

authorizationMatrix(
  () => t,
  () => cast,
  CALLERS,
  OPERATIONS,
);

describe("the 403 names Horse's scope and permission", () => {
  test("a guest member editing the domain", async () => {
    const response = await t.api.patch(d(cast), { bulletin: "x" }, { token: cast.guest.token });
    expect(response.body).toEqual({ detail: "general edit Permission Denied." });
  });
});
