/**
 * `bun run worker:judge [--server URL] [--mode queue|http]`: the sandboxed judge. Queue mode (default)
 * takes `record.judge` jobs from Redis; HTTP mode long-polls the API and needs nothing else. Both
 * speak the judge protocol over HTTP with a judger access key, like any judger (see README).
 */
import { join } from "node:path";
import { createLogger } from "../src/logger";
import { connectRedis, exitOnStartupError, StartupError } from "../src/runtime/connect";
import { onShutdown } from "../src/runtime/shutdown";
import { FileCache } from "../src/judge/file-cache";
import { JudgeApi, Refused } from "../src/judge/judge-api";
import { loadJudgeSettings } from "../src/judge/judge-settings";
import { startHttpSource, startQueueSource, type TaskSource } from "../src/judge/judge-worker";
import { ensureRunner, freshWorkDir, runSandboxed } from "../src/judge/sandbox";
import { SlotPool } from "../src/judge/slots";
import { detectCgroups, type CgroupHost } from "../src/judge/cgroups";

const API_WAIT_MS = 60_000;
const bootLogger = createLogger("info", { service: "worker:judge" });
try {
  const settings = loadJudgeSettings();
  const logger = createLogger(settings.logLevel, { service: "worker:judge", mode: settings.mode });
  if (process.getuid?.() !== 0) {
    throw new StartupError("the judge must start as root: it runs every program as an unprivileged slot uid, which only root can switch to (no program ever runs as root)");
  }
  if (!Bun.which("bwrap")) throw new StartupError("bubblewrap (bwrap) is not installed: run `bun run setup` (or `apt-get install bubblewrap`)");
  const cgroups = openCgroups();
  const runner = await ensureRunner(join(settings.workDir, "bin")).catch((error) => { throw new StartupError(String(error.message ?? error)); });
  const pool = await SlotPool.open(settings.workDir, settings.slotUidBase, settings.concurrency, { cgroups, diskBytes: settings.diskBytes });
  await selfTest(runner, pool, settings.diskBytes);
  const api = new JudgeApi(settings);
  const me = await waitForApi(api, settings.serverUrl);
  const deps = { api, cache: new FileCache(settings.cacheDir, settings.cacheMaxBytes), tools: { runner, settings }, logger };
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
    server: settings.serverUrl, judger: me.username, concurrency: settings.concurrency, slots: pool.slots.map((s) => s.uid),
    cgroups: `v${cgroups.version} at ${cgroups.where}`,
  });
} catch (error) {
  exitOnStartupError(bootLogger, error);
}

/** One trivial run in the sandbox: a machine that cannot sandbox must not take (and fail) records. */
function openCgroups(): CgroupHost {
  try {
    return detectCgroups();
  } catch (error) {
    throw new StartupError(error instanceof Error ? error.message : String(error));
  }
}

async function selfTest(runner: string, pool: SlotPool, tmpBytes: number): Promise<void> {
  const slot = await pool.acquire();
  try {
    const dir = await freshWorkDir(slot.root, "self-test", slot.uid);
    const limits = { cpuMs: 1000, wallMs: 5000, memoryKb: 64 * 1024, fileBytes: 1024, processes: 4 };
    const run = await runSandboxed({ runner, workDir: dir, argv: ["/usr/bin/true"], stdin: null, limits, uid: slot.uid, cgroup: slot.cgroup, tmpBytes });
    if (run.lost || run.exitCode !== 0) throw new StartupError(`the sandbox does not work on this machine: ${run.diagnostics || `exit ${run.exitCode}`}`);
  } finally {
    pool.release(slot);
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
      if (error instanceof Refused || Date.now() > deadline) throw new StartupError(`cannot use the API at ${serverUrl} with this judger key: ${reason}`);
      await Bun.sleep(1_000);
    }
  }
}
