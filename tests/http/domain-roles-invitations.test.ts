import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser } from "../helpers/factories";
import { makeCast, membershipOf, type Cast } from "../helpers/domain-factories";
import { DomainRole } from "../../src/modules/domains/domain-role.entity";
import { DomainUser } from "../../src/modules/domains/domain-user.entity";
import { DomainInvitation } from "../../src/modules/domains/domain-invitation.entity";

let t: TestApp;
beforeAll(async () => {
  t = await spawnApp();
});
afterAll(() => t.close());

const roles = (c: Cast) => `/domains/${c.domain.id}/roles`;
const invitations = (c: Cast) => `/domains/${c.domain.id}/invitations`;

describe("roles", () => {
  test("the default roles are listed with complete camelCase permission sets", async () => {
    const cast = await makeCast(t);
    const list = await t.api.get(`${roles(cast)}?ordering=created_at`, { token: cast.member.token });
    expect(list.body.data.count).toBe(4);
    const guest = list.body.data.results.find((r: { role: string }) => r.role === "guest");
    expect(guest.permission.problemSet).toEqual({
      create: false,
      view: false,
      viewHidden: false,
      claim: false,
      scoreboard: false,
      manage: false,
      edit: false,
      viewConfig: false,
      clarify: false,
    });
    const detail = await t.api.get(`${roles(cast)}/user`, { token: cast.member.token });
    expect(detail.body.data).toMatchObject({
      role: "user",
      domainId: cast.domain.id,
      permission: { problem: { submit: true, edit: false } },
    });
    expect(detail.body.data.createdAt).toBeDefined();
    expect((await t.api.get(`${roles(cast)}/nope`, { token: cast.member.token })).body.errorCode).toBe(
      "DomainRoleNotFoundError",
    );
  });

  test("a custom role: missing flags take the defaults; snake_case keys are accepted", async () => {
    const cast = await makeCast(t);
    const created = await t.api.post(
      roles(cast),
      { role: "ta", permission: { problem_set: { view_hidden: true } } },
      { token: cast.owner.token },
    );
    expect(created.body.data.permission.problemSet.viewHidden).toBe(true);
    expect(created.body.data.permission.general.view).toBe(true);
    expect(
      (await t.api.post(roles(cast), { role: "ta", permission: {} }, { token: cast.owner.token })).body.errorCode,
    ).toBe("DomainRoleNotUniqueError");
    for (const name of ["root", "guest", "judger"]) {
      expect(
        (await t.api.post(roles(cast), { role: name, permission: {} }, { token: cast.owner.token })).body.errorCode,
      ).toBe("DomainRoleReadOnlyError");
    }
    expect(
      (
        await t.api.post(
          roles(cast),
          { role: "bad", permission: { general: { view: "yes" } } },
          { token: cast.owner.token },
        )
      ).status,
    ).toBe(422);
  });

  test("PATCH merges flags; root cannot be edited; an empty body changes nothing", async () => {
    const cast = await makeCast(t);
    const patched = await t.api.patch(
      `${roles(cast)}/user`,
      { permission: { record: { view: true } } },
      { token: cast.owner.token },
    );
    expect(patched.body.data.permission.record.view).toBe(true);
    expect(patched.body.data.permission.problem.submit).toBe(true);
    expect(
      (await t.api.patch(`${roles(cast)}/user`, {}, { token: cast.owner.token })).body.data.permission.record.view,
    ).toBe(true);
    expect(
      (
        await t.api.patch(
          `${roles(cast)}/root`,
          { permission: { general: { view: false } } },
          { token: cast.owner.token },
        )
      ).body.errorCode,
    ).toBe("DomainRoleReadOnlyError");
  });

  test("an editor who is not domain root cannot hand out permissions it lacks", async () => {
    const cast = await makeCast(t);
    await t.api.post(
      roles(cast),
      { role: "editor", permission: { general: { edit: true } } },
      { token: cast.owner.token },
    );
    await t.api.patch(
      `/domains/${cast.domain.id}/users/${cast.member.user.id}`,
      { role: "editor" },
      { token: cast.owner.token },
    );
    const escalate = await t.api.patch(
      `${roles(cast)}/editor`,
      { permission: { record: { judge: true } } },
      { token: cast.member.token },
    );
    expect(escalate.status).toBe(403);
    expect(escalate.body).toEqual({ detail: "record judge Permission Denied." });
    const stored = await t.orm.em.fork().findOneOrFail(DomainRole, { domain: cast.domain.id, role: "editor" });
    expect(stored.permission.record.judge).toBe(false);
    const within = await t.api.post(
      roles(cast),
      { role: "helper", permission: { general: { edit: true } } },
      { token: cast.member.token },
    );
    expect(within.body.errorCode).toBe("Success");
  });

  test("a role in use by a member or an invitation, or a built-in one, cannot be deleted", async () => {
    const cast = await makeCast(t);
    expect((await t.api.delete(`${roles(cast)}/user`, { token: cast.owner.token })).body.errorCode).toBe(
      "DomainRoleUsedError",
    );
    await t.api.post(roles(cast), { role: "invited", permission: {} }, { token: cast.owner.token });
    await t.api.post(invitations(cast), { code: "c1", role: "invited" }, { token: cast.owner.token });
    expect((await t.api.delete(`${roles(cast)}/invited`, { token: cast.owner.token })).body.errorCode).toBe(
      "DomainRoleUsedError",
    );
    expect((await t.api.delete(`${roles(cast)}/guest`, { token: cast.owner.token })).body.errorCode).toBe(
      "DomainRoleReadOnlyError",
    );
    await t.api.post(roles(cast), { role: "spare", permission: {} }, { token: cast.owner.token });
    expect((await t.api.delete(`${roles(cast)}/spare`, { token: cast.owner.token })).body.errorCode).toBe("Success");
    expect(await t.orm.em.fork().count(DomainRole, { domain: cast.domain.id, role: "spare" })).toBe(0);
  });
});

