import type { SQL } from "bun";
import { jwt } from "@elysiajs/jwt";
import { isoSql } from "../src/db/statements";
import { DETAIL_SQL, latestRecordSql } from "../src/modules/records/records.sql";
import { recordDetailView } from "../src/modules/records/record-detail-view";
import { toUserDetail, userProfileOf, type UserRow } from "../src/modules/users/users.service";
import {
  DOMAIN_GUEST_ROLE,
  hasDomainPermission,
  isJudger,
  keptPermissions,
  siteRoleGrants,
  type DomainPermission,
  type SiteRole,
} from "../src/modules/identity/permissions";
import { isoTime } from "../src/http/schemas";

/**
 * bench:reads' two floors: bare Bun.serve handlers over Bun.sql answering the hot reads with the app's
 * JSON, the JWT verified on every request (the app remembers verified tokens: auth.plugin.ts).
 *
 * - `tight`: the caller, their standing in the domain (membership, role permissions) and the resource in
 *   one statement, then the app's own permission rules (permissions.ts) applied to that row: the distance
 *   to the machine. Which records a list holds depends on `record.view`: a list reads the standing, then
 *   its page. Both in one statement (a lateral join, the page the caller's last answer called for) cost
 *   PostgreSQL more than the two (1,000-1,250 against 500-650 µs a page at 10k records).
 * - `framework`: the caller read, then the resource in a second statement with no permission checked, as
 *   this floor was before issue 57: what the framework alone costs beside the app's two round trips.
 */
export function floors(sql: SQL, secret: string, publicUrl: string) {
  const verifier = jwt({ name: "jwt", secret, alg: "HS256" }).decorator.jwt;
  const callerOf = async (request: Request) => {
    const claims = await verifier.verify(request.headers.get("authorization")!.slice(7), { algorithms: ["HS256"] });
    return claims && claims.category === "user" ? (claims.sub as string) : null;
  };
  return {
    tight: async (request: Request) => {
      const caller = await callerOf(request);
      if (!caller) return new Response("no", { status: 401 });
      return answer(await tightAnswer(sql, caller, new URL(request.url), publicUrl));
    },
    framework: async (request: Request) => {
      const caller = await callerOf(request);
      if (!caller) return new Response("no", { status: 401 });
      return answer(await frameworkAnswer(sql, caller, new URL(request.url)));
    },
  };
}

/** An answer's data, or `json`: data already written as JSON text by PostgreSQL, sent as it is. */
type Answer = { status: number; data?: unknown; json?: string };
const JSON_TYPE = { "content-type": "application/json" };
const answer = ({ status, data, json }: Answer) =>
  status !== 200
    ? Response.json({ errorCode: "Error", errorMsg: "no", data: null }, { status })
    : json !== undefined
      ? new Response(`{"errorCode":"Success","errorMsg":null,"data":${json}}`, { headers: JSON_TYPE })
      : Response.json({ errorCode: "Success", errorMsg: null, data });

// The caller (active) and their standing in the domain `$1`; the resource comes from a lateral `x`.
const STANDING = `select u.id as u_id, u.role as u_role, d.id as d_id, d.hidden as d_hidden, d.owner_id as d_owner,
    m.id as m_id, m.role as m_role, r.permission::text as r_permission, x.*
  from users u left join domains d on d.id = $1
  left join domain_users m on m.domain_id = d.id and m.user_id = u.id
  left join domain_roles r on r.domain_id = d.id and r.role = coalesce(m.role, '${DOMAIN_GUEST_ROLE}')`;
const WHERE_CALLER = "where u.id = $2 and u.is_active";
// The standing alone, for a list: its page is read after it (one statement over both cost PostgreSQL more).
const STANDING_ONLY = `${STANDING.replace(", x.*", "")} ${WHERE_CALLER}`;

