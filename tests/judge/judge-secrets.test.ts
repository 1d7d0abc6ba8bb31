import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { submit, submission } from "../helpers/records";
import { finalRecord, judgeEnv, judgerKey, listen, problemWithData, startJudge } from "../helpers/judging";
import { REDACTED } from "../../src/core/redact";

// A student looking for the server's secrets, through the API, judged by the real judge in the real
// sandbox. The judge runs in this process, whose environment holds every secret of the server as it
// did when `bun run start` handed its whole environment on: what reaches a sandbox from here shows.
const UID_BASE = 67_000;
const JWT_SECRET = randomBytes(32).toString("hex");
const METRICS_TOKEN = `metrics-${randomBytes(12).toString("hex")}`;
const OAUTH_SECRET = `oauth-${randomBytes(12).toString("hex")}`;
const HIDDEN_ANSWER = `hidden-answer-${randomBytes(8).toString("hex")}`;
let t: TestApp;
let cast: Cast;
let judge: Awaited<ReturnType<typeof startJudge>>;
let key: { accessKeyId: string; secretAccessKey: string };
let problem: string;
let secrets: string[];
const saved = { ...process.env };

const C = { name: "c", compileFiles: ["main.c"], compileArgs: ["gcc", "-O1", "-o", "main", "main.c"] };
const caseDefault = { time: "2s", memory: "64m", score: 100, executeFiles: ["main"], executeArgs: ["./main"] };
const CASES = [{ executeInputFile: "1.in", executeOutputFile: "1.out", category: "secret" }];

beforeAll(async () => {
  t = await spawnApp(
    { JWT_SECRET, METRICS_TOKEN, OAUTH_GITHUB_ID: "Iv1.secrets-test", OAUTH_GITHUB_SECRET: OAUTH_SECRET },
    { configsWorker: true },
  );
  cast = await makeCast(t);
  key = await judgerKey(t, cast);
  const env = judgeEnv(t, listen(t), key, UID_BASE, { JUDGE_CONCURRENCY: "2" });
  Object.assign(process.env, env, {
    JWT_SECRET,
    DATABASE_URL: t.config.databaseUrl!,
    METRICS_TOKEN,
    OAUTH_GITHUB_SECRET: OAUTH_SECRET,
    S3_SECRET_ACCESS_KEY: `s3-${JWT_SECRET.slice(0, 20)}`,
  });
  secrets = [
    JWT_SECRET,
    t.config.databaseUrl!,
    METRICS_TOKEN,
    OAUTH_SECRET,
    key.secretAccessKey,
    process.env.S3_SECRET_ACCESS_KEY!,
  ];
  judge = await startJudge(env);
  problem = await problemWithData(
    t,
    cast,
    { languages: [{ ...C, caseDefault, cases: CASES }] },
    { "1.in": "1 2\n", "1.out": `${HIDDEN_ANSWER}\n` },
  );
}, 90_000);
afterAll(async () => {
  await judge?.stop();
  await t.app.stop(true);
  await t.close();
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
});