describe("invitations", () => {
  test("create, read by url or id, edit, delete", async () => {
    const cast = await makeCast(t);
    const created = await t.api.post(
      invitations(cast),
      { url: "spring", code: "JOIN-ME", expireAt: "2099-01-01T00:00:00+08:00" },
      { token: cast.admin.token },
    );
    expect(created.body.data).toMatchObject({
      url: "spring",
      code: "JOIN-ME",
      role: "user",
      domainId: cast.domain.id,
      expireAt: "2098-12-31T16:00:00.000+00:00",
    });
    const id = created.body.data.id;
    expect((await t.api.get(`${invitations(cast)}/spring`, { token: cast.admin.token })).body.data.id).toBe(id);
    const edited = await t.api.patch(
      `${invitations(cast)}/${id}`,
      { expireAt: 4_102_444_800_000, role: "admin" },
      { token: cast.admin.token },
    );
    expect(edited.body.data).toMatchObject({
      expireAt: "2100-01-01T00:00:00.000+00:00",
      role: "admin",
      code: "JOIN-ME",
    });
    expect((await t.api.get(invitations(cast), { token: cast.admin.token })).body.data.count).toBe(1);
    expect((await t.api.delete(`${invitations(cast)}/spring`, { token: cast.admin.token })).body.errorCode).toBe(
      "Success",
    );
    expect((await t.api.get(`${invitations(cast)}/spring`, { token: cast.admin.token })).body.errorCode).toBe(
      "DomainInvitationBadRequestError",
    );
  });

  test("an invitation can never grant root, on create or on edit", async () => {
    const cast = await makeCast(t);
    const create = await t.api.post(invitations(cast), { code: "r", role: "root" }, { token: cast.owner.token });
    expect(create.status).toBe(422);
    expect(create.body.detail[0]).toMatchObject({ loc: ["body", "role"], msg: "role can not be root" });
    const made = await t.api.post(invitations(cast), { code: "r" }, { token: cast.owner.token });
    expect(
      (await t.api.patch(`${invitations(cast)}/${made.body.data.id}`, { role: "root" }, { token: cast.owner.token }))
        .status,
    ).toBe(422);
    expect(await t.orm.em.fork().count(DomainInvitation, { domain: cast.domain.id, role: "root" })).toBe(0);
  });

  test("codes are unique per domain; the role must exist; a bad expiry is a 422", async () => {
    const cast = await makeCast(t);
    await t.api.post(invitations(cast), { code: "dup" }, { token: cast.owner.token });
    expect((await t.api.post(invitations(cast), { code: "dup" }, { token: cast.owner.token })).body).toMatchObject({
      errorCode: "DomainInvitationBadRequestError",
      errorMsg: "code is already used",
    });
    expect(
      (await t.api.post(invitations(cast), { code: "x", role: "ghost" }, { token: cast.owner.token })).body.errorCode,
    ).toBe("DomainRoleNotFoundError");
    expect(
      (await t.api.post(invitations(cast), { code: "y", expireAt: "soon" }, { token: cast.owner.token })).status,
    ).toBe(422);
    const impossible = await t.api.post(
      invitations(cast),
      { code: "z", expireAt: "2099-02-30T00:00:00" },
      { token: cast.owner.token },
    );
    expect(impossible.status).toBe(422);
    expect(impossible.body.detail[0].loc).toEqual(["body", "expireAt"]);
    expect(await t.orm.em.fork().count(DomainInvitation, { domain: cast.domain.id })).toBe(1);
    const naive = await t.api.post(
      invitations(cast),
      { code: "naive", expireAt: "2099-01-01T08:00:00" },
      { token: cast.owner.token },
    );
    expect(naive.body.data.expireAt).toBe("2099-01-01T08:00:00.000+00:00");
  });
});

