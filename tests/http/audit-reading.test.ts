import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { authorizationMatrix, type Caller } from "../helpers/authorization-matrix";
import type { AuditEventView } from "../../src/modules/audit/audit.schemas";

// Reading the audit log: who may, paging and filters, and that no secret ever reaches it.
let t: TestApp;
let cast: Cast;
let other: Cast;
beforeAll(async () => {
  t = await spawnApp();
  [cast, other] = [await makeCast(t, { hidden: true }), await makeCast(t)];
});
afterAll(() => t.close());

const domainLog = (c: Cast) => `/domains/${c.domain.id}/audit`;

async function page(path: string, query: Record<string, string | number> = {}, token = cast.owner.token) {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  return t.api.get(`${path}?${params}`, { token });
}
async function results(path: string, query: Record<string, string | number> = {}, token = cast.owner.token) {
  const response = await page(path, query, token);
  expect(response.body.errorCode).toBe("Success");
  return response.body.data as { count: number; results: AuditEventView[] };
}

const CALLERS: Caller[] = ["anonymous", "outsider", "guest", "member", "admin", "owner", "siteRoot"];
describe("who may read", () => {
  authorizationMatrix(
    () => t,
    () => cast,
    CALLERS,
    [
      // The domain is hidden: an outsider does not see it exists. Reading needs general.edit (the admin role, domain root).
      { name: "GET …/audit", method: "GET", path: domainLog, expect: [401, "NF", 403, 403, "OK", "OK", "OK"] },
      // The site's log is the site root's alone (the owner here is a site admin).
      {
        name: "GET /admin/audit",
        method: "GET",
        path: () => "/admin/audit",
        expect: [401, 403, 403, 403, 403, 403, "OK"],
      },
    ],
  );

  test("a refusal names the permission", async () => {
    expect((await page(domainLog(cast), {}, cast.member.token)).body).toEqual({
      detail: "general edit Permission Denied.",
    });
    expect((await page("/admin/audit", {}, cast.owner.token)).body).toEqual({ detail: "site root Permission Denied." });
  });
});

describe("paging, order and filters", () => {
  const sets: string[] = [];
  beforeAll(async () => {
    // Five sets by the admin, two problems by the owner: seven events, in this order.
    for (const title of ["Week 1", "Week 2", "Week 3", "Week 4", "Week 5"]) {
      sets.push(
        (await t.api.post(`/domains/${cast.domain.id}/problem_sets`, { title }, { token: cast.admin.token })).body.data
          .id,
      );
    }
    for (const title of ["Dijkstra", "Bellman-Ford"])
      await t.api.post(`/domains/${cast.domain.id}/problems`, { title }, { token: cast.owner.token });
    await t.api.post(`/domains/${other.domain.id}/problems`, { title: "Elsewhere" }, { token: other.owner.token });
  });

  test("newest first, {count, results}, the domain's events only", async () => {
    const all = await results(domainLog(cast));
    expect(all.count).toBe(7);
    expect(all.results.map((e) => e.action)).toEqual([
      ...Array(2).fill("problem.create"),
      ...Array(5).fill("problem_set.create"),
    ]);
    expect(all.results.slice(2).map((e) => e.targetId)).toEqual([...sets].reverse());
    expect(all.results.every((e) => e.domainId === cast.domain.id)).toBe(true);
  });

  test("offset and limit page through without gaps or repeats; ordering=created_at is oldest first", async () => {
    const all = (await results(domainLog(cast))).results.map((e) => e.id);
    const paged: string[] = [];
    for (const offset of [0, 3, 6]) {
      const one = await results(domainLog(cast), { offset, limit: 3 });
      expect(one.count).toBe(7);
      paged.push(...one.results.map((e) => e.id));
    }
    expect(paged).toEqual(all);
    expect((await results(domainLog(cast), { ordering: "created_at" })).results.map((e) => e.id)).toEqual(
      [...all].reverse(),
    );
    expect((await results(domainLog(cast), { ordering: "-created_at" })).results.map((e) => e.id)).toEqual(all);
    expect((await page(domainLog(cast), { ordering: "title" })).body.errorCode).toBe("IllegalFieldError");
  });

  test("filtered by action and by actor, each with its own count", async () => {
    const created = await results(domainLog(cast), { action: "problem.create" });
    expect(created.count).toBe(2);
    expect(created.results.every((e) => e.action === "problem.create" && e.actorId === cast.owner.user.id)).toBe(true);
    const byAdmin = await results(domainLog(cast), { actor: cast.admin.user.id.toUpperCase() });
    expect(byAdmin.count).toBe(5);
    expect(byAdmin.results.every((e) => e.actorUsername === cast.admin.user.username)).toBe(true);
    expect((await results(domainLog(cast), { action: "problem.create", actor: cast.admin.user.id })).count).toBe(0);
    expect((await page(domainLog(cast), { action: "problem.hack" })).status).toBe(422);
    expect((await page(domainLog(cast), { actor: "not-a-user" })).status).toBe(422);
  });

  test("the site's log holds every domain's events, filterable the same way", async () => {
    const site = await results("/admin/audit", { action: "problem.create", limit: 500 }, cast.siteRoot.token);
    const domains = new Set(site.results.map((e) => e.domainId));
    expect(domains).toEqual(new Set([cast.domain.id, other.domain.id]));
    expect((await results("/admin/audit", { actor: other.owner.user.id }, cast.siteRoot.token)).count).toBe(1);
  });
});

