import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser, type TestUser } from "../helpers/factories";
import { addMembership, makeCast, makeDomain, membershipOf } from "../helpers/domain-factories";
import { Domain } from "../../src/modules/domains/domain.entity";
import { DomainRole } from "../../src/modules/domains/domain-role.entity";
import { DOMAIN_CONTENT } from "../../src/modules/domains/domain-content";

let t: TestApp;
let creator: TestUser;
beforeAll(async () => {
  t = await spawnApp();
  creator = await createUser(t, { role: "admin" });
});
afterAll(() => t.close());

const countDomains = () => t.orm.em.fork().count(Domain, {});

describe("POST /domains", () => {
  test("needs a login and site domain.create (plain users cannot)", async () => {
    expect((await t.api.post("/domains", { name: "x" })).status).toBe(401);
    const plain = await createUser(t);
    const response = await t.api.post("/domains", { name: "x" }, { token: plain.token });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ detail: "domain create Permission Denied." });
  });

  test("creates the domain, its four roles, and the creator as owner and root member", async () => {
    const response = await t.api.post(
      "/domains",
      { url: "ve280", name: "VE280", bulletin: "Welcome", group: "SU2024" },
      { token: creator.token },
    );
    expect(response.body.errorCode).toBe("Success");
    expect(response.body.data).toMatchObject({
      url: "ve280",
      name: "VE280",
      bulletin: "Welcome",
      group: "SU2024",
      hidden: true,
      ownerId: creator.user.id,
      gravatar: "",
    });
    const roles = await t.orm.em
      .fork()
      .find(DomainRole, { domain: response.body.data.id }, { orderBy: { role: "asc" } });
    expect(roles.map((r) => r.role)).toEqual(["admin", "guest", "root", "user"]);
    expect(await membershipOf(t, response.body.data.id, creator.user.id)).toBe("root");
  });

  test("without a url the url is the id", async () => {
    const response = await t.api.post("/domains", { name: "No url" }, { token: creator.token });
    expect(response.body.data.url).toBe(response.body.data.id);
  });

  test("a taken url is refused and nothing is created", async () => {
    await t.api.post("/domains", { url: "taken", name: "A" }, { token: creator.token });
    const before = await countDomains();
    const response = await t.api.post("/domains", { url: "taken", name: "B" }, { token: creator.token });
    expect(response.body).toMatchObject({
      errorCode: "IntegrityError",
      errorMsg: 'url "taken" is already used by another domain',
    });
    expect(await countDomains()).toBe(before);
  });

  test.each([
    [{ url: "x" }, ["body", "name"]],
    [{ name: "" }, ["body", "name"]],
    [{ name: "ok", url: "has space" }, ["body", "url"]],
    [{ name: "ok", url: "a@b" }, ["body", "url"]],
    [{ name: "ok", url: "123e4567-e89b-42d3-a456-426614174000" }, ["body", "url"]],
    [{ name: "x".repeat(257) }, ["body", "name"]],
    [{ name: "ok", hidden: "yes" }, ["body", "hidden"]],
  ])("invalid input is a 422 and creates nothing: %j", async (body, loc) => {
    const before = await countDomains();
    const response = await t.api.post("/domains", body, { token: creator.token });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(loc);
    expect(await countDomains()).toBe(before);
  });
});

describe("GET /domains", () => {
  test("lists the caller's domains only, site roots included, with Horse's filters", async () => {
    const user = await createUser(t, { role: "root" });
    const a = await makeDomain(t, user, { group: "g1" });
    const b = await makeDomain(t, creator, { group: "g2" });
    await addMembership(t, b, user, "user");
    await makeDomain(t, creator, { group: "g1" }); // not the user's
    const all = await t.api.get("/domains", { token: user.token });
    expect(all.body.data.count).toBe(2);
    const roots = await t.api.get("/domains?roles=root", { token: user.token });
    expect(roots.body.data.results.map((x: { id: string }) => x.id)).toEqual([a.id]);
    const groups = await t.api.get("/domains?groups=g2&groups=g3", { token: user.token });
    expect(groups.body.data.results.map((x: { id: string }) => x.id)).toEqual([b.id]);
    const ordered = await t.api.get("/domains?ordering=created_at", { token: user.token });
    expect(ordered.body.data.results.map((x: { id: string }) => x.id)).toEqual([a.id, b.id]);
    expect((await t.api.get("/domains?ordering=name", { token: user.token })).body.errorCode).toBe("IllegalFieldError");
  });
});