describe("joining by invitation", () => {
  test("a non-member joins a hidden domain with the code and gets the invitation's role", async () => {
    const cast = await makeCast(t, { hidden: true });
    await t.api.post(invitations(cast), { code: "WELCOME", role: "admin" }, { token: cast.owner.token });
    const joined = await t.api.post(`/domains/${cast.domain.url}/join?invitationCode=WELCOME`, undefined, {
      token: cast.outsider.token,
    });
    expect(joined.body.data).toEqual({
      id: cast.outsider.user.id,
      username: cast.outsider.user.username,
      gravatar: "",
      domainId: cast.domain.id,
      domainRole: "admin",
    });
    expect(await membershipOf(t, cast.domain.id, cast.outsider.user.id)).toBe("admin");
  });

  test("joining twice, even at once, is refused and leaves one membership", async () => {
    const cast = await makeCast(t);
    await t.api.post(invitations(cast), { code: "TWICE" }, { token: cast.owner.token });
    const attempts = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.api.post(`/domains/${cast.domain.id}/join?invitation_code=TWICE`, undefined, { token: cast.outsider.token }),
      ),
    );
    expect(attempts.filter((a) => a.body.errorCode === "Success")).toHaveLength(1);
    expect(attempts.filter((a) => a.body.errorCode === "UserAlreadyInDomainBadRequestError")).toHaveLength(3);
    expect(await t.orm.em.fork().count(DomainUser, { domain: cast.domain.id, user: cast.outsider.user.id })).toBe(1);
  });

  test("an expired invitation is refused; a wrong code too", async () => {
    const cast = await makeCast(t);
    await t.api.post(
      invitations(cast),
      { code: "OLD", expireAt: Math.floor(Date.now() / 1000) - 60 },
      { token: cast.owner.token },
    );
    expect(
      (
        await t.api.post(`/domains/${cast.domain.id}/join?invitationCode=OLD`, undefined, {
          token: cast.outsider.token,
        })
      ).body.errorCode,
    ).toBe("DomainInvitationExpiredError");
    expect(
      (
        await t.api.post(`/domains/${cast.domain.id}/join?invitationCode=NOPE`, undefined, {
          token: cast.outsider.token,
        })
      ).body.errorCode,
    ).toBe("DomainInvitationBadRequestError");
    expect(await membershipOf(t, cast.domain.id, cast.outsider.user.id)).toBeNull();
  });

  test("guessing codes is cut off after ten wrong tries, and a right code is then refused too", async () => {
    const cast = await makeCast(t);
    const guesser = await createUser(t);
    await t.api.post(invitations(cast), { code: "RIGHT" }, { token: cast.owner.token });
    for (let i = 0; i < 10; i++) {
      const wrong = await t.api.post(`/domains/${cast.domain.id}/join?invitationCode=guess-${i}`, undefined, {
        token: guesser.token,
      });
      expect(wrong.body.errorCode).toBe("DomainInvitationBadRequestError");
    }
    const blocked = await t.api.post(`/domains/${cast.domain.id}/join?invitationCode=RIGHT`, undefined, {
      token: guesser.token,
    });
    expect(blocked.status).toBe(429);
    expect(blocked.body.detail).toContain("too many wrong invitation codes");
    expect(await membershipOf(t, cast.domain.id, guesser.user.id)).toBeNull();
    const other = await t.api.post(`/domains/${cast.domain.id}/join?invitationCode=RIGHT`, undefined, {
      token: cast.outsider.token,
    });
    expect(other.body.errorCode).toBe("Success");
  });

  test("needs a login and a code", async () => {
    const cast = await makeCast(t);
    expect((await t.api.post(`/domains/${cast.domain.id}/join?invitationCode=x`)).status).toBe(401);
    expect(
      (await t.api.post(`/domains/${cast.domain.id}/join`, undefined, { token: cast.outsider.token })).status,
    ).toBe(422);
  });
});