// The problem page's JSON (problems.sql.ts, problemPageSql) with the caller's latest record; CALLER names them.
const pageJson = (callerColumn: string) => `json_build_object('id', p.id,
    'domainId', p.domain_id, 'url', p.url, 'title', p.title, 'hidden', p.hidden, 'numSubmit', p.num_submit,
    'numAccept', p.num_accept, 'ownerId', p.owner_id, 'problemGroupId', p.problem_group_id, 'content', p.content,
    'createdAt', ${isoSql("p.created_at")}, 'updatedAt', ${isoSql("p.updated_at")}, 'languages', p.languages,
    'latestRecord', ${latestRecordSql("p.id", false).replace("?", callerColumn)})::text as page`;
const PROBLEM_TIGHT = `${STANDING} left join lateral (select p.hidden as p_hidden, ${pageJson("u.id")}
  from problems p where p.id = $3 and p.domain_id = d.id) x on true ${WHERE_CALLER}`;

// DETAIL_SQL's columns, the record scoped to the standing's domain.
const RECORD_TIGHT = `${STANDING} left join lateral (${DETAIL_SQL.replace("r.id = ? and r.domain_id = ?", "r.id = $3 and r.domain_id = d.id")}) x on true ${WHERE_CALLER}`;

const LIST_COLUMNS = `r.created_at, r.updated_at, r.id, r.domain_id, r.state, r.language, r.score, r.time_ms,
  r.memory_kb, r.judged_at, r.late, r.problem_set_id, ps.title as problem_set_title, r.problem_id,
  p.title as problem_title, r.committer_id, u.username`;
const listPage = (condition: string, offset: number) =>
  `select (select coalesce(sum(records), 0)::int from record_counts where ${condition}) as count, l.*
   from (select 1) one left join lateral (select ${LIST_COLUMNS}
     from (select id, created_at from records where ${condition} order by created_at desc, id desc
           limit 100 offset ${offset}) page
     cross join lateral (select * from records where records.id = page.id limit 1) r
     left join problem_sets ps on ps.id = r.problem_set_id left join problems p on p.id = r.problem_id
     left join users u on u.id = r.committer_id) l on true`;

/** The standing of a tight row, by the app's own rules: visible domain, effective permissions. */
function standingOf(row: Record<string, unknown> | undefined) {
  if (!row?.d_id) return null;
  const siteRole = row.u_role as SiteRole;
  const isMember = row.m_id !== null;
  const visible = !row.d_hidden || isMember || siteRoleGrants(siteRole, "domain.view_hidden") || isJudger(siteRole);
  if (!visible) return null;
  const role = (row.m_role as string | null) ?? DOMAIN_GUEST_ROLE;
  const permissions = keptPermissions(siteRole, row.d_owner === row.u_id, role, row.r_permission);
  return { userId: row.u_id as string, holds: (p: DomainPermission) => hasDomainPermission(permissions, p) };
}

async function tightAnswer(sql: SQL, caller: string, url: URL, publicUrl: string): Promise<Answer> {
  const parts = url.pathname.split("/");
  if (url.pathname.endsWith("/users/me")) {
    const [user] = await sql`select * from users where id = ${caller} and is_active`;
    return user ? { status: 200, data: toUserDetail(userProfileOf(user as UserRow)) } : { status: 401 };
  }
  const domain = parts[4];
  if (parts[5] === "problems") {
    const [row] = await sql.unsafe(PROBLEM_TIGHT, [domain, caller, parts[6]]);
    if (!row) return { status: 401 };
    const standing = standingOf(row);
    if (!standing) return { status: 404 };
    if (!standing.holds("problem.view")) return { status: 403 };
    if (!row.page || (row.p_hidden && !standing.holds("problem.viewHidden"))) return { status: 404 };
    return { status: 200, json: row.page };
  }
  if (parts[5] === "records" && parts[6]) {
    const [row] = await sql.unsafe(RECORD_TIGHT, [domain, caller, parts[6]]);
    if (!row) return { status: 401 };
    const standing = standingOf(row);
    if (!standing) return { status: 404 };
    if (!row.id) return { status: 404 };
    const own = row.committerId === standing.userId;
    if (!own && !standing.holds("record.view")) return { status: 403 };
    // Without record.detail the app blanks the outputs of cases its config does not mark public; blanked here all.
    const cases = standing.holds("record.detail")
      ? row.cases
      : row.cases.map((c: { state: string }) => (c.state === "compile_error" ? c : { ...c, stdout: "", stderr: "" }));
    const codeUrl =
      own || standing.holds("record.code")
        ? `${publicUrl}/api/v1/domains/${row.domainId}/records/${row.id}/code`
        : null;
    return { status: 200, data: recordDetailView({ ...row, cases } as never, codeUrl) };
  }
  return tightList(sql, caller, domain, url.searchParams);
}

