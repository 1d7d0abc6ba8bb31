import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { judgeableProblem, submission, submit } from "../helpers/records";

// The hot reads answer from one prepared statement for the caller and their standing, and one for the
// resource: what the entity path guaranteed, they must keep, from the very next request on.
let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
});
afterAll(() => t.close());

const sql = (text: string, values: unknown[] = []) => t.orm.em.fork().execute(text, values);
const setRole = (userId: string, role: string) =>
  sql("update domain_users set role = ? where domain_id = ? and user_id = ?", [role, cast.domain.id, userId]);
const problemPath = (ref: string) => `/domains/${cast.domain.id}/problems/${ref}`;

/** A member's record whose one case printed `stdout`, under no config (so no case is public): its path. */
async function memberRecordPrinting(stdout: string): Promise<string> {
  const problem = await judgeableProblem(t, cast);
  const id = (await submit(t, cast.member.token, problemPath(problem), submission("c"))).body.data.id as string;
  const cases = [{ state: "wrong_answer", score: 0, timeMs: 3, memoryKb: 900, returnCode: 0, stdout, stderr: "" }];
  await sql("update records set cases = ?::jsonb, config_id = null where id = ?", [JSON.stringify(cases), id]);
  return `/domains/${cast.domain.id}/records/${id}`;
}

test("a hidden problem exists for viewHidden holders only, by id and by url, and a demotion hides it at once", async () => {
  const created = await t.api.post(
    `/domains/${cast.domain.id}/problems`,
    { title: "草稿 · Entwurf", url: "draft-1", hidden: true },
    { token: cast.admin.token },
  );
  const id = created.body.data.id as string;
  for (const ref of [id, "draft-1"]) {
    expect((await t.api.get(problemPath(ref), { token: cast.admin.token })).body.data.title).toBe("草稿 · Entwurf");
    expect((await t.api.get(problemPath(ref), { token: cast.member.token })).body.errorCode).toBe(
      "ProblemNotFoundError",
    );
  }
  await setRole(cast.admin.user.id, "user");
  try {
    expect((await t.api.get(problemPath(id), { token: cast.admin.token })).body.errorCode).toBe("ProblemNotFoundError");
  } finally {
    await setRole(cast.admin.user.id, "admin");
  }
  expect((await t.api.get(problemPath(id), { token: cast.admin.token })).status).toBe(200);
});

