import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser } from "../helpers/factories";
import { addMembership, makeCast, membershipOf, type Cast } from "../helpers/domain-factories";
import { DomainRole } from "../../src/modules/domains/domain-role.entity";

let t: TestApp;
beforeAll(async () => {
  t = await spawnApp();
});
afterAll(() => t.close());

const users = (c: Cast) => `/domains/${c.domain.id}/users`;

describe("adding members", () => {
  test("a domain admin adds a user with the default role, getting the full detail back", async () => {
    const cast = await makeCast(t);
    const response = await t.api.post(users(cast), { user: cast.outsider.user.id }, { token: cast.admin.token });
    expect(response.body.data).toMatchObject({
      id: cast.outsider.user.id,
      domainId: cast.domain.id,
      domainRole: "user",
      email: cast.outsider.user.email,
    });
    expect(await membershipOf(t, cast.domain.id, cast.outsider.user.id)).toBe("user");
  });

  test("Horse's refusals: already a member, unknown role, unknown user, root without domain root", async () => {
    const cast = await makeCast(t);
    expect(
      (await t.api.post(users(cast), { user: cast.member.user.id }, { token: cast.admin.token })).body.errorCode,
    ).toBe("UserAlreadyInDomainBadRequestError");
    expect(
      (await t.api.post(users(cast), { user: cast.outsider.user.id, role: "nope" }, { token: cast.admin.token })).body
        .errorCode,
    ).toBe("DomainRoleNotFoundError");
    expect(
      (await t.api.post(users(cast), { user: cast.outsider.user.id, role: "judger" }, { token: cast.admin.token })).body
        .errorCode,
    ).toBe("DomainRoleNotFoundError");
    expect((await t.api.post(users(cast), { user: "not-a-user" }, { token: cast.admin.token })).body.errorCode).toBe(
      "UserNotFoundError",
    );
    expect(
      (await t.api.post(users(cast), { user: cast.outsider.user.id, role: "root" }, { token: cast.admin.token })).body
        .errorCode,
    ).toBe("DomainNotRootError");
    expect(await membershipOf(t, cast.domain.id, cast.outsider.user.id)).toBeNull();
    const byOwner = await t.api.post(
      users(cast),
      { user: cast.outsider.user.id, role: "root" },
      { token: cast.owner.token },
    );
    expect(byOwner.body.data.domainRole).toBe("root");
  });
});

describe("listing and reading members", () => {
  test("the list pages with totals; one member by id or `me`; a non-member is DomainUserNotFoundError", async () => {
    const cast = await makeCast(t);
    const page = await t.api.get(`${users(cast)}?limit=2&ordering=created_at`, { token: cast.member.token });
    expect(page.body.data.count).toBe(4);
    expect(page.body.data.results[0]).toEqual({
      id: cast.owner.user.id,
      username: cast.owner.user.username,
      gravatar: "",
      domainId: cast.domain.id,
      domainRole: "root",
    });
    expect((await t.api.get(`${users(cast)}/me`, { token: cast.member.token })).body.data.domainRole).toBe("user");
    const missing = await t.api.get(`${users(cast)}/${cast.outsider.user.id}`, { token: cast.member.token });
    expect(missing.body.errorCode).toBe("DomainUserNotFoundError");
    expect((await t.api.get(`${users(cast)}/nope`, { token: cast.member.token })).status).toBe(422);
  });
});

