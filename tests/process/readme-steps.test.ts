import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { TEST_REDIS_URL } from "../helpers/spawn-app";
import { freePort } from "../helpers/ports";

// The README's "A teacher's first ten minutes", run as written: its shell blocks, in order, by bash with
// curl and jq, against `bun run start` on a bare machine (the embedded PostgreSQL, the built-in judge). They
// end with the record accepted and a grade book holding the one student. Only the API's port differs (a
// free one), and the dates, moved a year past today so the deadline and the invitation are still ahead.
const ROOT = join(import.meta.dir, "../..");
const scratch = mkdtempSync(join(tmpdir(), "joj-readme-"));
// The embedded PostgreSQL's own user and the judge's slot uids pass through, as in a home directory.
chmodSync(scratch, 0o711);
const port = await freePort();
const child = Bun.spawn([process.execPath, "src/start.ts"], {
  cwd: ROOT,
  env: {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    DATA_DIR: join(scratch, "data"),
    HOST: "127.0.0.1",
    PORT: String(port),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: `joj-readme-${randomUUID()}`,
    JUDGE_WORK_DIR: join(scratch, "judge-work"),
    JUDGE_CACHE_DIR: join(scratch, "judge-cache"),
    JUDGE_SLOT_UID_BASE: "63400",
    JUDGE_CONCURRENCY: "2",
    LOG_FORMAT: "json",
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
  child.kill("SIGTERM");
  await child.exited;
  await drained;
  rmSync(scratch, { recursive: true, force: true });
});

/** The shell blocks of a README section, in order. */
function shellBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`## ${heading}`);
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
}

test("the README's first ten minutes, run by bash as written, end accepted with a grade book of students", async () => {
  for (let i = 0; i < 1200 && !output.includes("ready: API at"); i++) {
    if (child.exitCode !== null) break;
    await Bun.sleep(100);
  }
  expect(output).toContain("ready: API at");
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const blocks = shellBlocks(readme, "A teacher's first ten minutes");
  expect(blocks.length).toBeGreaterThanOrEqual(6);
  const nextYear = String(new Date().getFullYear() + 1);
  const script = blocks
    .join("\n")
    .replace("http://localhost:34765", `http://127.0.0.1:${port}`)
    .replace(/\b20\d\d-(\d\d-\d\dT)/g, `${nextYear}-$1`);
  const run = Bun.spawn(["bash", "-euo", "pipefail", "-c", script], {
    cwd: scratch,
    env: { PATH: process.env.PATH ?? "", HOME: scratch },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => run.kill("SIGKILL"), 120_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ]);
  clearTimeout(timer);
  expect({ code, stderr: stderr.slice(-2000) }).toMatchObject({ code: 0 });
  // Step 6's record, as jq printed it: accepted with full marks, each case judged.
  const record = stdout.slice(stdout.lastIndexOf('{\n  "state"'));
  const parsed = JSON.parse(record.slice(0, record.indexOf("\n}") + 2));
  expect(parsed).toMatchObject({ state: "accepted", score: 100 });
  expect(parsed.cases.map((c: { state: string }) => c.state)).toEqual(["accepted", "accepted"]);
  // The grade book: the header and the one student, not the teacher.
  const rows = readFileSync(join(scratch, "hw1.csv"), "utf8")
    .replace(/^\uFEFF/, "")
    .split("\r\n")
    .filter(Boolean);
  expect(rows).toHaveLength(2);
  expect(rows[1]).toContain("张伟");
  expect(rows[1].endsWith(",100")).toBe(true);
  expect(rows.join("\n")).not.toContain("ada");
}, 240_000);