describe("GET /domains/groups", () => {
  test("distinct groups, counted as groups; hidden domains' groups only for their members", async () => {
    await makeDomain(t, creator, { group: "Fall-2031 A", hidden: false });
    await makeDomain(t, creator, { group: "Fall-2031 A", hidden: false });
    await makeDomain(t, creator, { group: "Fall-2031 secret", hidden: true });
    const other = await createUser(t, { role: "admin" });
    const seen = await t.api.get("/domains/groups?query=fall-2031", { token: creator.token });
    expect(seen.body.data).toEqual({ count: 2, results: ["Fall-2031 A", "Fall-2031 secret"] });
    const admin = await t.api.get("/domains/groups?query=fall-2031", { token: other.token });
    expect(admin.body.data.results).toContain("Fall-2031 secret"); // site admins see hidden domains
    const plain = await createUser(t);
    expect((await t.api.get("/domains/groups?query=fall", { token: plain.token })).status).toBe(403);
    expect((await t.api.get("/domains/groups?query=f", { token: creator.token })).status).toBe(422);
    const wildcard = await t.api.get("/domains/groups?query=%25%25", { token: creator.token });
    expect(wildcard.body.data.count).toBe(0);
  });
});

describe("GET and PATCH /domains/{domain}", () => {
  test("found by url and by id; unknown is DomainNotFoundError", async () => {
    const domain = await makeDomain(t, creator, { url: "by-url" });
    expect((await t.api.get("/domains/by-url", { token: creator.token })).body.data.id).toBe(domain.id);
    expect((await t.api.get(`/domains/${domain.id}`, { token: creator.token })).body.data.url).toBe("by-url");
    const unknown = await t.api.get("/domains/nope", { token: creator.token });
    expect(unknown.body).toEqual({ errorCode: "DomainNotFoundError", errorMsg: "domain not found", data: null });
  });

  test("a non-member sees a visible domain's public card, without owner or timestamps", async () => {
    const domain = await makeDomain(t, creator, { hidden: false, bulletin: "Hello" });
    const outsider = await createUser(t);
    const response = await t.api.get(`/domains/${domain.id}`, { token: outsider.token });
    expect(response.body.data).toEqual({
      id: domain.id,
      url: domain.url,
      name: domain.name,
      gravatar: "",
      bulletin: "Hello",
      hidden: false,
      group: "",
    });
  });

  test("partial update: absent keys stay, an empty body changes nothing, url null resets to the id", async () => {
    const domain = await makeDomain(t, creator, { url: "patch-me", bulletin: "keep" });
    const renamed = await t.api.patch(
      `/domains/${domain.id}`,
      { name: "Renamed", hidden: false },
      { token: creator.token },
    );
    expect(renamed.body.data).toMatchObject({ name: "Renamed", hidden: false, bulletin: "keep", url: "patch-me" });
    const same = await t.api.patch(`/domains/${domain.id}`, {}, { token: creator.token });
    expect(same.body.data).toMatchObject({ name: "Renamed", bulletin: "keep" });
    const reset = await t.api.patch(`/domains/${domain.id}`, { url: null }, { token: creator.token });
    expect(reset.body.data.url).toBe(domain.id);
  });

  test("another domain's url is refused; an empty name is a 422", async () => {
    const a = await makeDomain(t, creator, { url: "first-url" });
    const b = await makeDomain(t, creator);
    expect((await t.api.patch(`/domains/${b.id}`, { url: "first-url" }, { token: creator.token })).body.errorCode).toBe(
      "IntegrityError",
    );
    expect((await t.api.patch(`/domains/${a.id}`, { name: "" }, { token: creator.token })).status).toBe(422);
  });

  test("moving a domain to another group needs site domain.edit: a 403, not Horse's 401", async () => {
    const cast = await makeCast(t);
    const byDomainAdmin = await t.api.patch(
      `/domains/${cast.domain.id}`,
      { group: "elsewhere" },
      { token: cast.admin.token },
    );
    expect(byDomainAdmin.status).toBe(403);
    expect(byDomainAdmin.body).toEqual({ detail: "domain edit Permission Denied." });
    const bySiteAdmin = await t.api.patch(
      `/domains/${cast.domain.id}`,
      { group: "elsewhere" },
      { token: cast.owner.token },
    );
    expect(bySiteAdmin.body.data.group).toBe("elsewhere");
  });
});