describe("changing a member's role", () => {
  test("an empty body changes nothing (Horse demoted to user)", async () => {
    const cast = await makeCast(t);
    const response = await t.api.patch(`${users(cast)}/${cast.admin.user.id}`, {}, { token: cast.owner.token });
    expect(response.body.data.domainRole).toBe("admin");
    expect(await membershipOf(t, cast.domain.id, cast.admin.user.id)).toBe("admin");
  });

  test("PATCH of a non-member is DomainUserNotFoundError", async () => {
    const cast = await makeCast(t);
    const response = await t.api.patch(
      `${users(cast)}/${cast.outsider.user.id}`,
      { role: "user" },
      { token: cast.owner.token },
    );
    expect(response.body.errorCode).toBe("DomainUserNotFoundError");
  });

  test("the owner can set any role (Horse forbade the owner from assigning non-root roles)", async () => {
    const cast = await makeCast(t);
    const response = await t.api.patch(
      `${users(cast)}/${cast.member.user.id}`,
      { role: "admin" },
      { token: cast.owner.token },
    );
    expect(response.body.data.domainRole).toBe("admin");
  });

  test("nobody but the owner or a site root demotes or removes the owner", async () => {
    const cast = await makeCast(t);
    await addMembership(t, cast.domain, cast.outsider, "root");
    const owner = `${users(cast)}/${cast.owner.user.id}`;
    expect((await t.api.patch(owner, { role: "user" }, { token: cast.admin.token })).body.errorCode).toBe(
      "DomainNotOwnerError",
    );
    expect((await t.api.patch(owner, { role: "user" }, { token: cast.outsider.token })).body.errorCode).toBe(
      "DomainNotOwnerError",
    );
    expect((await t.api.delete(owner, { token: cast.outsider.token })).body.errorCode).toBe("DomainNotOwnerError");
    expect(await membershipOf(t, cast.domain.id, cast.owner.user.id)).toBe("root");
    expect((await t.api.patch(owner, { role: "admin" }, { token: cast.siteRoot.token })).body.data.domainRole).toBe(
      "admin",
    );
  });

  test("granting or taking away root needs domain root", async () => {
    const cast = await makeCast(t);
    await addMembership(t, cast.domain, cast.outsider, "root");
    expect(
      (await t.api.patch(`${users(cast)}/${cast.member.user.id}`, { role: "root" }, { token: cast.admin.token })).body
        .errorCode,
    ).toBe("DomainNotRootError");
    expect(
      (await t.api.patch(`${users(cast)}/${cast.outsider.user.id}`, { role: "user" }, { token: cast.admin.token })).body
        .errorCode,
    ).toBe("DomainNotRootError");
    expect(
      (await t.api.delete(`${users(cast)}/${cast.outsider.user.id}`, { token: cast.admin.token })).body.errorCode,
    ).toBe("DomainNotRootError");
    expect(
      (await t.api.patch(`${users(cast)}/${cast.outsider.user.id}`, { role: "user" }, { token: cast.owner.token })).body
        .data.domainRole,
    ).toBe("user");
  });

  test("a role change applies on the very next request", async () => {
    const cast = await makeCast(t);
    expect((await t.api.get(`/domains/${cast.domain.id}/invitations`, { token: cast.member.token })).status).toBe(403);
    await t.api.patch(`${users(cast)}/${cast.member.user.id}`, { role: "admin" }, { token: cast.owner.token });
    expect(
      (await t.api.get(`/domains/${cast.domain.id}/invitations`, { token: cast.member.token })).body.errorCode,
    ).toBe("Success");
    await t.api.delete(`${users(cast)}/${cast.member.user.id}`, { token: cast.owner.token });
    expect(
      (await t.api.get(`/domains/${cast.domain.id}/invitations`, { token: cast.member.token })).body.errorCode,
    ).toBe("DomainNotFoundError");
  });
});

describe("removing members", () => {
  test("removes the membership; removing again is DomainUserNotFoundError", async () => {
    const cast = await makeCast(t);
    expect(
      (await t.api.delete(`${users(cast)}/${cast.member.user.id}`, { token: cast.admin.token })).body.data,
    ).toEqual({});
    expect(await membershipOf(t, cast.domain.id, cast.member.user.id)).toBeNull();
    expect(
      (await t.api.delete(`${users(cast)}/${cast.member.user.id}`, { token: cast.admin.token })).body.errorCode,
    ).toBe("DomainUserNotFoundError");
  });
});

describe("GET …/users/{user}/permission", () => {
  test("a non-member asking about themselves gets the guest permissions, even for a hidden domain", async () => {
    const cast = await makeCast(t, { hidden: true });
    const response = await t.api.get(`${users(cast)}/me/permission`, { token: cast.outsider.token });
    expect(response.body.data).toMatchObject({
      domainId: cast.domain.id,
      userId: cast.outsider.user.id,
      role: "guest",
    });
    expect(response.body.data.permission.general.view).toBe(false);
  });

  test("effective permissions: an edited guest role opens a visible domain to non-members", async () => {
    const cast = await makeCast(t, { hidden: false });
    await t.api.patch(
      `/domains/${cast.domain.id}/roles/guest`,
      { permission: { general: { view: true }, problem: { view: true } } },
      { token: cast.owner.token },
    );
    const response = await t.api.get(`${users(cast)}/me/permission`, { token: cast.outsider.token });
    expect(response.body.data.permission.general.view).toBe(true);
    expect(response.body.data.permission.problem.view).toBe(true);
    expect((await t.api.get(`/domains/${cast.domain.id}`, { token: cast.outsider.token })).body.data.ownerId).toBe(
      cast.owner.user.id,
    );
  });

  test("the owner and site roots hold everything; a member's own view of another member", async () => {
    const cast = await makeCast(t);
    const owner = await t.api.get(`${users(cast)}/${cast.owner.user.id}/permission`, { token: cast.member.token });
    expect(owner.body.data.permission.record.judge).toBe(true);
    const root = await t.api.get(`${users(cast)}/me/permission`, { token: cast.siteRoot.token });
    expect(root.body.data.permission.general.edit).toBe(true);
    const member = await t.api.get(`${users(cast)}/${cast.member.user.id}/permission`, { token: cast.admin.token });
    expect(member.body.data).toMatchObject({
      role: "user",
      permission: { general: { view: true, edit: false }, problem: { submit: true } },
    });
  });
});

