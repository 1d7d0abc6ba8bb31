import { chmodSync, mkdtempSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { freePort } from "../../tests/helpers/ports";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestApp } from "../../tests/helpers/spawn-app";
import { TEST_JWT_SECRET } from "../../tests/helpers/spawn-app";

/**
 * The drill's processes, each started with the project's own command as an operator would start it: the
 * API (`bun src/main.ts`), the configs worker (`bun workers/configs.ts`) and the judge
 * (`bun --no-env-file workers/judge.ts`, with only a judge's settings). All share the database, Redis
 * queue prefix and blob store of the setup app `t`, which itself serves nothing.
 */
const ROOT = join(import.meta.dir, "../..");

export interface Proc {
  name: string;
  url?: string;
  /** CPU seconds used by every incarnation that has ended, plus the running one when read. */
  cpu(): Promise<number>;
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
  /** Started again with the same command and settings (an API on the same port). */
  restart(): Promise<void>;
}

/** utime + stime of a live process, in seconds (Linux /proc; 0 once it is gone). */
async function cpuOf(pid: number): Promise<number> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The settings the server's processes share (the drill's lease and reconciler are short to see recovery). */
export function serverEnv(t: TestApp, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/root",
    MODE: "development",
    HOST: "127.0.0.1",
    JWT_SECRET: TEST_JWT_SECRET,
    PUBLIC_URL: "http://127.0.0.1",
    DATABASE_URL: t.config.databaseUrl!,
    REDIS_URL: t.config.redisUrl,
    QUEUE_PREFIX: t.config.queuePrefix,
    STORAGE_DIR: t.config.storage.dir!,
    DATA_DIR: mkdtempSync(join(tmpdir(), "joj-drill-data-")),
    LOG_LEVEL: "warn",
    JUDGE_LEASE_SECONDS: "10",
    RECONCILE_EVERY_SECONDS: "2",
    RATE_REGISTRATIONS_PER_IP: "0",
    RATE_LOGIN_FAILURES_PER_IP: "0",
    PASSWORD_HASH_MAX_WAIT_MS: "600000",
    ...extra,
  };
}

/** Each JSON log line a process writes (its `msg` and fields), with the process's name. */
export type LogListener = (name: string, line: Record<string, unknown>) => void;
let logListener: LogListener = () => {};

/** Where the processes' log lines go from now on (the drill counts some: run-drill.ts). */
export function onLogLine(listener: LogListener): void {
  logListener = listener;
}

/** JSON lines of a stream, one at a time, to the listener; anything else is skipped. */
async function readLines(name: string, stream: ReadableStream<Uint8Array>) {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of stream) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines)
      if (line.startsWith("{"))
        try {
          logListener(name, JSON.parse(line));
        } catch {
          // not a log line
        }
  }
}

/** The drill's processes name their connections (`drill-api-1`…): PostgreSQL counts them per process. */
export const CONNECTION_PREFIX = "drill-";
function namedUrl(t: TestApp, name: string): string {
  const url = new URL(t.config.databaseUrl!);
  url.searchParams.set("application_name", `${CONNECTION_PREFIX}${name}`);
  return url.toString();
}

function spawnProc(name: string, argv: string[], env: Record<string, string>, ready: () => Promise<boolean>) {
  let child: ReturnType<typeof Bun.spawn>;
  let spent = 0;
  let stderr = "";
  const start = async () => {
    child = Bun.spawn(argv, { cwd: ROOT, env: { LOG_FORMAT: "json", ...env }, stdout: "pipe", stderr: "pipe" });
    void readLines(name, child.stdout as ReadableStream<Uint8Array>);
    void (async () => {
      for await (const chunk of child.stderr as ReadableStream<Uint8Array>)
        stderr = (stderr + new TextDecoder().decode(chunk)).slice(-4000);
    })();
    for (let i = 0; i < 600; i++) {
      if (await ready()) return;
      if (child.exitCode !== null) break;
      await Bun.sleep(100);
    }
    throw new Error(`${name} did not start: ${stderr}`);
  };
  const proc: Proc = {
    name,
    cpu: async () => spent + (child.exitCode === null ? await cpuOf(child.pid) : 0),
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null) return;
      spent += await cpuOf(child.pid);
      child.kill(signal);
      await child.exited;
    },
    async restart() {
      await start();
    },
  };
  return { proc, start };
}

export async function startApi(t: TestApp, name: string, env: Record<string, string> = {}): Promise<Proc> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const ready = () =>
    fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
  const settings = serverEnv(t, { PORT: String(port), DATABASE_URL: namedUrl(t, name), ...env });
  const { proc, start } = spawnProc(name, ["bun", "src/main.ts"], settings, ready);
  await start();
  return Object.assign(proc, { url });
}

export async function startConfigsWorker(t: TestApp, name: string, env: Record<string, string> = {}): Promise<Proc> {
  let up = false;
  const settings = serverEnv(t, { DATABASE_URL: namedUrl(t, name), ...env });
  const { proc, start } = spawnProc(name, ["bun", "workers/configs.ts"], settings, async () => {
    // A worker is up once it has scheduled its housekeeping: give it a moment, it answers no port.
    if (!up) await Bun.sleep(1500);
    up = true;
    return true;
  });
  await start();
  return proc;
}

export interface JudgeKey {
  accessKeyId: string;
  secretAccessKey: string;
}

/** A judge process with only a judge's settings (it refuses to start holding a server secret). */
export async function startJudge(
  t: TestApp,
  name: string,
  server: string,
  key: JudgeKey,
  uidBase: number,
  mode: "queue" | "http",
): Promise<Proc> {
  const scratch = mkdtempSync(join(tmpdir(), "joj-drill-judge-"));
  // mkdtemp makes it private; the slots' uids must pass through it to their directories.
  chmodSync(scratch, 0o711);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/root",
    JUDGE_SERVER_URL: server,
    JUDGER_ACCESS_KEY_ID: key.accessKeyId,
    JUDGER_SECRET_ACCESS_KEY: key.secretAccessKey,
    JUDGE_MODE: mode,
    ...(mode === "queue" ? { REDIS_URL: t.config.redisUrl, QUEUE_PREFIX: t.config.queuePrefix } : {}),
    JUDGE_WORK_DIR: join(scratch, "work"),
    JUDGE_CACHE_DIR: join(scratch, "cache"),
    JUDGE_SLOT_UID_BASE: String(uidBase),
    JUDGE_CONCURRENCY: "2",
    // "record judged" is an info line: the drill counts records judged to the end by more than one loop.
    LOG_LEVEL: "info",
  };
  let up = false;
  const { proc, start } = spawnProc(name, ["bun", "--no-env-file", "workers/judge.ts"], env, async () => {
    if (!up) await Bun.sleep(2000);
    up = true;
    return true;
  });
  await start();
  return proc;
}
