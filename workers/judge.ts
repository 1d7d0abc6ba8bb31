/**
 * `bun run worker:judge [--server URL] [--mode queue|http]`: the sandboxed judge. Queue mode (default)
 * takes `record.judge` jobs from Redis; HTTP mode long-polls the API and needs nothing else. Both
 * speak the judge protocol over HTTP with a judger access key, like any judger (docs/api.md, "The judge protocol").
 */
import { join } from "node:path";
import { createLogger } from "../src/core/logger";
import { connectRedis, exitOnStartupError, StartupError } from "../src/core/startup";
import { onShutdown } from "../src/core/shutdown";
import { FileCache } from "../src/judge/cache/file-cache";
import { guardedJudgeApi, type JudgeApi, Refused } from "../src/judge/api/judge-api";
import { judgeSecrets, loadJudgeSettings, serverSecretsIn } from "../src/judge/judge-settings";
import { startHttpSource, startQueueSource, type TaskSource } from "../src/judge/judge-worker";
import { ensureProbe, ensureRunner } from "../src/judge/sandbox/helpers";
import { selfCheck } from "../src/judge/sandbox/self-check";
import { SlotPool } from "../src/judge/sandbox/slots";
import { detectCgroups, type CgroupHost } from "../src/judge/sandbox/cgroups/cgroups";
import { presetReport } from "../src/judge/toolchains";

const API_WAIT_MS = 60_000;
const bootLogger = createLogger("info", { service: "worker:judge" });
try {
  const leaked = serverSecretsIn(process.env);
  if (leaked.length > 0) {
    throw new StartupError(
      `the judge's environment holds the server's secrets (${leaked.join(", ")}): a judge needs none ` +
        "of them, and keeps none. Start it with only its own settings " +
        '(docs/operations.md "Who gets which settings"); ' +
        "a .env file beside it is read by Bun unless it starts with `bun --no-env-file`.",
    );
  }
  const settings = loadJudgeSettings();
  const logger = createLogger(
    settings.logLevel,
    { service: "worker:judge", mode: settings.mode },
    { format: settings.logFormat },
  );
  if (process.getuid?.() !== 0) {
    throw new StartupError(
      "the judge must start as root: it runs every program as an unprivileged slot uid, which only root can " +
        "switch to (no program ever runs as root)",
    );
  }
  if (!Bun.which("bwrap"))
    throw new StartupError(
      "bubblewrap (bwrap) is not installed: run `bun run setup` (or `apt-get install bubblewrap`)",
    );
  const cgroups = openCgroups();
  const helpers = join(settings.workDir, "bin");
  const [runner, probe] = await Promise.all([ensureRunner(helpers), ensureProbe(helpers)]).catch((error) => {
    throw new StartupError(String(error.message ?? error));
  });
  const pool = await SlotPool.open(settings.workDir, settings.slotUidBase, settings.concurrency, {
    cgroups,
    diskBytes: settings.diskBytes,
  });
  const secrets = judgeSecrets(settings, process.env);
  await selfCheck({ runner, probe }, pool, settings.diskBytes, secrets).catch((error) => {
    throw new StartupError(String(error.message ?? error));
  });
  const api = guardedJudgeApi(settings, secrets, logger);
  const me = await waitForApi(api, settings.serverUrls.join(", "));
  const deps = {
    api,
    cache: new FileCache(settings.cacheDir, settings.cacheMaxBytes),
    tools: { runner, settings },
    logger,
  };
  let source: TaskSource;
  if (settings.mode === "queue") {
    await (await connectRedis(settings.redisUrl)).quit();
    const queue = startQueueSource(settings, pool, deps);
    source = queue;
    await queue.ready;
  } else {
    source = startHttpSource(api, settings.concurrency, pool, deps, logger);
  }
  onShutdown(logger, settings.stopGraceMs + 15_000, [
    { name: "judging", run: () => source.stop(settings.stopGraceMs) },
    { name: "slots", run: () => pool.close() },
  ]);
  logger.info("judge ready", {
    server: settings.serverUrls.join(", "),
    judger: me.username,
    concurrency: settings.concurrency,
    slots: pool.slots.map((s) => s.uid),
    cgroups: `v${cgroups.version} at ${cgroups.where}`,
  });
  const presets = presetReport();
  logger.info("language presets", { ready: presets.ready, missing: presets.missing });
} catch (error) {
  exitOnStartupError(bootLogger, error);
}

function openCgroups(): CgroupHost {
  try {
    return detectCgroups();
  } catch (error) {
    throw new StartupError(error instanceof Error ? error.message : String(error));
  }
}

/** The API may still be starting (compose, `bun run start`): wait for it a while; a refused key fails at once. */
async function waitForApi(api: JudgeApi, serverUrl: string): Promise<{ username: string }> {
  const deadline = Date.now() + API_WAIT_MS;
  for (;;) {
    try {
      return await api.whoami();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof Refused || Date.now() > deadline)
        throw new StartupError(`cannot use the API at ${serverUrl} with this judger key: ${reason}`);
      await Bun.sleep(1_000);
    }
  }
}
