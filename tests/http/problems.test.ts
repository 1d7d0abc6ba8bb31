import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser } from "../helpers/factories";
import { addMembership, makeCast, type Cast } from "../helpers/domain-factories";
import { Problem } from "../../src/modules/problems/problem.entity";
import { ProblemConfig } from "../../src/modules/problem-configs/problem-config.entity";
import { commitVersion, latestConfig, treeOf } from "../../src/modules/problem-configs/versions.service";
import { User } from "../../src/modules/users/user.entity";

let t: TestApp;
beforeAll(async () => {
  t = await spawnApp();
});
afterAll(() => t.close());

const problemsOf = (c: Cast) => `/domains/${c.domain.id}/problems`;
const countProblems = (domainId: string) => t.orm.em.fork().count(Problem, { domain: domainId });

async function makeProblem(c: Cast, body: Record<string, unknown> = {}) {
  const response = await t.api.post(problemsOf(c), { title: "A + B", ...body }, { token: c.owner.token });
  expect(response.body.errorCode).toBe("Success");
  return response.body.data as { id: string; url: string; problemGroupId: string };
}

async function giveConfig(problemId: string, committerId: string, files: Record<string, string>) {
  const em = t.orm.em.fork();
  const problem = await em.findOneOrFail(Problem, { id: problemId });
  const committer = await em.findOneOrFail(User, { id: committerId });
  const tree = Object.entries(files).map(([path, digest]) => ({ path, digest: digest.padEnd(64, "0"), size: 1 }));
  return commitVersion(em, { problem, committer, tree, languages: ["c", "python3"] });
}