describe("no secrets", () => {
  test("no event of a run with judgers, invitation codes and a password change holds a secret", async () => {
    const codes = ["ds2031-spring-k8v2", "ds2031-spring-p4x9"];
    const succeeds = async (response: Promise<{ body: { errorCode: string; data: any } }>) => {
      const { body } = await response;
      expect(body.errorCode).toBe("Success");
      return body.data;
    };
    const invitation = await succeeds(
      t.api.post(`/domains/${cast.domain.id}/invitations`, { code: codes[0] }, { token: cast.owner.token }),
    );
    await succeeds(
      t.api.patch(
        `/domains/${cast.domain.id}/invitations/${invitation.id}`,
        { code: codes[1] },
        { token: cast.owner.token },
      ),
    );
    await succeeds(
      t.api.delete(`/domains/${cast.domain.id}/invitations/${invitation.id}`, { token: cast.owner.token }),
    );
    const password = "Judger-Passw0rd-7d1e";
    const judger = await succeeds(
      t.api.post(
        "/admin/judgers",
        { username: "judge-room-101", email: "judge-101@judges.fudan.edu.cn", password },
        { token: cast.siteRoot.token },
      ),
    );
    await succeeds(
      t.api.patch(
        "/users/me/password",
        { currentPassword: cast.owner.password, newPassword: "Owner-New-Passw0rd" },
        { token: cast.owner.token },
      ),
    );
    const stored = await t.orm.em
      .fork()
      .execute<{ secret: string }[]>(
        "select hashed_password as secret from users where hashed_password <> '' union all select secret_digest from access_keys",
      );
    const secrets = [
      ...codes,
      password,
      "Owner-New-Passw0rd",
      judger.secretAccessKey,
      judger.accessToken,
      judger.refreshToken,
      ...stored.map((s) => s.secret),
    ];
    const log = await results("/admin/audit", { limit: 500 }, cast.siteRoot.token);
    expect(log.results.map((e) => e.action)).toEqual(
      expect.arrayContaining(["judger.create", "domain_invitation.create", "domain_invitation.update"]),
    );
    const text = JSON.stringify(log.results);
    for (const secret of secrets) expect(text).not.toContain(secret);
    const raw = JSON.stringify(await t.orm.em.fork().execute("select * from audit_events"));
    for (const secret of secrets) expect(raw).not.toContain(secret);
  });
});