describe("GET /domains/{domain}/candidates", () => {
  test("finds users by name whether or not they belong to other domains, without harvesting e-mails", async () => {
    const cast = await makeCast(t);
    const elsewhere = await createUser(t, { username: "candidate-alpha", email: "alpha@example.edu" });
    const other = await makeCast(t);
    await addMembership(t, other.domain, elsewhere, "user");
    await createUser(t, { username: "candidate-beta", email: "beta@example.edu" });
    const byName = await t.api.get(`/domains/${cast.domain.id}/candidates?query=candidate-`, {
      token: cast.admin.token,
    });
    expect(byName.body.data.results.map((u: { username: string }) => u.username)).toEqual([
      "candidate-alpha",
      "candidate-beta",
    ]);
    for (const found of byName.body.data.results) {
      expect(found).toMatchObject({
        email: "",
        studentId: "",
        registerIp: "",
        loginIp: "",
        domainRole: null,
        domainId: null,
      });
    }
    const bySubstringOfEmail = await t.api.get(`/domains/${cast.domain.id}/candidates?query=example.edu`, {
      token: cast.admin.token,
    });
    expect(bySubstringOfEmail.body.data.results.map((u: { username: string }) => u.username)).not.toContain(
      "candidate-alpha",
    );
    const byExactEmail = await t.api.get(`/domains/${cast.domain.id}/candidates?query=ALPHA@example.edu`, {
      token: cast.admin.token,
    });
    expect(byExactEmail.body.data.results).toHaveLength(1);
    expect(byExactEmail.body.data.results[0].email).toBe("alpha@example.edu");
  });

  test("members come with their role; at most ten; ordering by username only", async () => {
    const cast = await makeCast(t);
    for (let i = 0; i < 12; i++) await createUser(t, { username: `many-${String(i).padStart(2, "0")}` });
    const many = await t.api.get(`/domains/${cast.domain.id}/candidates?query=many-&ordering=-username`, {
      token: cast.admin.token,
    });
    expect(many.body.data.count).toBe(10);
    expect(many.body.data.results[0].username).toBe("many-11");
    const member = await t.api.get(`/domains/${cast.domain.id}/candidates?query=${cast.member.user.username}`, {
      token: cast.admin.token,
    });
    expect(member.body.data.results[0]).toMatchObject({
      domainRole: "user",
      domainId: cast.domain.id,
      email: cast.member.user.email,
    });
    expect(
      (await t.api.get(`/domains/${cast.domain.id}/candidates?query=many&ordering=email`, { token: cast.admin.token }))
        .body.errorCode,
    ).toBe("IllegalFieldError");
    expect((await t.api.get(`/domains/${cast.domain.id}/candidates?query=m`, { token: cast.admin.token })).status).toBe(
      422,
    );
  });
});

describe("admin lists that need domains", () => {
  test("GET /admin/{uid}/domains filters by role (Horse's singular name) and group", async () => {
    const cast = await makeCast(t, { group: "admin-list-group" });
    const all = await t.api.get(`/admin/${cast.member.user.id}/domains`, { token: cast.siteRoot.token });
    expect(all.body.data.results.map((d: { id: string }) => d.id)).toEqual([cast.domain.id]);
    expect(
      (await t.api.get(`/admin/${cast.member.user.id}/domains?role=admin`, { token: cast.siteRoot.token })).body.data
        .count,
    ).toBe(0);
    expect(
      (
        await t.api.get(`/admin/${cast.member.user.id}/domains?role=user&groups=admin-list-group`, {
          token: cast.siteRoot.token,
        })
      ).body.data.count,
    ).toBe(1);
    expect((await t.api.get(`/admin/${cast.member.user.id}/domains`, { token: cast.owner.token })).status).toBe(403);
  });

  test("GET /admin/domain_roles lists the roles of every domain, paged", async () => {
    const cast = await makeCast(t);
    const total = await t.orm.em.fork().count(DomainRole, {});
    const page = await t.api.get("/admin/domain_roles?limit=3", { token: cast.siteRoot.token });
    expect(page.body.data.count).toBe(total);
    expect(page.body.data.results).toHaveLength(3);
    expect(page.body.data.results[0]).toHaveProperty("permission.general.view");
  });
});
