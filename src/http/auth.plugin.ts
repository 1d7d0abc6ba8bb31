import { Elysia } from "elysia";
import { jwt } from "@elysiajs/jwt";
import type { AppDeps } from "../app";
import { HttpError, permissionDenied } from "../errors";
import { isJudger, isSiteRoot, siteRoleGrants, type SitePermission } from "../auth/permissions";
import type { TokenCodec } from "../auth/tokens";
import { contextPlugin } from "./context.plugin";
import { authenticate, type Actor, type AuthInput } from "./authenticate";
import { assertDomainVisible, assertPermitted, loadDomainAccess, type PermissionRule } from "../auth/access";

/** The token codec, built on @elysiajs/jwt so that the HTTP layer and the services share one signer. */
export function createTokenCodec(secret: string): TokenCodec {
  const signer = jwt({ name: "jwt", secret, alg: "HS256" }).decorator.jwt;
  return {
    sign: (claims) => signer.sign(claims as Parameters<typeof signer.sign>[0]),
    // Pinning the algorithm refuses `alg: none` and any key-confusion attempt.
    verify: async (token) => {
      const payload = await signer.verify(token, { algorithms: ["HS256"] });
      return payload ? (payload as Record<string, unknown>) : null;
    },
  };
}

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
  // One authentication per request, however many macros ask for the actor.
  const actors = new WeakMap<Request, Promise<Actor>>();
  const actorOf = (input: AuthInput): Promise<Actor> => {
    let pending = actors.get(input.request);
    if (!pending) {
      pending = authenticate(input, codec, config).then((actor) => {
        if (isJudger(actor.user.role)) presence.markSeen(actor.user.id);
        return actor;
      });
      actors.set(input.request, pending);
    }
    return pending;
  };

  return new Elysia({ name: "auth" })
    .use(contextPlugin(deps))
    .decorate("tokens", codec)
    .macro({
      auth: {
        async resolve({ request, em, cookie }) {
          return { actor: await actorOf({ request, em, cookie }) };
        },
      },
      sitePermission: (permission: SitePermission) => ({
        async resolve({ request, em, cookie }) {
          const actor = await actorOf({ request, em, cookie });
          if (!siteRoleGrants(actor.user.role, permission)) {
            const [scope, flag] = permission.split(".");
            throw permissionDenied(scope, flag);
          }
          return { actor };
        },
      }),
      domainPermission: (rule: PermissionRule) => ({
        async resolve({ request, em, cookie, params }) {
          const actor = await actorOf({ request, em, cookie });
          const access = await loadDomainAccess(em, actor.user, (params as Record<string, string>).domain);
          assertDomainVisible(access);
          assertPermitted(access, rule);
          return { actor, access };
        },
      }),
      domainVisible: {
        async resolve({ request, em, cookie, params }) {
          const actor = await actorOf({ request, em, cookie });
          const access = await loadDomainAccess(em, actor.user, (params as Record<string, string>).domain);
          assertDomainVisible(access);
          return { actor, access };
        },
      },
      domainAccess: {
        async resolve({ request, em, cookie, params }) {
          const actor = await actorOf({ request, em, cookie });
          return { actor, access: await loadDomainAccess(em, actor.user, (params as Record<string, string>).domain) };
        },
      },
      siteRoot: {
        async resolve({ request, em, cookie }) {
          const actor = await actorOf({ request, em, cookie });
          if (!isSiteRoot(actor.user.role)) throw new HttpError(403, "site root Permission Denied.");
          return { actor };
        },
      },
    });
}
