import { afterAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import type { App } from "../../src/server/app";
import { HttpClient } from "../helpers/http-client";
import { archiveOf } from "../helpers/archive-builders";
import { TEST_REDIS_URL } from "../helpers/spawn-app";
import { freePort } from "../helpers/ports";

// The README's first run, as a new user does it: `bun run start` with nothing configured (no
// DATABASE_URL: the embedded PostgreSQL; a DATA_DIR that does not exist yet), the built-in judge
// running; then the first person registers, sets up a problem and submits a C program.
const ROOT = join(import.meta.dir, "../..");
const scratch = mkdtempSync(join(tmpdir(), "joj-first-run-"));
// As a clone in a home directory is: the embedded PostgreSQL's own user and the judge's slot uids pass through.
chmodSync(scratch, 0o711);
const dataDir = join(scratch, "not", "yet", "there");
// Below the kernel's ephemeral ports: an outgoing connection cannot take them first (ports.ts).
const port = await freePort();
const databasePort = await freePort();
const base = `http://127.0.0.1:${port}`;
// The test client speaks to the real port: Requests for http://localhost/… go to the started server.
const api = new HttpClient({
  handle: (request: Request) => fetch(new Request(request.url.replace("http://localhost", base), request)),
} as unknown as App);

const FIRST_RUN_SECRETS = {
  JWT_SECRET: randomUUID().replaceAll("-", "").repeat(2),
  METRICS_TOKEN: `metrics-${randomUUID()}`,
  OAUTH_GITHUB_SECRET: `gh-${randomUUID()}`,
};
const child = Bun.spawn([process.execPath, "src/start.ts"], {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    PORT: String(port),
    EMBEDDED_POSTGRES_PORT: String(databasePort),
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: `joj-first-run-${randomUUID()}`,
    JUDGE_WORK_DIR: join(scratch, "judge-work"),
    JUDGE_CACHE_DIR: join(scratch, "judge-cache"),
    JUDGE_SLOT_UID_BASE: "63000",
    JUDGE_CONCURRENCY: "2",
    SHUTDOWN_TIMEOUT_MS: "10000",
    // Secrets of the server: they must reach no worker that does not need them.
    JWT_SECRET: FIRST_RUN_SECRETS.JWT_SECRET,
    METRICS_TOKEN: FIRST_RUN_SECRETS.METRICS_TOKEN,
    OAUTH_GITHUB_ID: "Iv1.first-run",
    OAUTH_GITHUB_SECRET: FIRST_RUN_SECRETS.OAUTH_GITHUB_SECRET,
  },
  stdout: "pipe",
  stderr: "pipe",
});
let output = "";
const drain = async (stream: ReadableStream<Uint8Array>) => {
  for await (const chunk of stream) output += new TextDecoder().decode(chunk);
};
const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);

afterAll(async () => {
  if (child.exitCode === null) child.kill("SIGKILL");
  await child.exited;
  rmSync(scratch, { recursive: true, force: true });
});

async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`${what}: not in time\n${output.slice(-4000)}`);
    await Bun.sleep(100);
  }
}

/** The environments of `bun run start`'s workers, read from /proc as the kernel holds them. */
function workerEnvironments(): Record<string, Record<string, string>> {
  const found: Record<string, Record<string, string>> = {};
  const children = Bun.spawnSync(["pgrep", "-P", String(child.pid)])
    .stdout.toString()
    .split("\n")
    .filter(Boolean);
  for (const pid of children) {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    const worker = /workers\/(\w+)\.ts/.exec(cmdline)?.[1];
    if (!worker) continue;
    const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
    found[worker] = Object.fromEntries(
      entries.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
    );
  }
  return found;
}

const decode = (token: string) => JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
const register = (username: string, email: string) =>
  api.post("/auth/register?responseType=json&cookie=false", { username, email, password: "first-run password" });