describe("creating and reading problems", () => {
  test("who may create: problem.create (domain admins, the owner), not plain members", async () => {
    const cast = await makeCast(t);
    expect((await t.api.post(problemsOf(cast), { title: "x" })).status).toBe(401);
    expect((await t.api.post(problemsOf(cast), { title: "x" }, { token: cast.member.token })).body).toEqual({
      detail: "problem create Permission Denied.",
    });
    const created = await t.api.post(
      problemsOf(cast),
      { url: "a-plus-b", title: "A + B", content: "Add.", hidden: false },
      { token: cast.admin.token },
    );
    expect(created.body.data).toMatchObject({
      url: "a-plus-b",
      title: "A + B",
      content: "Add.",
      hidden: false,
      numSubmit: 0,
      numAccept: 0,
      languages: [],
      ownerId: cast.admin.user.id,
      domainId: cast.domain.id,
    });
    expect(created.body.data.problemGroupId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("urls are unique per domain, default to the id, and are never UUIDs", async () => {
    const cast = await makeCast(t);
    const other = await makeCast(t);
    await makeProblem(cast, { url: "same" });
    expect(
      (await t.api.post(problemsOf(other), { url: "same", title: "x" }, { token: other.owner.token })).body.errorCode,
    ).toBe("Success");
    const before = await countProblems(cast.domain.id);
    expect(
      (await t.api.post(problemsOf(cast), { url: "same", title: "x" }, { token: cast.owner.token })).body.errorCode,
    ).toBe("IntegrityError");
    expect(
      (
        await t.api.post(
          problemsOf(cast),
          { url: "123e4567-e89b-42d3-a456-426614174000", title: "x" },
          { token: cast.owner.token },
        )
      ).status,
    ).toBe(422);
    expect((await t.api.post(problemsOf(cast), { title: "" }, { token: cast.owner.token })).status).toBe(422);
    expect(await countProblems(cast.domain.id)).toBe(before);
    const plain = await makeProblem(cast);
    expect(plain.url).toBe(plain.id);
  });

  test("hidden problems exist only for problem.viewHidden, in lists and by url", async () => {
    const cast = await makeCast(t);
    const shown = await makeProblem(cast, { url: "shown" });
    await makeProblem(cast, { url: "secret", hidden: true });
    const memberList = await t.api.get(problemsOf(cast), { token: cast.member.token });
    expect(memberList.body.data.results.map((p: { url: string }) => p.url)).toEqual(["shown"]);
    expect(memberList.body.data.results[0].latestRecord).toBeNull();
    expect((await t.api.get(`${problemsOf(cast)}/secret`, { token: cast.member.token })).body.errorCode).toBe(
      "ProblemNotFoundError",
    );
    expect((await t.api.get(`${problemsOf(cast)}/secret`, { token: cast.admin.token })).body.data.hidden).toBe(true);
    expect((await t.api.get(problemsOf(cast), { token: cast.admin.token })).body.data.count).toBe(2);
    expect((await t.api.get(`${problemsOf(cast)}/${shown.id}`, { token: cast.member.token })).body.data.url).toBe(
      "shown",
    );
    expect((await t.api.get(problemsOf(cast), { token: cast.outsider.token })).body.errorCode).toBe(
      "DomainNotFoundError",
    );
  });

  test("problems are scoped to the domain in the path", async () => {
    const cast = await makeCast(t);
    const other = await makeCast(t);
    const problem = await makeProblem(other);
    await addMembership(t, other.domain, cast.owner, "user");
    const crossed = await t.api.get(`${problemsOf(cast)}/${problem.id}`, { token: cast.owner.token });
    expect(crossed.body.errorCode).toBe("ProblemNotFoundError");
  });
});

describe("changing and deleting problems", () => {
  test("PATCH is partial and needs problem.edit; url null resets to the id", async () => {
    const cast = await makeCast(t);
    const problem = await makeProblem(cast, { url: "old", content: "keep" });
    expect((await t.api.patch(`${problemsOf(cast)}/old`, { title: "x" }, { token: cast.member.token })).status).toBe(
      403,
    );
    const patched = await t.api.patch(
      `${problemsOf(cast)}/old`,
      { title: "New", url: null },
      { token: cast.admin.token },
    );
    expect(patched.body.data).toMatchObject({ title: "New", url: problem.id });
    expect(patched.body.data.content).toBeUndefined();
    expect((await t.api.get(`${problemsOf(cast)}/${problem.id}`, { token: cast.admin.token })).body.data.content).toBe(
      "keep",
    );
  });

  test("DELETE removes the problem and keeps its config versions for the records judged with them", async () => {
    const cast = await makeCast(t);
    const problem = await makeProblem(cast);
    const config = await giveConfig(problem.id, cast.owner.user.id, { "config.json": "aa" });
    expect((await t.api.delete(`${problemsOf(cast)}/${problem.id}`, { token: cast.member.token })).status).toBe(403);
    expect((await t.api.delete(`${problemsOf(cast)}/${problem.id}`, { token: cast.admin.token })).body.errorCode).toBe(
      "Success",
    );
    expect(await countProblems(cast.domain.id)).toBe(0);
    const kept = await t.orm.em.fork().findOneOrFail(ProblemConfig, { id: config.id });
    expect(kept.problem).toBeNull();
  });

  test("a domain that holds problems cannot be deleted", async () => {
    const cast = await makeCast(t);
    await makeProblem(cast);
    const response = await t.api.delete(`/domains/${cast.domain.id}`, { token: cast.owner.token });
    expect(response.body).toMatchObject({
      errorCode: "IntegrityError",
      errorMsg: "the domain still holds 1 problem(s); delete or move them first",
    });
  });
});

describe("POST …/problems/clone", () => {
  test("copies title, content, hidden flag, languages and the latest config across domains", async () => {
    const source = await makeCast(t);
    const target = await makeCast(t);
    await addMembership(t, source.domain, target.owner, "admin");
    const original = await makeProblem(source, { url: "graph", content: "Dijkstra", hidden: true });
    await giveConfig(original.id, source.owner.user.id, { "config.json": "c1" });
    await giveConfig(original.id, source.owner.user.id, { "config.json": "c2", "data/1.in": "d1" });
    const response = await t.api.post(
      `${problemsOf(target)}/clone`,
      { from_domain: source.domain.url, problems: ["graph"] },
      { token: target.owner.token },
    );
    expect(response.body.data.count).toBe(1);
    const clone = response.body.data.results[0];
    expect(clone).toMatchObject({
      url: "graph",
      title: "A + B",
      hidden: true,
      domainId: target.domain.id,
      ownerId: target.owner.user.id,
      problemGroupId: original.problemGroupId,
    });
    const em = t.orm.em.fork();
    const cloned = await em.findOneOrFail(Problem, { id: clone.id });
    expect(cloned.languages).toEqual(["c", "python3"]);
    expect(cloned.content).toBe("Dijkstra");
    const tree = await treeOf(em, (await latestConfig(em, cloned))!);
    expect(tree.map((f) => f.path)).toEqual(["config.json", "data/1.in"]);
    const withNewGroup = await t.api.post(
      `${problemsOf(target)}/clone`,
      { fromDomain: source.domain.id, problems: [original.id], newGroup: true },
      { token: target.owner.token },
    );
    expect(withNewGroup.body.errorCode).toBe("IntegrityError"); // "graph" is taken in the target now
  });

  test("the caller must be able to see the problems in the source domain (Horse's cross-tenant leak)", async () => {
    const secret = await makeCast(t, { hidden: true });
    const mine = await makeCast(t);
    const hidden = await makeProblem(secret, { url: "exam" });
    // mine.admin may create problems in its own domain, and is a plain user of the site.
    const stranger = await t.api.post(
      `${problemsOf(mine)}/clone`,
      { fromDomain: secret.domain.id, problems: [hidden.id] },
      { token: mine.admin.token },
    );
    expect(stranger.body.errorCode).toBe("DomainNotFoundError");
    await addMembership(t, secret.domain, mine.admin, "user"); // a member, but without problem.viewConfig
    const member = await t.api.post(
      `${problemsOf(mine)}/clone`,
      { fromDomain: secret.domain.id, problems: [hidden.id] },
      { token: mine.admin.token },
    );
    expect(member.body).toEqual({ detail: "problem view_config Permission Denied." });
    expect(await countProblems(mine.domain.id)).toBe(0);
  });

  test("all or nothing: one unknown problem clones none", async () => {
    const cast = await makeCast(t);
    const a = await makeProblem(cast);
    const before = await countProblems(cast.domain.id);
    const response = await t.api.post(
      `${problemsOf(cast)}/clone`,
      { fromDomain: cast.domain.id, problems: [a.id, "missing"] },
      { token: cast.owner.token },
    );
    expect(response.body.errorCode).toBe("ProblemNotFoundError");
    expect(await countProblems(cast.domain.id)).toBe(before);
    expect(
      (
        await t.api.post(
          `${problemsOf(cast)}/clone`,
          { fromDomain: cast.domain.id, problems: [] },
          { token: cast.owner.token },
        )
      ).status,
    ).toBe(422);
  });
});

describe("GET /problem_groups", () => {
  test("lists group ids for any logged-in user", async () => {
    const user = await createUser(t);
    expect((await t.api.get("/problem_groups")).status).toBe(401);
    const response = await t.api.get("/problem_groups?limit=2", { token: user.token });
    expect(response.body.data.count).toBeGreaterThan(0);
    expect(Object.keys(response.body.data.results[0])).toEqual(["id"]);
  });
});
