import { Elysia, t } from "elysia";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { AppDeps } from "../../http/app-deps";
import { BizError, HttpError } from "../../core/errors";
import { authPlugin } from "../identity/http/auth.plugin";
import type { DomainAccess } from "../identity/access";
import { ProblemSet } from "../problem-sets/problem-set.entity";
import { findProblemSet, managesProblemSets } from "../problem-sets/problem-sets.service";
import { liveStreams } from "../record-events/live-streams";
import { type CcsContext, type Snapshot, contestOf, isContest, snapshotOf, stateOf, viewOf } from "./ccs-contest";
import { awardsOf, boardOf, scoreboardOf } from "./ccs-scoreboard";
import { parseToken, watchFeed } from "./ccs-feed";
import { shareKeyOf } from "./ccs-feed-reads";
import { CCS_ENDPOINT_SCHEMAS } from "./ccs.schemas";

/**
 * The ICPC CCS Contest API, version 2023-06, read-only (docs/contest-api.md), for a domain's ICPC (pass-fail) and
 * IOI (score) sets with an end: a contest's id is the set's id. Its base URL is `/api/ccs/domains/{domain}`; every call needs the
 * caller to see the set (a token, or HTTP basic auth with an access key as tools send it), and what it answers
 * is the public view unless the caller manages the domain's sets (problemSet.viewHidden): the admin view.
 * Errors are the spec's `{code, message}` (errors.plugin.ts answers so under this prefix, route checks included).
 */
const COLLECTIONS = ["judgement-types", "languages", "problems", "groups", "organizations", "teams"] as const;
const LIVE = ["submissions", "judgements", "runs", "clarifications", "awards"] as const;
type Collection = (typeof COLLECTIONS)[number] | (typeof LIVE)[number];
const Params = t.Object({ domain: t.String(), contest: t.String() });
// The collection is any text: one we do not serve is the spec's 404 (check-api.sh asks for `doesnt-exist`), not a
// validation error's 400.
const ObjectParams = t.Object({ domain: t.String(), contest: t.String(), collection: t.String(), id: t.String() });
const SERVED = new Set<string>([...COLLECTIONS, ...LIVE]);
function served(name: string): Collection {
  if (!SERVED.has(name)) throw new HttpError(404, `no endpoint ${name}: this API serves ${[...SERVED].join(", ")}`);
  return name as Collection;
}

/** The properties each endpoint's objects carry in this view (`/access`), read off their schemas. */
function accessOf(view: "public" | "admin") {
  const types = ["contest", "state", ...COLLECTIONS, ...LIVE];
  return {
    capabilities: [],
    endpoints: types.map((type) => {
      const properties = Object.keys((CCS_ENDPOINT_SCHEMAS[type] as unknown as { properties: object }).properties);
      return { type, properties: view === "admin" ? properties : properties.filter((p) => p !== "files") };
    }),
  };
}

