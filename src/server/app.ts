import { Elysia } from "elysia";
import type Redis from "ioredis";
import type { Config } from "../settings/config";
import type { Logger } from "../core/logger";
import type { Orm } from "../db/orm";
import type { AppDeps } from "../http/app-deps";
import { JobClient } from "../jobs/job-client";
import { JudgerPresence } from "../runtime/judger-presence";
import type { VersionInfo } from "../runtime/version";
import { createBlobStore } from "../storage/create-blob-store";
import { errorsPlugin } from "../http/errors.plugin";
import { setPasswordHashing } from "../modules/identity/credentials/passwords";
import { contextPlugin } from "../http/context.plugin";
import { docsPlugin, DOCS_PATH, type RouteInfo } from "../http/docs.plugin";
import { healthRoutes } from "../http/health.routes";
import { ccsRoutes } from "../modules/ccs/ccs.routes";
import { metricsRoutes } from "../modules/metrics/metrics.routes";
import { authRoutes } from "../modules/identity/sessions/auth.routes";
import { oauthRoutes } from "../modules/identity/oauth/oauth.routes";
import { usersRoutes } from "../modules/users/users.routes";
import { adminRoutes } from "../modules/admin/admin.routes";
import { miscRoutes } from "../modules/misc/misc.routes";
import { domainsRoutes } from "../modules/domains/domains.routes";
import { membersRoutes } from "../modules/domains/members.routes";
import { rolesRoutes } from "../modules/domains/roles.routes";
import { invitationsRoutes } from "../modules/domains/invitations.routes";
import { problemGroupsRoutes, problemsRoutes } from "../modules/problems/problems.routes";
import { configsRoutes } from "../modules/problem-configs/configs.routes";
import { problemSetsRoutes } from "../modules/problem-sets/problem-sets.routes";
import { problemSetExtensionsRoutes } from "../modules/problem-sets/problem-set-extensions.routes";
import { clarificationsRoutes } from "../modules/clarifications/clarifications.routes";
import { submissionsRoutes } from "../modules/submissions/submissions.routes";
import { recordsRoutes } from "../modules/records/records.routes";
import { judgeRoutes } from "../modules/judging/protocol/judge.routes";
import { judgeTasksRoutes } from "../modules/judging/tasks/judge-tasks.routes";
import { scoreboardRoutes } from "../modules/scoreboard/scoreboard.routes";
import { recordEventsRoutes } from "../modules/record-events/record-events.routes";
import { rejudgeRoutes } from "../modules/judging/rejudge/rejudge.routes";
import { similarityRoutes } from "../modules/similarity/similarity.routes";
import { problemPackageRoutes } from "../modules/problem-packages/problem-packages.routes";
import { auditRoutes } from "../modules/audit/audit.routes";
import { runsRoutes } from "../modules/runs/runs.routes";
import { runsJudgeRoutes } from "../modules/runs/runs-judge.routes";

/** What main.ts and the tests bring to assembleApp: the connections and the process's own parts. */
export interface AppParts {
  config: Config;
  orm: Orm;
  redis: Redis;
  logger: Logger;
  version: VersionInfo;
  shuttingDown: () => boolean;
}

/**
 * The dependencies built from the parts (the judger presence, the blob store, the job client) and the
 * app over them: the one assembly both main.ts and the tests' spawnApp use.
 */
export function assembleApp(parts: AppParts): { app: App; deps: AppDeps } {
  const { redis, logger, config } = parts;
  const deps: AppDeps = {
    ...parts,
    presence: new JudgerPresence(redis, (error) => logger.warn("judger presence write failed", { error })),
    store: createBlobStore(config.storage),
    jobs: new JobClient(config),
  };
  return { app: createApp(deps), deps };
}

/** Composes the plugins and the feature modules; nothing else. */
export function createApp(deps: AppDeps) {
  setPasswordHashing({
    concurrency: deps.config.passwordHashConcurrency,
    maxWaitMs: deps.config.passwordHashMaxWaitMs,
  });
  const app: ReturnType<typeof compose> = compose(deps, () => app.routes);
  return app;
}

function compose(deps: AppDeps, routes: () => readonly RouteInfo[]) {
  // TypeBox's own cleaning: the default (exact-mirror) rebuilt a number sent for a nested object into
  // an empty object before validation, so `"permission": 5` passed as the defaults. Responses are still
  // cut to their schemas.
  return (
    new Elysia({ normalize: "typebox" })
      .use(errorsPlugin(deps.logger))
      .use(contextPlugin(deps))
      .use(docsPlugin(deps.version, routes))
      .use(healthRoutes(deps))
      .use(metricsRoutes(deps))
      // The ICPC Contest API (docs/contest-api.md): its own base URL, outside Horse's /api/v1.
      .use(ccsRoutes(deps))
      .get("/", ({ redirect }) => redirect(DOCS_PATH, 307))
      .get("/api", ({ redirect }) => redirect(DOCS_PATH, 307))
      .group("/api/v1", (api) =>
        api
          .use(authRoutes(deps))
          .use(oauthRoutes(deps))
          .use(usersRoutes(deps))
          .use(auditRoutes(deps))
          .use(adminRoutes(deps))
          .use(miscRoutes(deps))
          .use(domainsRoutes(deps))
          .use(membersRoutes(deps))
          .use(rolesRoutes(deps))
          .use(invitationsRoutes(deps))
          .use(problemsRoutes(deps))
          .use(problemGroupsRoutes(deps))
          .use(configsRoutes(deps))
          .use(problemSetsRoutes(deps))
          .use(problemSetExtensionsRoutes(deps))
          .use(clarificationsRoutes(deps))
          .use(submissionsRoutes(deps))
          .use(recordEventsRoutes(deps))
          .use(recordsRoutes(deps))
          .use(scoreboardRoutes(deps))
          .use(rejudgeRoutes(deps))
          .use(similarityRoutes(deps))
          .use(problemPackageRoutes(deps))
          .use(judgeRoutes(deps))
          .use(runsRoutes(deps))
          .use(runsJudgeRoutes(deps))
          .use(judgeTasksRoutes(deps)),
      )
  );
}

export type App = ReturnType<typeof createApp>;
