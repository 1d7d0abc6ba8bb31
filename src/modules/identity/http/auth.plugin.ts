import { Elysia } from "elysia";
import { jwt } from "@elysiajs/jwt";
import type { AppDeps } from "../../../http/app-deps";
import { HttpError, permissionDenied } from "../../../core/errors";
import { isJudger, isSiteRoot, siteRoleGrants, type SitePermission } from "../permissions";
import type { TokenCodec } from "../credentials/tokens";
import { contextPlugin, emOf } from "../../../http/context.plugin";
import { bodyLimitsOf, parseBody } from "../../../http/body-limits";
import { checkFailed } from "../../../http/errors.plugin";
import { assertStorableText } from "../../../http/input-hygiene";
import { actorFrom, credentialCookies, identify, type Actor } from "./authenticate";
import { clientIp } from "../../../http/client-ip";
import { BoundedMap } from "../../../runtime/bounded-map";
import { once } from "../../../runtime/once";
import * as users from "../../users/users.service";
import * as accessKeys from "../credentials/access-keys.service";
import { LEAN_STANDING, type ResourceRow, type StandingRead } from "../identity.sql";
import {
  loadDomainAccessWith,
  loadKeyAndDomainAccess,
  loadUserAndDomainAccess,
  principalOf,
  principalOfRow,
  type DomainAccess,
} from "../access";
import { assertDomainVisible, assertPermitted, type PermissionRule } from "../access-rules";

/**
 * The token codec, built on @elysiajs/jwt so that the HTTP layer and the services share one signer.
 * Verified tokens are remembered (VERIFIED_CACHE of them, until their `exp`): an HS256 check through
 * WebCrypto imports the key and verifies asynchronously, about a sixth of the CPU of a small
 * authenticated read, and the same token arrives again with every request of a session. Only the
 * exact token text verified before hits; its expiry is checked on every hit.
 */
export function createTokenCodec(secret: string): TokenCodec {
  const signer = jwt({ name: "jwt", secret, alg: "HS256" }).decorator.jwt;
  const verified = new BoundedMap<string, { payload: Record<string, unknown>; exp: number }>(VERIFIED_CACHE);
  return {
    sign: (claims) => signer.sign(claims as Parameters<typeof signer.sign>[0]),
    verify: async (token) => {
      const now = Date.now() / 1000;
      const hit = verified.get(token);
      if (hit && now < hit.exp) return { ...hit.payload };
      if (hit) verified.delete(token);
      // Pinning the algorithm refuses `alg: none` and any key-confusion attempt.
      const payload = await signer.verify(token, { algorithms: ["HS256"] });
      if (!payload) return null;
      const claims = payload as Record<string, unknown>;
      if (typeof claims.exp === "number" && (typeof claims.nbf !== "number" || claims.nbf <= now)) {
        verified.set(token, { payload: { ...claims }, exp: claims.exp });
      }
      return claims;
    },
  };
}

const VERIFIED_CACHE = 10_000;

/**
 * Declared per route, checked here and nowhere else:
 * - `auth: true`: a logged-in user (401 otherwise);
 * - `sitePermission: "domain.create"`: a site permission of the caller's current site role (403);
 * - `siteRoot: true`: the site root only (the admin API);
 * - `domainPermission: rule`: the `{domain}` of the path exists (`DomainNotFoundError`), is visible to
 *   the caller (a hidden domain does not exist for non-members), and the caller holds the rule there;
 * - `domainVisible: true`: the domain exists and is visible to the caller; what they may see in it
 *   depends on the resource (records: one's own, or all with `record.view`), decided by the service;
 * - `domainAccess: true`: the domain and the caller's standing in it, with no check (the service decides).
 */
