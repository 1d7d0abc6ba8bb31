import type Redis from "ioredis";
import type { Config } from "../settings/config";
import type { Logger } from "../core/logger";
import type { Orm } from "../db/orm";
import type { VersionInfo } from "../runtime/version";
import type { JudgerPresence } from "../runtime/judger-presence";
import type { BlobStore } from "../storage/blob-store";
import type { JobClient } from "../jobs/job-client";

/**
 * What the API's plugins and features are given: built once by main.ts (and the tests, through the same
 * function), passed to createApp (src/server/app.ts). It lives here, below the features, and not beside
 * app.ts, so that a route imports it downwards and no feature imports src/server/.
 */
export interface AppDeps {
  config: Config;
  orm: Orm;
  redis: Redis;
  logger: Logger;
  presence: JudgerPresence;
  version: VersionInfo;
  store: BlobStore;
  jobs: JobClient;
  /** True once SIGTERM arrived: /readyz turns 503 so load balancers stop sending traffic. */
  shuttingDown: () => boolean;
}
