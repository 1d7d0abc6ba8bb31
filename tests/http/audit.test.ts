import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, makeDomain, type Cast } from "../helpers/domain-factories";
import { createUser } from "../helpers/factories";
import { archiveOf } from "../helpers/archive-builders";
import { judgeableProblem, submission, submit, CASE_DATA } from "../helpers/records";
import type { AuditEventView } from "../../src/modules/audit/audit.schemas";

// The audit log: each family of staff actions writes one event with its diff, in the change's transaction.
let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  // Requests through app.handle come from 127.0.0.1, here a trusted proxy: X-Forwarded-For names the client.
  t = await spawnApp({ TRUSTED_PROXIES: "127.0.0.1/32" }, { configsWorker: true });
  cast = await makeCast(t);
});
afterAll(() => t.close());

const domain = () => `/domains/${cast.domain.id}`;
const as = (token: string, ip = "203.0.113.10") => ({ token, headers: { "x-forwarded-for": ip } });

async function events(
  query: Record<string, string | number> = {},
  token = cast.owner.token,
  path = `${domain()}/audit`,
) {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const response = await t.api.get(`${path}?${params}`, { token });
  expect(response.body.errorCode).toBe("Success");
  return response.body.data as { count: number; results: AuditEventView[] };
}

/** The newest event of an action on one target. */
async function eventOn(action: string, targetId: string, path?: string) {
  const found = (
    await events({ action, limit: 500 }, path ? cast.siteRoot.token : cast.owner.token, path)
  ).results.filter((e) => e.targetId === targetId);
  expect(found.length).toBeGreaterThan(0);
  return found[0];
}

const ok = async <T = any>(response: Promise<{ body: any }>): Promise<T> => {
  const { body } = await response;
  expect(body.errorCode).toBe("Success");
  return body.data;
};

describe("what an event records", () => {
  test("changing a problem set's deadline shows its old and new values, who, when and from where", async () => {
    const set = await ok(
      t.api.post(
        `${domain()}/problem_sets`,
        { title: "Homework 3", dueAt: "2031-03-01T23:59:00Z" },
        as(cast.admin.token),
      ),
    );
    const startedAt = Date.now();
    await ok(
      t.api.patch(
        `${domain()}/problem_sets/${set.id}`,
        { title: "Homework 3", dueAt: "2031-03-08T23:59:00+08:00" },
        as(cast.admin.token),
      ),
    );
    const event = await eventOn("problem_set.update", set.id);
    expect(event).toMatchObject({
      action: "problem_set.update",
      targetType: "problem_set",
      targetId: set.id,
      domainId: cast.domain.id,
      actorId: cast.admin.user.id,
      actorUsername: cast.admin.user.username,
      ip: "203.0.113.10",
    });
    // Only the changed field: the title was sent unchanged.
    expect(event.changes).toEqual({
      dueAt: { before: "2031-03-01T23:59:00.000+00:00", after: "2031-03-08T15:59:00.000+00:00" },
    });
    expect(Date.parse(event.createdAt)).toBeGreaterThanOrEqual(startedAt - 1000);
  });

  test("the address is the client's through a trusted proxy, and the peer's when the proxy is not trusted", async () => {
    const set = await ok(
      t.api.post(`${domain()}/problem_sets`, { title: "Lab 1" }, as(cast.owner.token, "198.51.100.7, 203.0.113.99")),
    );
    expect((await eventOn("problem_set.create", set.id)).ip).toBe("203.0.113.99");
    const direct = await spawnApp();
    try {
      const c = await makeCast(direct);
      const made = (
        await direct.api.post(`/domains/${c.domain.id}/problem_sets`, { title: "Lab 1" }, as(c.owner.token))
      ).body.data;
      const [event] = (await direct.api.get(`/domains/${c.domain.id}/audit`, { token: c.owner.token })).body.data
        .results;
      expect(event).toMatchObject({ targetId: made.id, ip: "127.0.0.1" });
    } finally {
      await direct.close();
    }
  });
});