async function tightList(sql: SQL, caller: string, domain: string, q: URLSearchParams): Promise<Answer> {
  const [row] = await sql.unsafe(STANDING_ONLY, [domain, caller]);
  if (!row) return { status: 401 };
  const standing = standingOf(row);
  if (!standing) return { status: 404 };
  const where = ["domain_id = $1"];
  const values: unknown[] = [domain];
  for (const [param, column] of [
    ["problem", "problem_id"],
    ["submitterId", "committer_id"],
    ["problemSet", "problem_set_id"],
  ]) {
    const value = q.get(param);
    if (value) where.push(`${column} = $${values.push(value)}`);
  }
  if (!standing.holds("record.view")) where.push(`committer_id = $${values.push(caller)}`);
  const rows = await sql.unsafe(listPage(where.join(" and "), Number(q.get("offset") ?? 0)), values);
  return { status: 200, data: listOf([...rows]) };
}

const time = (value: unknown) => (value === null ? null : isoTime(value as Date));

/** The list's JSON as the app writes it (record-list.ts, listView). */
const listOf = (rows: Record<string, unknown>[]) => ({
  count: rows[0].count,
  results: rows
    .filter((r) => r.id !== null)
    .map((r) => ({
      createdAt: time(r.created_at),
      updatedAt: time(r.updated_at),
      id: r.id,
      domainId: r.domain_id,
      state: r.state,
      language: r.language,
      score: r.score,
      timeMs: r.time_ms,
      memoryKb: r.memory_kb,
      judgedAt: time(r.judged_at),
      late: r.late,
      problemSetId: r.problem_set_id,
      problemSetTitle: r.problem_set_title,
      problemId: r.problem_id,
      problemTitle: r.problem_title,
      committerId: r.committer_id,
      committerUsername: r.username,
    })),
});

/** The floor as it was: the user read, then the resource, nothing checked. */
async function frameworkAnswer(sql: SQL, caller: string, url: URL): Promise<Answer> {
  const [user] = await sql`select * from users where id = ${caller} and is_active`;
  if (!user) return { status: 401 };
  const parts = url.pathname.split("/");
  const domain = parts[4];
  if (url.pathname.endsWith("/users/me")) return { status: 200, data: toUserDetail(userProfileOf(user as UserRow)) };
  if (parts[5] === "problems") {
    const [row] = await sql.unsafe(
      `select p.hidden, ${pageJson("$3")} from problems p where p.id = $1 and p.domain_id = $2`,
      [parts[6], domain, caller],
    );
    return row ? { status: 200, json: row.page } : { status: 404 };
  }
  if (parts[6]) {
    const [row] = await sql.unsafe(
      DETAIL_SQL.replace("r.id = ? and r.domain_id = ?", "r.id = $1 and r.domain_id = $2"),
      [parts[6], domain],
    );
    return row ? { status: 200, data: recordDetailView(row as never, null) } : { status: 404 };
  }
  const q = url.searchParams;
  const where = ["domain_id = $1"];
  const values: unknown[] = [domain];
  for (const [param, column] of [
    ["problem", "problem_id"],
    ["submitterId", "committer_id"],
    ["problemSet", "problem_set_id"],
  ]) {
    const value = q.get(param);
    if (value) where.push(`${column} = $${values.push(value)}`);
  }
  const rows = await sql.unsafe(listPage(where.join(" and "), Number(q.get("offset") ?? 0)), values);
  return { status: 200, data: listOf([...rows]) };
}