test("the problem page's latest record is the caller's own newest, through the problem's route", async () => {
  const problem = await judgeableProblem(t, cast);
  expect((await t.api.get(problemPath(problem), { token: cast.member.token })).body.data.latestRecord).toBeNull();
  await submit(t, cast.member.token, problemPath(problem), submission("c"));
  const newest = (await submit(t, cast.member.token, problemPath(problem), submission("c"))).body.data.id;
  const page = (await t.api.get(problemPath(problem), { token: cast.member.token })).body.data;
  expect(page.latestRecord).toMatchObject({ id: newest, state: expect.any(String) });
  expect(page.latestRecord.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
  // Someone else's newest record is not the admin's.
  expect((await t.api.get(problemPath(problem), { token: cast.admin.token })).body.data.latestRecord).toBeNull();
});

test("case output: blank for the author without record.detail, shown to holders, and gone with a demotion", async () => {
  const path = await memberRecordPrinting("the hidden answer 42\n");
  expect((await t.api.get(path, { token: cast.member.token })).body.data.cases[0].stdout).toBe("");
  expect((await t.api.get(path, { token: cast.admin.token })).body.data.cases[0].stdout).toBe("the hidden answer 42\n");
  await setRole(cast.admin.user.id, "user");
  try {
    expect((await t.api.get(path, { token: cast.admin.token })).status).toBe(403);
  } finally {
    await setRole(cast.admin.user.id, "admin");
  }
});

test("a remembered token of a deactivated user is refused on the very next domain request", async () => {
  const problem = await judgeableProblem(t, cast);
  expect((await t.api.get(problemPath(problem), { token: cast.member.token })).status).toBe(200);
  await sql("update users set is_active = false where id = ?", [cast.member.user.id]);
  try {
    expect((await t.api.get(problemPath(problem), { token: cast.member.token })).status).toBe(401);
    expect((await t.api.get(`/domains/${cast.domain.id}/records`, { token: cast.member.token })).status).toBe(401);
  } finally {
    await sql("update users set is_active = true where id = ?", [cast.member.user.id]);
  }
});

test("an edited role and a changed site role apply on the next request, though permission sets are kept", async () => {
  const path = await memberRecordPrinting("的答案 42\n");
  const stdout = async () => (await t.api.get(path, { token: cast.member.token })).body.data.cases[0].stdout;
  expect(await stdout()).toBe("");
  const grant = (detail: boolean) =>
    sql(
      "update domain_roles set permission = jsonb_set(permission, '{record,detail}', to_jsonb(?::boolean)) where domain_id = ? and role = 'user'",
      [detail, cast.domain.id],
    );
  const hidden = (
    await t.api.post(
      `/domains/${cast.domain.id}/problems`,
      { title: "Verborgen", hidden: true },
      { token: cast.admin.token },
    )
  ).body.data.id as string;
  try {
    await grant(true);
    expect(await stdout()).toBe("的答案 42\n");
    await grant(false);
    expect(await stdout()).toBe("");
    // The site role is read with the standing: a member made site root sees hidden problems at once.
    expect((await t.api.get(problemPath(hidden), { token: cast.member.token })).body.errorCode).toBe(
      "ProblemNotFoundError",
    );
    await sql("update users set role = 'root' where id = ?", [cast.member.user.id]);
    expect((await t.api.get(problemPath(hidden), { token: cast.member.token })).status).toBe(200);
  } finally {
    await sql("update users set role = 'user' where id = ?", [cast.member.user.id]);
    await grant(false);
  }
  expect((await t.api.get(problemPath(hidden), { token: cast.member.token })).body.errorCode).toBe(
    "ProblemNotFoundError",
  );
});

test("the record page reads as the entity did: its fields, timestamps as Horse writes them, the code link", async () => {
  const problem = await judgeableProblem(t, cast);
  const id = (await submit(t, cast.member.token, problemPath(problem), submission("c"))).body.data.id as string;
  await sql(
    "update records set judged_at = '2026-11-24 05:06:07.891234+00', state = 'accepted', score = 100 where id = ?",
    [id],
  );
  const mine = (await t.api.get(`/domains/${cast.domain.id}/records/${id.toUpperCase()}`, { token: cast.member.token }))
    .body.data;
  expect(mine).toMatchObject({
    id,
    domainId: cast.domain.id,
    state: "accepted",
    score: 100,
    judgedAt: "2026-11-24T05:06:07.891+00:00",
    problemId: problem,
    committerId: cast.member.user.id,
    judgerId: null,
    problemSetId: null,
    history: [],
  });
  expect(mine.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
  expect(mine.codeUrl).toEndWith(`/api/v1/domains/${cast.domain.id}/records/${id}/code`);
  // A member without record.view gets Horse's 403; a record.view holder without record.code gets no link.
  expect((await t.api.get(`/domains/${cast.domain.id}/records/${id}`, { token: cast.guest.token })).status).toBe(403);
  await sql(
    "update domain_roles set permission = jsonb_set(jsonb_set(permission, '{record,view}', 'true'), '{record,code}', 'false') where domain_id = ? and role = 'guest'",
    [cast.domain.id],
  );
  try {
    const seen = (await t.api.get(`/domains/${cast.domain.id}/records/${id}`, { token: cast.guest.token })).body.data;
    expect(seen).toMatchObject({ id, codeUrl: null });
  } finally {
    await sql(
      "update domain_roles set permission = jsonb_set(permission, '{record,view}', 'false') where domain_id = ? and role = 'guest'",
      [cast.domain.id],
    );
  }
});

test("a judger's access key on a domain route: read with the standing, refused at once when wrong, deactivated or revoked", async () => {
  const created = await t.api.post(
    "/admin/judgers",
    { username: "评测机-Prüfer-C", password: "pw", email: "pruefer-c@judges.example.edu" },
    { token: cast.siteRoot.token },
  );
  const { accessKeyId, secretAccessKey } = created.body.data;
  const basic = (id: string, secret: string) => ({
    authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`,
  });
  const list = (headers: Record<string, string>) => t.api.get(`/domains/${cast.domain.id}/records`, { headers });
  const [judger] = (await sql("select user_id from access_keys where key_id = ?", [accessKeyId])) as {
    user_id: string;
  }[];
  await sql("update access_keys set last_used_at = null where key_id = ?", [accessKeyId]);
  const ok = await list(basic(accessKeyId, secretAccessKey));
  expect(ok.status).toBe(200);
  expect(ok.body.data).toEqual({ count: 0, results: [] });
  const [used] = (await sql("select last_used_at from access_keys where key_id = ?", [accessKeyId])) as {
    last_used_at: unknown;
  }[];
  expect(used.last_used_at).not.toBeNull();
  // The same refusal as on a route without a domain, and as for an unknown key.
  for (const headers of [
    basic(accessKeyId, `${secretAccessKey}x`),
    basic("jk_00000000000000000000", secretAccessKey),
  ]) {
    expect((await list(headers)).body).toEqual({ detail: "Invalid access key" });
    expect((await list(headers)).status).toBe(401);
  }
  // A domain that does not exist is still a 401 for a wrong key, not a 404 that would confirm the domain.
  expect((await t.api.get("/domains/no-such-domain/records", { headers: basic(accessKeyId, "wrong") })).status).toBe(
    401,
  );
  await sql("update users set is_active = false where id = ?", [judger.user_id]);
  try {
    expect((await list(basic(accessKeyId, secretAccessKey))).status).toBe(401);
  } finally {
    await sql("update users set is_active = true where id = ?", [judger.user_id]);
  }
  expect((await list(basic(accessKeyId, secretAccessKey))).status).toBe(200);
  await sql("delete from access_keys where key_id = ?", [accessKeyId]);
  expect((await list(basic(accessKeyId, secretAccessKey))).status).toBe(401);
});