describe("each family of staff actions", () => {
  test("roles: create, a permission edit (only the flags that changed), delete", async () => {
    const role = await ok(
      t.api.post(
        `${domain()}/roles`,
        { role: "teaching-assistant", permission: { problem: { edit: true } } },
        as(cast.owner.token),
      ),
    );
    expect((await eventOn("domain_role.create", role.id)).changes).toMatchObject({
      role: { before: null, after: "teaching-assistant" },
      "problem.edit": { before: null, after: true },
    });
    await ok(
      t.api.patch(
        `${domain()}/roles/teaching-assistant`,
        { permission: { problemSet: { edit: true } } },
        as(cast.owner.token),
      ),
    );
    expect((await eventOn("domain_role.update", role.id)).changes).toEqual({
      "problemSet.edit": { before: false, after: true },
    });
    await ok(t.api.delete(`${domain()}/roles/teaching-assistant`, as(cast.owner.token)));
    expect((await eventOn("domain_role.delete", role.id)).changes).toMatchObject({
      role: { before: "teaching-assistant", after: null },
    });
  });

  test("members: add, role change, remove", async () => {
    const student = await createUser(t);
    await ok(t.api.post(`${domain()}/users`, { user: student.user.id, role: "user" }, as(cast.admin.token)));
    expect((await eventOn("domain_user.add", student.user.id)).changes).toEqual({
      username: { before: null, after: student.user.username },
      role: { before: null, after: "user" },
    });
    await ok(t.api.patch(`${domain()}/users/${student.user.id}`, { role: "guest" }, as(cast.admin.token)));
    expect((await eventOn("domain_user.update", student.user.id)).changes).toEqual({
      role: { before: "user", after: "guest" },
    });
    await ok(t.api.delete(`${domain()}/users/${student.user.id}`, as(cast.admin.token)));
    expect((await eventOn("domain_user.remove", student.user.id)).changes).toMatchObject({
      role: { before: "guest", after: null },
    });
  });

  test("invitations: create, edit, delete; the code is recorded as changed, never its value", async () => {
    const invitation = await ok(
      t.api.post(`${domain()}/invitations`, { code: "cs101-fall-7f3a", url: "cs101-fall" }, as(cast.admin.token)),
    );
    expect((await eventOn("domain_invitation.create", invitation.id)).changes).toMatchObject({
      url: { before: null, after: "cs101-fall" },
      code: { before: null, after: "[redacted]" },
      role: { before: null, after: "user" },
    });
    await ok(
      t.api.patch(
        `${domain()}/invitations/${invitation.id}`,
        { code: "cs101-fall-9b1c", expireAt: "2031-09-30T00:00:00Z" },
        as(cast.admin.token),
      ),
    );
    expect((await eventOn("domain_invitation.update", invitation.id)).changes).toEqual({
      code: { before: "[redacted]", after: "[redacted]" },
      expireAt: { before: null, after: "2031-09-30T00:00:00.000+00:00" },
    });
    await ok(t.api.delete(`${domain()}/invitations/${invitation.id}`, as(cast.admin.token)));
    expect((await eventOn("domain_invitation.delete", invitation.id)).changes.code).toEqual({
      before: "[redacted]",
      after: null,
    });
  });

  test("problems: create, edit, hide, clone (from where), delete", async () => {
    const problem = await ok(
      t.api.post(`${domain()}/problems`, { title: "Two Sum", url: "two-sum" }, as(cast.owner.token)),
    );
    expect((await eventOn("problem.create", problem.id)).changes).toMatchObject({
      title: { before: null, after: "Two Sum" },
      hidden: { before: null, after: false },
    });
    await ok(
      t.api.patch(`${domain()}/problems/${problem.id}`, { title: "Two Sum II", hidden: true }, as(cast.owner.token)),
    );
    expect((await eventOn("problem.update", problem.id)).changes).toEqual({
      title: { before: "Two Sum", after: "Two Sum II" },
      hidden: { before: false, after: true },
    });
    const [clone] = (
      await ok(
        t.api.post(
          `${domain()}/problems/clone`,
          { fromDomain: cast.domain.id, problems: [problem.id] },
          as(cast.owner.token),
        ),
      )
    ).results;
    expect((await eventOn("problem.clone", clone.id)).changes).toMatchObject({
      sourceProblemId: { before: null, after: problem.id },
      sourceDomainId: { before: null, after: cast.domain.id },
      title: { after: "Two Sum II" },
    });
    await ok(t.api.delete(`${domain()}/problems/${problem.id}`, as(cast.owner.token)));
    expect((await eventOn("problem.delete", problem.id)).changes).toMatchObject({
      url: { before: "two-sum", after: null },
    });
  });

  test("configs: a version from an archive and one from JSON, each with the version and languages it changed", async () => {
    const problem = await ok(t.api.post(`${domain()}/problems`, { title: "Graphs" }, as(cast.owner.token)));
    const form = new FormData();
    form.append(
      "file",
      new Blob([
        await archiveOf("zip", {
          "config.json": JSON.stringify({ languages: [{ name: "c", cases: [{}] }] }),
          ...CASE_DATA,
        }),
      ]),
      "config.zip",
    );
    const v1 = await ok(
      t.api.post(`${domain()}/problems/${problem.id}/configs`, undefined, {
        ...as(cast.owner.token, "192.0.2.44"),
        multipart: form,
      }),
    );
    const uploaded = await eventOn("problem_config.upload_archive", v1.id);
    expect(uploaded).toMatchObject({ ip: "192.0.2.44", actorId: cast.owner.user.id, domainId: cast.domain.id });
    expect(uploaded.changes).toMatchObject({
      version: { before: null, after: 1 },
      languages: { before: [], after: ["c"] },
    });
    const v2 = await ok(
      t.api.post(
        `${domain()}/problems/${problem.id}/configs/json`,
        {
          languages: [
            { name: "c", cases: [{}] },
            { name: "python3", cases: [{}] },
          ],
        },
        as(cast.owner.token),
      ),
    );
    expect((await eventOn("problem_config.update_json", v2.id)).changes).toMatchObject({
      version: { before: 1, after: 2 },
      languages: { before: ["c"], after: ["c", "python3"] },
      commitId: { before: v1.commitId, after: v2.commitId },
    });
  });

  test("problem sets: create, problems added, moved and removed (the order before and after), delete", async () => {
    const set = await ok(
      t.api.post(
        `${domain()}/problem_sets`,
        { title: "Midterm", unlockAt: "2031-04-01T08:00:00Z" },
        as(cast.admin.token),
      ),
    );
    expect((await eventOn("problem_set.create", set.id)).changes).toMatchObject({
      unlockAt: { before: null, after: "2031-04-01T08:00:00.000+00:00" },
    });
    const [a, b] = [
      await ok(t.api.post(`${domain()}/problems`, { title: "A" }, as(cast.owner.token))),
      await ok(t.api.post(`${domain()}/problems`, { title: "B" }, as(cast.owner.token))),
    ];
    await ok(t.api.post(`${domain()}/problem_sets/${set.id}/problems`, { problem: a.id }, as(cast.admin.token)));
    await ok(t.api.post(`${domain()}/problem_sets/${set.id}/problems`, { problem: b.id }, as(cast.admin.token)));
    expect((await eventOn("problem_set.add_problem", set.id)).changes).toEqual({
      problems: { before: [a.id], after: [a.id, b.id] },
    });
    await ok(t.api.patch(`${domain()}/problem_sets/${set.id}/problems/${b.id}`, { position: 0 }, as(cast.admin.token)));
    expect((await eventOn("problem_set.move_problem", set.id)).changes).toEqual({
      problems: { before: [a.id, b.id], after: [b.id, a.id] },
    });
    await ok(t.api.delete(`${domain()}/problem_sets/${set.id}/problems/${a.id}`, as(cast.admin.token)));
    expect((await eventOn("problem_set.remove_problem", set.id)).changes).toEqual({
      problems: { before: [b.id, a.id], after: [b.id] },
    });
    await ok(t.api.delete(`${domain()}/problem_sets/${set.id}`, as(cast.admin.token)));
    expect((await eventOn("problem_set.delete", set.id)).changes).toMatchObject({
      title: { before: "Midterm", after: null },
    });
  });

  test("rejudges: one record (its judgement and pinned version before and after), and a problem's records in bulk (the filters)", async () => {
    const problem = await judgeableProblem(t, cast);
    const record = (await submit(t, cast.member.token, `${domain()}/problems/${problem}`, submission("c"))).body.data
      .id as string;
    const pinned = (
      await t.orm.em.fork().execute<{ config_id: string }[]>("select config_id from records where id = ?", [record])
    )[0].config_id;
    await t.api.post(
      `${domain()}/problems/${problem}/configs/json`,
      { languages: [{ name: "c", cases: [{}, {}] }] },
      as(cast.owner.token),
    );
    await ok(t.api.post(`${domain()}/records/${record}/rejudge`, { config: "latest" }, as(cast.admin.token)));
    const latest = (
      await t.orm.em.fork().execute<{ config_id: string }[]>("select config_id from records where id = ?", [record])
    )[0].config_id;
    expect((await eventOn("record.rejudge", record)).changes).toEqual({
      configId: { before: pinned, after: latest },
      config: { before: null, after: "latest" },
    });
    await ok(
      t.api.post(
        `${domain()}/problems/${problem}/rejudge`,
        { state: ["queueing"], language: "c" },
        as(cast.admin.token),
      ),
    );
    expect((await eventOn("problem.rejudge", problem)).changes).toEqual({
      states: { before: null, after: ["queueing"] },
      language: { before: null, after: "c" },
      config: { before: null, after: "latest" },
    });
  });

  test("domains: an edit, a transfer, and a delete (kept in the site's log after the domain is gone)", async () => {
    const owner = await createUser(t, { role: "admin" });
    const course = await makeDomain(t, owner, { name: "Data Structures" });
    const successor = await createUser(t);
    await ok(t.api.post(`/domains/${course.id}/users`, { user: successor.user.id, role: "root" }, as(owner.token)));
    await ok(
      t.api.patch(
        `/domains/${course.id}`,
        { name: "Data Structures (Fall)", bulletin: "Office hours moved" },
        as(owner.token),
      ),
    );
    expect((await eventOn("domain.update", course.id, "/admin/audit")).changes).toEqual({
      name: { before: "Data Structures", after: "Data Structures (Fall)" },
      bulletin: { before: "", after: "Office hours moved" },
    });
    await ok(t.api.post(`/domains/${course.id}/transfer`, { targetUser: successor.user.id }, as(owner.token)));
    expect((await eventOn("domain.transfer", course.id, "/admin/audit")).changes).toEqual({
      ownerId: { before: owner.user.id, after: successor.user.id },
    });
    await ok(t.api.delete(`/domains/${course.id}`, as(successor.token)));
    const deleted = await eventOn("domain.delete", course.id, "/admin/audit");
    expect(deleted).toMatchObject({ domainId: course.id, actorId: successor.user.id });
    expect(deleted.changes.name).toEqual({ before: "Data Structures (Fall)", after: null });
  });

  test("judgers: the account made by the site root, without its password, key or tokens", async () => {
    const made = await ok(
      t.api.post(
        "/admin/judgers",
        { username: "judge-lab-2", email: "judge-lab-2@judges.sjtu.edu.cn", password: "s3cret-Judger-pass" },
        as(cast.siteRoot.token),
      ),
    );
    const judger = (
      await t.orm.em.fork().execute<{ id: string }[]>("select id from users where username = 'judge-lab-2'")
    )[0];
    const event = await eventOn("judger.create", judger.id, "/admin/audit");
    expect(event).toMatchObject({ domainId: null, actorId: cast.siteRoot.user.id, targetType: "user" });
    expect(event.changes).toEqual({
      username: { before: null, after: "judge-lab-2" },
      email: { before: null, after: "judge-lab-2@judges.sjtu.edu.cn" },
    });
    expect(JSON.stringify(event)).not.toContain(made.secretAccessKey);
  });
});