export function authPlugin(deps: AppDeps) {
  const { config, presence } = deps;
  const codec = createTokenCodec(config.jwtSecret);
  // One authentication (and one domain standing) per request, however many hooks ask for it.
  const actors = new WeakMap<Request, Promise<Actor>>();
  const standings = new WeakMap<Request, Promise<StandingWith>>();
  const seen = (actor: Actor) => {
    if (isJudger(actor.siteRole)) presence.markSeen(actor.userId);
    return actor;
  };
  const identified = async ({ request }: Gate) =>
    identify({ request, cookie: await credentialCookies(request), em: emOf(request) }, codec, config);
  // The address goes on the actor and the domain standing, for the audit log the services write. It is
  // found when first read: asking the server for a request's peer costs more than most checks here.
  const ipOf = (g: Gate) => () => clientIp(g.request, g.server, config.trustedProxies);
  const actorOf = (g: Gate): Promise<Actor> => {
    let pending = actors.get(g.request);
    if (!pending) {
      const em = emOf(g.request);
      pending = identified(g).then(async (caller) => {
        if (caller.via === "access-key") {
          const user = await accessKeys.authenticateAccessKey(em, caller.keyId, caller.secret);
          return seen(actorFrom(caller, user && principalOf(user), ipOf(g)));
        }
        const row = await users.findActiveUserRow(em, caller.userId);
        return seen(actorFrom(caller, row && principalOfRow(em, row.id, String(row.role), () => row), ipOf(g)));
      });
      actors.set(g.request, pending);
    }
    return pending;
  };
  // The standing, and the route's resource when it reads one with it (`read`: StandingRead).
  const standingOf = (g: Gate, read?: StandingRead): Promise<StandingWith> => {
    let pending = standings.get(g.request);
    if (pending) return pending;
    const em = emOf(g.request);
    const domainRef = (g.params as Record<string, string>).domain;
    if (actors.has(g.request)) {
      pending = actorOf(g).then((actor) => loadDomainAccessWith(em, actor.user, domainRef, read));
    } else {
      // The caller (a token's user, or an access key and its user) and their standing in the domain come
      // from one statement; both are memoised.
      const both = identified(g).then(async (caller) => {
        const found =
          caller.via === "access-key"
            ? await loadKeyAndDomainAccess(em, caller.keyId, caller.secret, domainRef, read)
            : await loadUserAndDomainAccess(em, caller.userId, domainRef, read);
        return { actor: seen(actorFrom(caller, found?.principal ?? null, ipOf(g))), found: found! };
      });
      const actor = both.then((b) => b.actor);
      // The request may never ask for its actor; its failure is reported through the access.
      actor.catch(() => {});
      actors.set(g.request, actor);
      pending = both.then((b) => ({ access: b.found.access(), resource: b.found.resource }));
    }
    const address = once(ipOf(g));
    pending = pending.then((standing) => {
      Object.defineProperty(standing.access, "ip", { get: address, enumerable: true });
      return standing;
    });
    standings.set(g.request, pending);
    return pending;
  };
  const accessOf = (g: Gate) => standingOf(g).then((standing) => standing.access);

  // Each check is a parse hook as well as a resolve: on routes with a body it runs before the body is
  // read, so an anonymous or forbidden upload is refused without reading it. GET routes have no parse
  // phase, and resolve finds the answer memoised when parse already ran.
  const limits = bodyLimitsOf(config);
  // The hooks name the fields they read: Elysia infers from a hook's source what to prepare for every
  // request of the route, and a context handed on whole made it copy the headers and parse the cookies
  // and the query of each request (the cookies are parsed here, only when no Authorization header wins).
  const gate = <T>(check: (gate: Gate) => Promise<T>) => ({
    async parse({ request, params, server, contentType }: Gate & { contentType?: string }) {
      // The checks query by path parameters: what the database cannot take is a 422 before they run.
      assertStorableText("path", params);
      await check({ request, params, server }).catch((error) => {
        throw checkFailed(error);
      });
      // Checks passed: now the body is read, within its route's limit.
      return parseBody(request, contentType, limits);
    },
    resolve: ({ request, params, server }: Gate) => check({ request, params, server }),
  });
  const signedIn = async (g: Gate) => ({ actor: await actorOf(g) });
  const visibleDomain = async (g: Gate, lean = false) => {
    const access = lean ? (await standingOf(g, LEAN_STANDING)).access : await accessOf(g);
    assertDomainVisible(access);
    return { actor: await actorOf(g), access };
  };

  return new Elysia({ name: "auth" })
    .use(contextPlugin(deps))
    .decorate("tokens", codec)
    .macro({
      auth: gate(signedIn),
      sitePermission: (permission: SitePermission) =>
        gate(async (g) => {
          const { actor } = await signedIn(g);
          if (!siteRoleGrants(actor.siteRole, permission)) {
            const [scope, flag] = permission.split(".");
            throw permissionDenied(scope, flag);
          }
          return { actor };
        }),
      domainPermission: (rule: PermissionRule) =>
        gate(async (g) => {
          const standing = await visibleDomain(g);
          assertPermitted(standing.access, rule);
          return standing;
        }),
      // "lean": the route never asks for the caller's or the domain's entity (identity.sql.ts, LEAN_STANDING).
      domainVisible: (how: true | "lean") => gate((g) => visibleDomain(g, how === "lean")),
      // domainVisible or domainPermission, and the route's resource read in the standing's statement.
      domainRead: ({ rule, read }: { rule?: PermissionRule; read: (params: Record<string, string>) => StandingRead }) =>
        gate(async (g) => {
          const { access, resource } = await standingOf(g, read(g.params as Record<string, string>));
          assertDomainVisible(access);
          if (rule) assertPermitted(access, rule);
          // The read is the route's only check (the standing is read once): a check before it would leave none.
          if (!resource) throw new Error("domainRead must be the route's only domain check");
          return { actor: await actorOf(g), access, resource };
        }),
      domainAccess: gate(async (g) => {
        const access = await accessOf(g);
        return { actor: await actorOf(g), access };
      }),
      siteRoot: gate(async (g) => {
        const { actor } = await signedIn(g);
        if (!isSiteRoot(actor.siteRole)) throw new HttpError(403, "site root Permission Denied.");
        return { actor };
      }),
    });
}

type StandingWith = { access: DomainAccess; resource: ResourceRow | null };

/** What the checks read of a request: who (header or cookie) and where (the `{domain}` of the path). */
interface Gate {
  request: Request;
  params?: unknown;
  server?: Parameters<typeof clientIp>[1];
}