const CONFIG = {
  languages: [
    {
      name: "c",
      compileFiles: ["main.c"],
      compileArgs: ["gcc", "-O2", "-o", "main", "main.c"],
      caseDefault: { time: "1s", memory: "64m", score: 50, executeFiles: ["main"], executeArgs: ["./main"] },
      cases: [
        { executeInputFile: "1.in", executeOutputFile: "1.out" },
        { executeInputFile: "2.in", executeOutputFile: "2.out" },
      ],
    },
  ],
};
const SOLUTION = `#include <stdio.h>\nint main(void) { long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", a + b); return 0; }\n`;

test("bun run start on a bare machine: embedded database, the judge, peter is root, names register, C is accepted", async () => {
  await until("the built-in judge ready", () => (output.includes('"msg":"judge ready"') ? true : undefined), 120_000);
  expect(output).toContain("embedded PostgreSQL ready");
  expect(statSync(join(dataDir, "judger-key.json")).mode & 0o777).toBe(0o600);

  // Least privilege: the judge has its own settings only; the configs worker has the database but no API secret.
  const workers = workerEnvironments();
  expect(Object.keys(workers).sort()).toEqual(["configs", "judge"]);
  for (const name of ["JWT_SECRET", "DATABASE_URL", "METRICS_TOKEN", "OAUTH_GITHUB_SECRET", "OAUTH_GITHUB_ID"])
    expect(workers.judge).not.toHaveProperty(name);
  expect(workers.judge).toHaveProperty("JUDGER_SECRET_ACCESS_KEY");
  for (const name of ["JWT_SECRET", "METRICS_TOKEN", "OAUTH_GITHUB_SECRET", "JUDGER_SECRET_ACCESS_KEY"])
    expect(workers.configs).not.toHaveProperty(name);
  expect(workers.configs).toHaveProperty("DATABASE_URL");
  for (const secret of Object.values(FIRST_RUN_SECRETS)) expect(JSON.stringify(workers)).not.toContain(secret);

  const peter = await register("peter", "peter.parker@sjtu.edu.cn");
  expect(peter.body.errorCode).toBe("Success");
  expect(decode(peter.body.data.accessToken).role).toBe("root");
  for (const [name, email] of [
    ["Chris", "chris@umich.edu"],
    ["张伟", "zhangwei@sjtu.edu.cn"],
    ["José", "jose@upc.edu"],
  ]) {
    expect(decode((await register(name, email)).body.data.accessToken)).toMatchObject({ username: name, role: "user" });
  }
  const invisible = await register("\u200b", "zwsp@example.edu");
  expect(invisible.status).toBe(422);
  expect(invisible.body.detail[0].loc).toEqual(["body", "username"]);

  const token = peter.body.data.accessToken as string;
  const domain = (await api.post("/domains", { name: "程序设计 Programming", url: "ve280" }, { token })).body.data;
  expect(domain?.id).toBeString();
  const problem = (await api.post(`/domains/${domain.id}/problems`, { title: "A + B" }, { token })).body.data;
  const archive = new FormData();
  const files = {
    "config.json": JSON.stringify(CONFIG),
    "1.in": "1 2\n",
    "1.out": "3\n",
    "2.in": "40 2\n",
    "2.out": "42\n",
  };
  archive.append("file", new Blob([await archiveOf("zip", files)]), "config.zip");
  const uploaded = await api.post(`/domains/${domain.id}/problems/${problem.id}/configs`, undefined, {
    token,
    multipart: archive,
  });
  expect(uploaded.body.errorCode).toBe("Success");

  const submission = new FormData();
  submission.set("language", "c");
  submission.append("files", new File([SOLUTION], "main.c"));
  const submitted = await api.post(`/domains/${domain.id}/problems/${problem.id}`, undefined, {
    token,
    multipart: submission,
  });
  expect(submitted.body.errorCode).toBe("Success");
  const recordId = submitted.body.data.id as string;
  const record = await until(
    "the record judged",
    async () => {
      const view = (await api.get(`/domains/${domain.id}/records/${recordId}`, { token })).body.data;
      return ["accepted", "rejected", "failed"].includes(view?.state) ? view : undefined;
    },
    90_000,
  );
  expect(record).toMatchObject({ state: "accepted", score: 100 });

  child.kill("SIGTERM");
  expect(await child.exited).toBe(0);
  await drained;
  expect(existsSync(join(dataDir, "postgres"))).toBe(true);
}, 240_000);