describe("the event and its change are one transaction", () => {
  const countOf = async (action: string, targetId: string) =>
    (
      await t.orm.em
        .fork()
        .execute<{ n: number }[]>("select count(*)::int as n from audit_events where action = ? and target_id = ?", [
          action,
          targetId,
        ])
    )[0].n;
  const sql = (text: string) => t.orm.em.fork().execute(text);

  test("a change refused with a business error (a url another set has) writes no event", async () => {
    await ok(t.api.post(`${domain()}/problem_sets`, { title: "Final", url: "final-exam" }, as(cast.admin.token)));
    const set = await ok(
      t.api.post(
        `${domain()}/problem_sets`,
        { title: "Final (draft)", dueAt: "2031-06-01T00:00:00Z" },
        as(cast.admin.token),
      ),
    );
    const refused = await t.api.patch(
      `${domain()}/problem_sets/${set.id}`,
      { url: "final-exam", dueAt: "2031-06-08T00:00:00Z" },
      as(cast.admin.token),
    );
    expect(refused.body.errorCode).toBe("IntegrityError");
    expect(await countOf("problem_set.update", set.id)).toBe(0);
    const question = await ok(t.api.post(`${domain()}/problems`, { title: "Q1" }, as(cast.owner.token)));
    await ok(t.api.post(`${domain()}/problem_sets/${set.id}/problems`, { problem: question.id }, as(cast.admin.token)));
    const again = await t.api.post(
      `${domain()}/problem_sets/${set.id}/problems`,
      { problem: question.id },
      as(cast.admin.token),
    );
    expect(again.body.errorCode).toBe("IntegrityError");
    expect(await countOf("problem_set.add_problem", set.id)).toBe(1);
  });

  test("a change the database refuses leaves no event", async () => {
    const problem = await ok(t.api.post(`${domain()}/problems`, { title: "Knapsack" }, as(cast.owner.token)));
    await sql(`create function refuse_title() returns trigger language plpgsql as $$ begin
                 if new.title = 'Knapsack (leaked)' then raise exception 'refused'; end if; return new; end $$`);
    await sql("create trigger refuse_title before update on problems for each row execute function refuse_title()");
    try {
      expect(
        (await t.api.patch(`${domain()}/problems/${problem.id}`, { title: "Knapsack (leaked)" }, as(cast.owner.token)))
          .status,
      ).toBe(500);
      expect(await countOf("problem.update", problem.id)).toBe(0);
    } finally {
      await sql("drop trigger refuse_title on problems");
      await sql("drop function refuse_title()");
    }
  });

  test("an event that cannot be written fails its change: an edit, a delete, a rejudge", async () => {
    const problem = await judgeableProblem(t, cast);
    const record = (await submit(t, cast.member.token, `${domain()}/problems/${problem}`, submission("c"))).body.data
      .id as string;
    const taskOf = async () =>
      (await t.orm.em.fork().execute<{ task_id: string }[]>("select task_id from records where id = ?", [record]))[0]
        .task_id;
    const task = await taskOf();
    await sql(
      `alter table audit_events add constraint refuse_target check (target_id not in ('${problem}', '${record}')) not valid`,
    );
    try {
      expect(
        (await t.api.patch(`${domain()}/problems/${problem}`, { title: "Renamed" }, as(cast.owner.token))).status,
      ).toBe(500);
      expect((await t.api.delete(`${domain()}/problems/${problem}`, as(cast.owner.token))).status).toBe(500);
      expect((await t.api.post(`${domain()}/records/${record}/rejudge`, {}, as(cast.admin.token))).status).toBe(500);
    } finally {
      await sql("alter table audit_events drop constraint refuse_target");
    }
    const kept = await ok(t.api.get(`${domain()}/problems/${problem}`, { token: cast.owner.token }));
    expect(kept.title).not.toBe("Renamed");
    expect(await taskOf()).toBe(task);
  });
});