/** The record as its owner (staff, every detail) sees it, as text. */
async function judged(
  files: Record<string, string>,
  problemId = problem,
): Promise<{ text: string; record: { state: string; cases: { stdout: string; stderr: string }[] } }> {
  const created = (
    await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${problemId}`, submission("c", files))
  ).body.data;
  await finalRecord(t, created.id, 120_000);
  const record = (await t.api.get(`/domains/${cast.domain.id}/records/${created.id}`, { token: cast.owner.token })).body
    .data;
  return { text: JSON.stringify(record), record };
}

/** No secret, and nothing the redactor had to cut: the sandbox kept them out, not the last line of defence. */
const expectNoSecret = (text: string) => {
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(text).not.toContain(REDACTED);
};

const WALK_PROC = `#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void dump(const char *path, FILE *out) { char buf[8192]; int fd = open(path, O_RDONLY); if (fd < 0) { fprintf(out, "%s: denied\\n", path); return; }
  ssize_t n; fprintf(out, "%s: ", path); while ((n = read(fd, buf, sizeof buf)) > 0) for (ssize_t i = 0; i < n; i++) fputc(buf[i] ? buf[i] : '\\n', out); fputc('\\n', out); close(fd); }
static void walk(FILE *out) { DIR *proc = opendir("/proc"); struct dirent *e; char p[512];
  while ((e = readdir(proc))) { if (atoi(e->d_name) <= 0) continue;
    const char *files[] = { "environ", "cmdline", "maps" };
    for (int i = 0; i < 3; i++) { snprintf(p, sizeof p, "/proc/%s/%s", e->d_name, files[i]); dump(p, out); }
    snprintf(p, sizeof p, "/proc/%s/fd", e->d_name); DIR *fds = opendir(p); if (!fds) { fprintf(out, "%s: denied\\n", p); continue; }
    struct dirent *f; while ((f = readdir(fds))) { char l[600], target[512] = ""; snprintf(l, sizeof l, "%s/%s", p, f->d_name);
      ssize_t n = readlink(l, target, sizeof target - 1); if (n > 0) { target[n] = 0; fprintf(out, "%s -> %s\\n", l, target); dump(l, out); } }
    closedir(fds); } closedir(proc); }
`;

describe("hostile programs looking for the server's secrets find nothing", () => {
  test("a program reading /proc/<every pid>/environ, cmdline, maps and fd/", async () => {
    const { text, record } = await judged({ "main.c": `${WALK_PROC}int main(void) { walk(stdout); return 0; }` });
    // Its own process only: the runs' init (PID 1) is hidden, not merely closed.
    expect(record.cases[0].stdout).toContain("/cmdline: ./main");
    expect(record.cases[0].stdout).not.toMatch(/^\/proc\/1\//m);
    expectNoSecret(text);
  }, 240_000);

  test("the same through the compiler: #include and .incbin of /proc/1/environ", async () => {
    const include = await judged({
      "main.c": `#include <stdio.h>\nconst char leaked[] = {\n#include "/proc/1/environ"\n};\nint main(void) { printf("%zu\\n", sizeof leaked); return 0; }`,
    });
    expectNoSecret(include.text);
    const incbin = await judged({
      "main.c": `#include <stdio.h>
__asm__(".section .rodata\\n.global leaked\\nleaked:\\n.incbin \\"/proc/1/environ\\"\\n.global leaked_end\\nleaked_end:\\n.previous\\n");
extern const char leaked[], leaked_end[];
int main(void) { fwrite(leaked, 1, leaked_end - leaked, stdout); printf("\\n%ld bytes\\n", (long)(leaked_end - leaked)); return 0; }`,
    });
    // The compile's sandbox has the same hidden init: both are compile errors that quote nothing of it.
    expect(include.record.cases[0]).toMatchObject({ state: "compile_error" });
    expect(include.record.cases[0].stderr).toContain("/proc/1/environ: No such file or directory");
    expect(incbin.record.cases[0]).toMatchObject({ state: "compile_error" });
    expectNoSecret(incbin.text);
  }, 240_000);

  test("a checker that reads /proc the same way and writes what it found as its message", async () => {
    const checker = {
      files: ["check.c"],
      compileArgs: ["gcc", "-O1", "-o", "check", "check.c"],
      executeArgs: ["./check"],
    };
    const peeking = await problemWithData(
      t,
      cast,
      { languages: [{ ...C, checker, caseDefault, cases: CASES }] },
      { "1.in": "1 2\n", "1.out": "3\n", "check.c": `${WALK_PROC}int main(void) { walk(stderr); return 0; }` },
    );
    const { text, record } = await judged(
      { "main.c": '#include <stdio.h>\nint main(void) { puts("3"); return 0; }' },
      peeking,
    );
    expect(record.cases[0].stderr).toContain("/cmdline: ./check");
    expect(record.cases[0].stderr).not.toMatch(/^\/proc\/1\//m);
    expectNoSecret(text);
  }, 240_000);

  test("a program looking for test data, configs and keys anywhere it can read, and for the databases", async () => {
    const { text, record } = await judged({
      "main.c": `#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
static int files = 0;
static void walk(const char *dir, int depth) { DIR *d = opendir(dir); if (!d || depth > 12) { if (d) closedir(d); return; } struct dirent *e;
  while ((e = readdir(d))) { if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue; char p[4096]; snprintf(p, sizeof p, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
    if (!strcmp(p, "/proc") || !strcmp(p, "/sys")) continue; struct stat s; if (lstat(p, &s) != 0) continue;
    if (S_ISDIR(s.st_mode)) { walk(p, depth + 1); continue; } if (!S_ISREG(s.st_mode)) continue; files++;
    if (strstr(p, ".out") || strstr(p, "answer") || strstr(p, "secret") || strstr(p, ".env") || strstr(p, "key") || strstr(p, "config")) {
      FILE *f = fopen(p, "r"); if (!f || s.st_size > 65536) { if (f) fclose(f); continue; } char buf[65536]; size_t n = fread(buf, 1, sizeof buf, f); fclose(f);
      if (memmem(buf, n, "hidden-answer-", 14) || memmem(buf, n, "JWT_SECRET", 10) || memmem(buf, n, "DATABASE_URL", 12)) printf("FOUND %s\\n", p); } }
  closedir(d); }
static const char *reach(int port) { int s = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(port);
  a.sin_addr.s_addr = inet_addr("127.0.0.1"); return connect(s, (struct sockaddr *)&a, sizeof a) == 0 ? "connected" : "refused"; }
int main(void) { walk("/", 0); printf("%d files; postgres %s; redis %s\\n", files, reach(5432), reach(6379)); return 0; }`,
    });
    expect(record.cases[0].stdout).toMatch(/^\d+ files; postgres refused; redis refused\n$/);
    expect(record.cases[0].stdout).not.toContain("FOUND");
    expect(text).not.toContain(HIDDEN_ANSWER);
    expectNoSecret(text);
  }, 240_000);

  test("nothing of the judge's logs or the server's logs holds a secret", () => {
    expectNoSecret(JSON.stringify(judge.logs));
    expectNoSecret(JSON.stringify(t.logs));
  });
});

describe("output that holds a secret anyway is cut before it is stored", () => {
  test("the judger's key printed by a program (a path nobody thought of) is redacted, with a warning naming the record", async () => {
    const { record } = await judged({
      "main.c": `#include <stdio.h>\nint main(void) { puts("key=${key.secretAccessKey}"); return 0; }`,
    });
    expect(record.cases[0].stdout).toBe(`key=${REDACTED}\n`);
    const warning = judge.logs.find((line) => line.msg === "a secret of the judge was cut out of a case's output");
    expect(warning).toMatchObject({ level: "warn", case: 0, hits: 1 });
    expect(warning?.recordId).toBeString();
  }, 240_000);
});