export function ccsRoutes(deps: AppDeps) {
  const live = liveStreams(deps);
  const contextOf = (em: EntityManager, access: DomainAccess, set: ProblemSet): CcsContext => ({
    em,
    store: deps.store,
    access,
    set,
    view: viewOf(access),
    now: new Date(),
    publicUrl: deps.config.publicUrl,
  });
  const contest = async (em: EntityManager, access: DomainAccess, ref: string) => {
    const set = await findProblemSet(em, access, ref);
    if (!isContest(set))
      throw new BizError("ProblemSetNotFoundError", "this problem set is not an ICPC or IOI contest with an end");
    return contextOf(em, access, set);
  };
  const collection = async (ctx: CcsContext, name: Collection) => {
    const snapshot = await snapshotOf(ctx);
    if (name === "awards") return awardsOf(snapshot, await boardOf(ctx));
    return (snapshot[name] as Snapshot[typeof name]).map((object) => {
      const { uuid: _u, record: _r, ...rest } = object as { uuid?: string; record?: string };
      return rest;
    });
  };
  /** The spec's filters: any `…_id` property, an empty value matching none. */
  const filtered = (objects: Record<string, unknown>[], query: Record<string, string | undefined>) =>
    objects.filter((o) =>
      Object.entries(query).every(([key, value]) => !key.endsWith("_id") || (o[key] ?? "") === (value ?? "")),
    );

  return new Elysia({ name: "ccs-routes", prefix: "/api/ccs/domains/:domain", detail: { tags: ["contest api"] } })
    .use(authPlugin(deps))
    .get(
      "",
      () => ({
        version: "2023-06",
        version_url: "https://ccs-specs.icpc.io/2023-06/contest_api",
        provider: { name: "JOJ Horse-compatible judge" },
      }),
      {
        domainPermission: "problemSet.view",
        detail: { operationId: "ccs_api_info", summary: "Contest API information" },
      },
    )
    .get(
      "/contests",
      async ({ em, access }) => {
        const sets = await em.find(
          ProblemSet,
          { domain: access.domain, scoreboardRule: { $in: ["icpc", "ioi"] } },
          { orderBy: { createdAt: "asc" } },
        );
        return sets.filter((s) => isContest(s) && (!s.hidden || managesProblemSets(access))).map(contestOf);
      },
      {
        domainPermission: "problemSet.view",
        detail: { operationId: "ccs_list_contests", summary: "The domain's ICPC contests" },
      },
    )
    .get(
      "/contests/:contest",
      async ({ em, access, params }) => contestOf((await contest(em, access, params.contest)).set),
      {
        domainPermission: "problemSet.view",
        params: Params,
        detail: { operationId: "ccs_get_contest", summary: "A contest" },
      },
    )
    .get(
      "/contests/:contest/access",
      async ({ em, access, params }) => accessOf((await contest(em, access, params.contest)).view),
      {
        domainPermission: "problemSet.view",
        params: Params,
        detail: { operationId: "ccs_get_access", summary: "What this caller may read" },
      },
    )
    .get(
      "/contests/:contest/state",
      async ({ em, access, params }) => {
        const ctx = await contest(em, access, params.contest);
        return stateOf(ctx.set, ctx.now);
      },
      {
        domainPermission: "problemSet.view",
        params: Params,
        detail: { operationId: "ccs_get_state", summary: "The contest's state" },
      },
    )
    .get(
      "/contests/:contest/scoreboard",
      async ({ em, access, params }) => {
        const ctx = await contest(em, access, params.contest);
        return scoreboardOf(ctx, await snapshotOf(ctx), await boardOf(ctx));
      },
      {
        domainPermission: "problemSet.view",
        params: Params,
        detail: { operationId: "ccs_get_scoreboard", summary: "The scoreboard" },
      },
    )
    .get(
      "/contests/:contest/event-feed",
      async ({ em, access, params, query, request, server }) => {
        const ctx = await contest(em, access, params.contest);
        // The 2020-03 name: a client that sends it expects a resume this feed would not give (check-api.sh: 400).
        if (query.since_id !== undefined) throw new HttpError(400, "since_id is the old name: resume with since_token");
        const since = query.since_token === undefined ? null : parseToken(query.since_token);
        const kept = since && (await live.bus.changesSince(access.domainId, since.position)) !== null;
        if (query.since_token !== undefined && !kept)
          throw new HttpError(400, "since_token is not a token of this feed, or the feed no longer reaches back to it");
        const feed = {
          bus: live.bus,
          domainId: access.domainId,
          shareKey: shareKeyOf(ctx.set.id, ctx.view, access),
          context: async () => {
            const fresh = deps.orm.em.fork();
            return contextOf(fresh, access, await fresh.findOneOrFail(ProblemSet, { id: ctx.set.id }));
          },
        };
        return live.open("ndjson", access.userId, request, server, (sink, fail) =>
          watchFeed(feed, since, query.stream !== "false", sink, fail),
        );
      },
      {
        domainPermission: "problemSet.view",
        params: Params,
        query: t.Object({
          since_token: t.Optional(t.String({ maxLength: 64 })),
          since_id: t.Optional(t.String({ maxLength: 64 })),
          stream: t.Optional(t.String()),
        }),
        detail: {
          operationId: "ccs_event_feed",
          summary: "The event feed, NDJSON; stream=false ends after what is there",
        },
      },
    )
    .get(
      "/contests/:contest/:collection",
      async ({ em, access, params, query }) => {
        const name = served(params.collection);
        const ctx = await contest(em, access, params.contest);
        return filtered((await collection(ctx, name)) as Record<string, unknown>[], query);
      },
      {
        domainPermission: "problemSet.view",
        params: t.Object({ domain: t.String(), contest: t.String(), collection: t.String() }),
        detail: { operationId: "ccs_list_objects", summary: "A collection of the contest" },
      },
    )
    .get(
      "/contests/:contest/:collection/:id",
      async ({ em, access, params }) => {
        const name = served(params.collection);
        const ctx = await contest(em, access, params.contest);
        const found = ((await collection(ctx, name)) as { id: string }[]).find((o) => o.id === params.id);
        if (!found) throw new HttpError(404, `no ${params.collection} object ${params.id} in this contest`);
        return found;
      },
      {
        domainPermission: "problemSet.view",
        params: ObjectParams,
        detail: { operationId: "ccs_get_object", summary: "One object" },
      },
    );
}
