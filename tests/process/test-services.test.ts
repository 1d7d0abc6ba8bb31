import { expect, test } from "bun:test";
import { join } from "node:path";

// `bun run test` on a machine with no PostgreSQL server and no Redis running (the README's "Tests"): a run in
// a network namespace of its own, where nothing listens on 127.0.0.1 but what the run starts, and with no
// TEST_POSTGRES_URL or TEST_REDIS_URL. Its preload starts the embedded PostgreSQL and a redis-server the way
// `bun run start` does (tests/helpers/services.ts), an HTTP test file passes against them, and neither
// outlives the run. The other way, the system's services, is every other run's.
const ROOT = join(import.meta.dir, "../..");
const isRoot = process.getuid?.() === 0;
const canIsolate = isRoot && Bun.which("unshare") !== null && Bun.which("ip") !== null;

test.skipIf(!canIsolate && !process.env.CI)(
  "a run with nothing at 127.0.0.1:5432 or :6379 starts its own PostgreSQL and Redis, passes, and stops them",
  async () => {
    const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root" };
    if (process.env.CI) env.CI = process.env.CI;
    const run = Bun.spawn(
      [
        "unshare",
        "--net",
        "sh",
        "-c",
        // Loopback up (nothing listens on it), then a file whose app needs both services.
        "ip link set lo up && bun test --timeout 30000 tests/http/admin.test.ts",
      ],
      { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" },
    );
    const [out, err, code] = await Promise.all([
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
      run.exited,
    ]);
    const output = out + err;
    expect({ code, tail: output.slice(-1500) }).toMatchObject({ code: 0 });
    expect(output).toContain("test services: PostgreSQL embedded, Redis local at redis:");
    expect(output).toMatch(/\d+ pass/);
    expect(output).toContain(" 0 fail");
    // Stopped with the run: no PostgreSQL of its cluster, no redis-server on its port.
    const redis = /Redis local at redis:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
    expect(redis).toBeDefined();
    const left = (pattern: string) => Bun.spawnSync(["pgrep", "-f", pattern]).stdout.toString().trim();
    expect(left(`${ROOT}/.data/test/postgres`)).toBe("");
    expect(left(`redis-server 127.0.0.1:${redis}`)).toBe("");
  },
  180_000,
);