describe("DELETE /domains/{domain}", () => {
  test("the owner or a site root deletes it; a domain admin may not", async () => {
    const cast = await makeCast(t);
    const byAdmin = await t.api.delete(`/domains/${cast.domain.id}`, { token: cast.admin.token });
    expect(byAdmin.status).toBe(403);
    expect(await t.orm.em.fork().count(Domain, { id: cast.domain.id })).toBe(1);
    expect((await t.api.delete(`/domains/${cast.domain.id}`, { token: cast.owner.token })).body).toEqual({
      errorCode: "Success",
      errorMsg: null,
      data: {},
    });
    expect(await t.orm.em.fork().count(Domain, { id: cast.domain.id })).toBe(0);
    expect(await t.orm.em.fork().count(DomainRole, { domain: cast.domain.id })).toBe(0);
    const other = await makeCast(t);
    expect((await t.api.delete(`/domains/${other.domain.id}`, { token: other.siteRoot.token })).body.errorCode).toBe(
      "Success",
    );
  });

  test("a domain that still holds content is refused and kept", async () => {
    const cast = await makeCast(t);
    // Stand in for problems/records (issues 4, 5) with a table of the same shape.
    await t.orm.em.fork().execute("create table if not exists test_domain_content (domain_id uuid not null)");
    await t.orm.em.fork().execute("insert into test_domain_content values (?)", [cast.domain.id]);
    DOMAIN_CONTENT.push({ table: "test_domain_content", label: "test items" });
    try {
      const response = await t.api.delete(`/domains/${cast.domain.id}`, { token: cast.owner.token });
      expect(response.body).toMatchObject({
        errorCode: "IntegrityError",
        errorMsg: "the domain still holds 1 test items; delete or move them first",
      });
      expect(await t.orm.em.fork().count(Domain, { id: cast.domain.id })).toBe(1);
    } finally {
      DOMAIN_CONTENT.pop();
    }
  });
});

describe("POST /domains/{domain}/transfer", () => {
  test("the owner transfers to a root member; the old owner stays a member", async () => {
    const cast = await makeCast(t);
    await addMembership(t, cast.domain, cast.outsider, "root");
    const response = await t.api.post(
      `/domains/${cast.domain.id}/transfer`,
      { target_user: cast.outsider.user.id },
      { token: cast.owner.token },
    );
    expect(response.body.data.ownerId).toBe(cast.outsider.user.id);
    expect(await membershipOf(t, cast.domain.id, cast.owner.user.id)).toBe("root");
  });

  test("Horse's refusals, in Horse's order", async () => {
    const cast = await makeCast(t);
    const path = `/domains/${cast.domain.id}/transfer`;
    expect(
      (await t.api.post(path, { targetUser: "00000000-0000-4000-8000-000000000000" }, { token: cast.owner.token })).body
        .errorCode,
    ).toBe("UserNotFoundError");
    expect(
      (await t.api.post(path, { targetUser: cast.admin.user.id }, { token: cast.admin.token })).body.errorCode,
    ).toBe("DomainNotOwnerError");
    expect((await t.api.post(path, { targetUser: "me" }, { token: cast.owner.token })).body.errorCode).toBe(
      "DomainNotOwnerError",
    );
    expect(
      (await t.api.post(path, { targetUser: cast.member.user.id }, { token: cast.owner.token })).body.errorCode,
    ).toBe("DomainNotRootError");
    const bySiteRoot = await t.api.post(path, { targetUser: cast.admin.user.id }, { token: cast.siteRoot.token });
    expect(bySiteRoot.body.errorCode).toBe("DomainNotRootError");
    expect((await t.api.post(path, {}, { token: cast.owner.token })).status).toBe(422);
  });
});
