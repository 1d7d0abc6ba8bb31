import { expect } from "bun:test";
import { mkdtempSync } from "node:fs";
import { chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { FileCache } from "../../src/judge/cache/file-cache";
import { createLogger } from "../../src/core/logger";
import { guardedJudgeApi } from "../../src/judge/api/judge-api";
import { judgeSecrets, loadJudgeSettings, type JudgeSettings } from "../../src/judge/judge-settings";
import { startHttpSource, startQueueSource } from "../../src/judge/judge-worker";
import { ensureRunner } from "../../src/judge/sandbox/helpers";
import { SlotPool } from "../../src/judge/sandbox/slots";
import { detectCgroups } from "../../src/judge/sandbox/cgroups/cgroups";
import { archiveOf } from "./archive-builders";
import { makeCast, type Cast } from "./domain-factories";
import { recordRow } from "./records";
import { spawnApp, type TestApp } from "./spawn-app";

/** The app on a real port (judges are HTTP clients of it, like on another machine). */
export function listen(t: TestApp): string {
  t.app.listen({ hostname: "127.0.0.1", port: 0 });
  return `http://127.0.0.1:${t.app.server!.port}`;
}

/** A judger account made by the site root, with its access key. */
export async function judgerKey(
  t: TestApp,
  cast: Cast,
): Promise<{ id: string; username: string; accessKeyId: string; secretAccessKey: string }> {
  const username = `judge-${randomUUID().slice(0, 8)}`;
  const created = await t.api.post(
    "/admin/judgers",
    { username, password: "pw", email: `${username}@example.edu` },
    { token: cast.siteRoot.token },
  );
  expect(created.body.errorCode).toBe("Success");
  const me = await t.api.get("/users/me", {
    headers: {
      authorization: `Basic ${Buffer.from(`${created.body.data.accessKeyId}:${created.body.data.secretAccessKey}`).toString("base64")}`,
    },
  });
  return {
    id: me.body.data.id,
    username,
    accessKeyId: created.body.data.accessKeyId,
    secretAccessKey: created.body.data.secretAccessKey,
  };
}

/** The environment a judge process of this test app gets: its own work and cache directories and uids. */
export function judgeEnv(
  t: TestApp,
  server: string,
  key: { accessKeyId: string; secretAccessKey: string },
  uidBase: number,
  extra: Record<string, string> = {},
): Record<string, string> {
  const scratch = mkdtempSync(join(tmpdir(), "joj-judge-test-"));
  return {
    JUDGE_SERVER_URL: server,
    JUDGER_ACCESS_KEY_ID: key.accessKeyId,
    JUDGER_SECRET_ACCESS_KEY: key.secretAccessKey,
    REDIS_URL: t.config.redisUrl,
    QUEUE_PREFIX: t.config.queuePrefix,
    JUDGE_WORK_DIR: join(scratch, "work"),
    JUDGE_CACHE_DIR: join(scratch, "cache"),
    JUDGE_SLOT_UID_BASE: String(uidBase),
    JUDGE_CONCURRENCY: "4",
    JUDGE_OUTPUT_LIMIT_MB: "1",
    ...extra,
  };
}

/** The real judge (queue mode) in this process: real sandbox, real HTTP to the app, real Redis queue. */
export async function startJudge(env: Record<string, string>) {
  const settings: JudgeSettings = loadJudgeSettings(env, []);
  // mkdtemp makes the scratch directory private; slot uids must pass through it to their directories.
  await chmod(join(settings.workDir, ".."), 0o711);
  const runner = await ensureRunner(join(settings.workDir, "bin"));
  const pool = await SlotPool.open(settings.workDir, settings.slotUidBase, settings.concurrency, {
    cgroups: detectCgroups(),
    diskBytes: settings.diskBytes,
  });
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger("debug", {}, (line) => logs.push(JSON.parse(line)));
  // As workers/judge.ts builds it: the judge's secrets are cut out of every output it reports.
  const api = guardedJudgeApi(settings, judgeSecrets(settings, process.env), logger);
  const deps = {
    api,
    cache: new FileCache(settings.cacheDir, settings.cacheMaxBytes),
    tools: { runner, settings },
    logger,
  };
  // JUDGE_MODE=http: tasks long-polled from the API, as a judge on another machine takes them.
  const source =
    settings.mode === "http"
      ? startHttpSource(api, settings.concurrency, pool, deps, logger)
      : startQueueSource(settings, pool, deps);
  if ("ready" in source) await source.ready;
  return {
    settings,
    pool,
    logs,
    stop: async () => {
      await source.stop(0);
      await pool.close();
    },
  };
}

/** A problem whose config version holds `config` and the data files, uploaded as an archive. */
export async function problemWithData(
  t: TestApp,
  cast: Cast,
  config: object,
  files: Record<string, string>,
): Promise<string> {
  const created = await t.api.post(
    `/domains/${cast.domain.id}/problems`,
    { title: `P ${randomUUID().slice(0, 6)}` },
    { token: cast.owner.token },
  );
  const problem = created.body.data.id as string;
  await uploadConfig(t, cast, problem, config, files);
  return problem;
}

/** A new config version of the problem: `config` and the data files, uploaded as an archive. */
export async function uploadConfig(
  t: TestApp,
  cast: Cast,
  problem: string,
  config: object,
  files: Record<string, string>,
): Promise<void> {
  const form = new FormData();
  form.append(
    "file",
    new Blob([await archiveOf("zip", { "config.json": JSON.stringify(config), ...files })]),
    "config.zip",
  );
  const response = await t.app.handle(
    new Request(`http://localhost/api/v1/domains/${cast.domain.id}/problems/${problem}/configs`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${cast.owner.token}` },
    }),
  );
  expect(((await response.json()) as { errorCode: string }).errorCode).toBe("Success");
}

/** Waits for the record's final state (judging real programs takes seconds). */
export async function finalRecord(t: TestApp, id: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  // The state alone while waiting: the row's cases (a 100-case record's outputs) read 20 times a second
  // for each record in flight were PostgreSQL's and this process's work, charged to bench:judge's judge.
  for (;;) {
    const [{ state }] = await t.orm.em
      .fork()
      .execute<{ state: string }[]>("select state from records where id = ?", [id]);
    if (["accepted", "rejected", "failed"].includes(state) || Date.now() > until) return recordRow(t, id);
    await Bun.sleep(50);
  }
}

/**
 * What a judge test file starts with: the app (with its configs worker), a domain's cast, and a judge
 * process signed in with a judger's key, its slots' uids from `uidBase`; `close` stops them in order.
 */
export async function judgeStack(uidBase: number, settings: Record<string, string> = {}) {
  const t = await spawnApp({}, { configsWorker: true });
  const cast = await makeCast(t);
  const judge = await startJudge(judgeEnv(t, listen(t), await judgerKey(t, cast), uidBase, settings));
  return {
    t,
    cast,
    judge,
    async close() {
      await judge.stop();
      await t.app.stop(true);
      await t.close();
    },
  };
}
export type JudgeStack = Awaited<ReturnType<typeof judgeStack>>;
