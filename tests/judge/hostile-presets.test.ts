import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { REDACTED } from "../../src/core/redact";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { submit, submission } from "../helpers/records";
import { finalRecord, judgeEnv, judgerKey, listen, problemWithData, startJudge } from "../helpers/judging";

// The hostile corpora (judge-hostile.test.ts: verdict integrity; judge-secrets.test.ts: secrets) again,
// written in Python and Java and judged under the python3 and java presets, through the API, by the real
// judge in the real sandbox. A managed runtime brings its own ways in: threads and off-heap memory, a
// runtime that swallows errors, child processes through a shell, ctypes for raw system calls.
const UID_BASE = 69_000;
const JWT_SECRET = randomBytes(32).toString("hex");
const METRICS_TOKEN = `metrics-${randomBytes(12).toString("hex")}`;
const HIDDEN_ANSWER = `hidden-answer-${randomBytes(8).toString("hex")}`;
let t: TestApp;
let cast: Cast;
let judge: Awaited<ReturnType<typeof startJudge>>;
let key: { accessKeyId: string; secretAccessKey: string };
let secrets: string[];
const problems = { sum: "", hidden: "" };
const saved = { ...process.env };

const languages = (time: { python3: string; java: string }) => [
  { name: "python3", preset: "python3", caseDefault: { time: time.python3, memory: "64m", score: 100 } },
  { name: "java", preset: "java", caseDefault: { time: time.java, memory: "64m", score: 100 } },
];
const CASES = [{ executeInputFile: "1.in", executeOutputFile: "1.out", category: "secret" }];

beforeAll(async () => {
  t = await spawnApp({ JWT_SECRET, METRICS_TOKEN }, { configsWorker: true });
  cast = await makeCast(t);
  key = await judgerKey(t, cast);
  const env = judgeEnv(t, listen(t), key, UID_BASE, { JUDGE_CONCURRENCY: "2", JUDGE_OUTPUT_LIMIT_MB: "16" });
  // What `bun run start` would have around the judge: the server's secrets, which must never reach it.
  Object.assign(process.env, env, { JWT_SECRET, DATABASE_URL: t.config.databaseUrl!, METRICS_TOKEN });
  secrets = [JWT_SECRET, t.config.databaseUrl!, METRICS_TOKEN, key.secretAccessKey];
  judge = await startJudge(env);
  problems.sum = await problemWithData(
    t,
    cast,
    { languages: languages({ python3: "1s", java: "2s" }).map((l) => ({ ...l, cases: CASES })) },
    { "1.in": "1 2\n", "1.out": "3\n" },
  );
  // Walking the whole file system in a managed runtime takes a few seconds of CPU.
  problems.hidden = await problemWithData(
    t,
    cast,
    {
      languages: languages({ python3: "15s", java: "15s" }).map((l) => ({
        ...l,
        caseDefault: { ...l.caseDefault, memory: "256m" },
        cases: CASES,
      })),
    },
    { "1.in": "1 2\n", "1.out": `${HIDDEN_ANSWER}\n` },
  );
}, 90_000);
afterAll(async () => {
  await judge?.stop();
  await t.app.stop(true);
  await t.close();
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
});

type Record = { state: string; cases: { state: string; stdout: string; stderr: string }[] };
async function judged(problem: string, language: "python3" | "java", source: string) {
  const file = language === "java" ? "Main.java" : "main.py";
  const path = `/domains/${cast.domain.id}/problems/${problem}`;
  const created = (await submit(t, cast.member.token, path, submission(language, { [file]: source }))).body.data;
  await finalRecord(t, created.id, 180_000);
  const record = (await t.api.get(`/domains/${cast.domain.id}/records/${created.id}`, { token: cast.owner.token })).body
    .data as Record;
  return { record, text: JSON.stringify(record) };
}

const PY_SOLVE = "a, b = map(int, input().split())\nprint(a + b, flush=True)\n";
const PY_BURN = "import time\ndef burn(s):\n    t = time.process_time()\n    while time.process_time() - t < s: pass\n";
/** Solves the problem only if the probe got what it must never get: an escape is then accepted. */
const pySolveIf = (probe: string) =>
  `import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\ngot = False\n${probe}\nif got:\n    ${PY_SOLVE.replaceAll("\n", "\n    ")}\nelse:\n    print("denied")\n`;
const java = (imports: string, body: string, extra = "") =>
  `import java.io.*;\nimport java.nio.*;\nimport java.nio.file.*;\nimport java.util.*;\nimport java.util.concurrent.*;\n${imports}
public class Main {\n${extra}\n  public static void main(String[] args) throws Exception {\n${body}\n  }\n}\n`;
const JAVA_SOLVE =
  "Scanner in = new Scanner(System.in); long a = in.nextLong(), b = in.nextLong(); System.out.println(a + b); System.out.flush();";

const PYTHON: [string, string, string][] = [
  [
    "forging the runner's reply through /proc/1/fd and a pidfd, then killing it",
    `import os, signal, sys\n${PY_SOLVE}try:\n    os.pidfd_open(1)\nexcept OSError:\n    pass
for fd in range(8):
    try:
        with open(f"/proc/1/fd/{fd}", "w") as f: f.write('{"exitCode":0,"signal":0}')
    except OSError:
        pass
try:\n    os.kill(1, signal.SIGKILL)\nexcept OSError:\n    pass\nsys.exit(1)\n`,
    "runtime_error",
  ],
  ["ptrace of the runner through ctypes", pySolveIf("got = libc.ptrace(16, 1, 0, 0) == 0"), "wrong_answer"],
  [
    "the kernel's surface through ctypes: unshare, mount, bpf, io_uring, perf",
    pySolveIf(`buf = ctypes.create_string_buffer(256)
got = libc.unshare(0x10000000) == 0 or libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0
got = got or libc.syscall(321, 0, buf, 128) >= 0 or libc.syscall(425, 4, buf) >= 0 or libc.syscall(298, buf, 0, -1, -1, 0) >= 0`),
    "wrong_answer",
  ],
  [
    "8 × 50 MiB in forked children",
    `import os, time\nfor i in range(8):\n    if os.fork() == 0:\n        b = bytearray(50 << 20)\n        time.sleep(1)\n        os._exit(0)
for i in range(8): os.wait()\n${PY_SOLVE}`,
    "memory_limit_exceeded",
  ],
  [
    "8 × 50 MiB in threads",
    `import threading, time\nkept = []\ndef hog():\n    kept.append(bytearray(50 << 20))\n    time.sleep(1)
threads = [threading.Thread(target=hog) for _ in range(8)]\nfor th in threads: th.start()\nfor th in threads: th.join()\n${PY_SOLVE}`,
    "memory_limit_exceeded",
  ],
  [
    "600 MiB of files in /tmp",
    `mb = b"x" * (1 << 20)\nfor i in range(600):\n    with open(f"/tmp/fill-{i}", "wb") as f: f.write(mb)\n${PY_SOLVE}`,
    "memory_limit_exceeded",
  ],
  [
    "CPU spread over 4 children, each under the limit",
    `import os\n${PY_BURN}for i in range(4):\n    if os.fork() == 0:\n        burn(0.6)\n        os._exit(0)\nfor i in range(4): os.wait()\n${PY_SOLVE}`,
    "time_limit_exceeded",
  ],
  [
    "an endless line",
    `import sys\n${PY_SOLVE}chunk = "x" * 65536\nwhile True: sys.stdout.write(chunk)\n`,
    "output_limit_exceeded",
  ],
];

const JAVA: [string, string, string][] = [
  [
    "forging the runner's reply through /proc/1/fd, then killing it from a shell",
    java(
      "",
      `    ${JAVA_SOLVE}
    for (int fd = 0; fd < 8; fd++) try (FileOutputStream o = new FileOutputStream("/proc/1/fd/" + fd)) { o.write("{\\"exitCode\\":0}".getBytes()); } catch (IOException e) {}
    new ProcessBuilder("sh", "-c", "kill -9 1").start().waitFor();
    System.exit(1);`,
    ),
    "runtime_error",
  ],
  [
    "8 × 50 MiB of heap in threads",
    java(
      "",
      `    ExecutorService pool = Executors.newFixedThreadPool(8, r -> { Thread th = new Thread(r); th.setDaemon(true); return th; }); List<Future<byte[]>> held = new ArrayList<>();
    for (int i = 0; i < 8; i++) held.add(pool.submit(() -> { byte[] b = new byte[50 << 20]; Arrays.fill(b, (byte) 1); Thread.sleep(1000); return b; }));
    try { for (Future<byte[]> f : held) f.get(); } catch (ExecutionException e) { throw (Error) e.getCause(); }
    ${JAVA_SOLVE} System.exit(0);`,
    ),
    "memory_limit_exceeded",
  ],
  [
    "600 MiB off the heap in direct buffers",
    java(
      "",
      `    List<ByteBuffer> held = new ArrayList<>();
    for (int i = 0; i < 12; i++) { ByteBuffer b = ByteBuffer.allocateDirect(50 << 20); for (int j = 0; j < b.capacity(); j += 4096) b.put(j, (byte) 1); held.add(b); }
    ${JAVA_SOLVE}`,
    ),
    "memory_limit_exceeded",
  ],
  [
    "600 MiB of files in /tmp",
    java(
      "",
      `    byte[] mb = new byte[1 << 20];
    for (int i = 0; i < 600; i++) Files.write(Paths.get("/tmp/fill-" + i), mb);
    ${JAVA_SOLVE}`,
    ),
    "memory_limit_exceeded",
  ],
  [
    "CPU spread over 4 threads",
    java(
      "",
      `    for (int i = 0; i < 4; i++) { Thread th = new Thread(() -> { long x = 0; while (true) x++; }); th.setDaemon(true); th.start(); }
    Thread.sleep(60_000); ${JAVA_SOLVE}`,
    ),
    "time_limit_exceeded",
  ],
  [
    "CPU spread over 4 shells it starts",
    java(
      "",
      `    List<Process> burners = new ArrayList<>();
    for (int i = 0; i < 4; i++) burners.add(new ProcessBuilder("sh", "-c", "while :; do :; done").start());
    for (Process p : burners) p.waitFor();
    ${JAVA_SOLVE}`,
    ),
    "time_limit_exceeded",
  ],
  [
    "an endless line (PrintStream swallows the broken pipe)",
    java("", `    ${JAVA_SOLVE} String chunk = "x".repeat(65536); while (true) System.out.print(chunk);`),
    "output_limit_exceeded",
  ],
];

describe("hostile Python programs get the verdict a contest judge would give", () => {
  test.each(PYTHON)(
    "%s",
    async (_name, source, verdict) => {
      const { record } = await judged(problems.sum, "python3", source);
      expect(record.cases[0].state).toBe(verdict);
      expect(record.state).toBe("rejected");
    },
    240_000,
  );
});

describe("hostile Java programs get the verdict a contest judge would give", () => {
  test.each(JAVA)(
    "%s",
    async (_name, source, verdict) => {
      const { record } = await judged(problems.sum, "java", source);
      expect(record.cases[0].state).toBe(verdict);
      expect(record.state).toBe("rejected");
    },
    240_000,
  );
});

/** No secret, and nothing the redactor had to cut: the sandbox kept them out. */
const expectNoSecret = (text: string) => {
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(text).not.toContain(HIDDEN_ANSWER);
  expect(text).not.toContain(REDACTED);
};

const PY_WALK_PROC = `import os
def dump(path):
    try:
        with open(path, "rb") as f: data = f.read()
        print(f"{path}: " + data.replace(b"\\0", b"\\n").decode("latin-1"))
    except OSError:
        print(f"{path}: denied")
for pid in sorted((p for p in os.listdir("/proc") if p.isdigit()), key=int):
    for name in ("environ", "cmdline", "maps"): dump(f"/proc/{pid}/{name}")
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        print(f"/proc/{pid}/fd: denied")
        continue
    for fd in fds:
        link = f"/proc/{pid}/fd/{fd}"
        try:
            print(link, "->", os.readlink(link))
        except OSError:
            continue
        if int(pid) != os.getpid(): dump(link)
`;
const PY_WALK_FILES = `import os, socket
files = 0
for root, dirs, names in os.walk("/"):
    if root == "/": dirs[:] = [d for d in dirs if d not in ("proc", "sys")]
    for n in names:
        p = os.path.join(root, n)
        if os.path.islink(p) or not os.path.isfile(p): continue
        files += 1
        if any(k in p for k in (".out", "answer", "secret", ".env", "key", "config")):
            try:
                if os.path.getsize(p) > 65536: continue
                data = open(p, "rb").read()
            except OSError:
                continue
            if b"hidden-answer-" in data or b"JWT_SECRET" in data or b"DATABASE_URL" in data: print("FOUND", p)
def reach(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return "connected"
    except OSError:
        return "refused"
print(f"{files} files; postgres {reach(5432)}; redis {reach(6379)}")
`;
const JAVA_WALK_PROC = java(
  "",
  `    List<String> pids = new ArrayList<>();
    for (File f : new File("/proc").listFiles()) if (f.getName().matches("\\\\d+")) pids.add(f.getName());
    pids.sort(Comparator.comparingInt(Integer::parseInt));
    long self = ProcessHandle.current().pid();
    for (String pid : pids) {
      for (String n : new String[] { "environ", "cmdline", "maps" }) dump(Paths.get("/proc", pid, n));
      File[] fds = new File("/proc/" + pid + "/fd").listFiles();
      if (fds == null) { System.out.println("/proc/" + pid + "/fd: denied"); continue; }
      for (File fd : fds) {
        try { System.out.println(fd + " -> " + Files.readSymbolicLink(fd.toPath())); } catch (Exception e) { continue; }
        if (Long.parseLong(pid) != self) dump(fd.toPath());
      }
    }`,
  `  static void dump(Path p) {
    try { System.out.println(p + ": " + new String(Files.readAllBytes(p), "ISO-8859-1").replace('\\0', '\\n')); }
    catch (Exception e) { System.out.println(p + ": denied"); }
  }`,
);
const JAVA_WALK_FILES = java(
  "import java.net.*;\nimport java.nio.file.attribute.*;",
  `    int[] files = { 0 };
    Files.walkFileTree(Paths.get("/"), new SimpleFileVisitor<Path>() {
      public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) {
        return d.toString().equals("/proc") || d.toString().equals("/sys") ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
      }
      public FileVisitResult visitFile(Path p, BasicFileAttributes a) {
        if (!a.isRegularFile()) return FileVisitResult.CONTINUE;
        files[0]++;
        String s = p.toString();
        if (a.size() <= 65536 && (s.contains(".out") || s.contains("answer") || s.contains("secret") || s.contains(".env") || s.contains("key") || s.contains("config"))) {
          try { String data = new String(Files.readAllBytes(p), "ISO-8859-1");
            if (data.contains("hidden-answer-") || data.contains("JWT_SECRET") || data.contains("DATABASE_URL")) System.out.println("FOUND " + p); } catch (IOException e) {}
        }
        return FileVisitResult.CONTINUE;
      }
      public FileVisitResult visitFileFailed(Path p, IOException e) { return FileVisitResult.CONTINUE; }
    });
    System.out.println(files[0] + " files; postgres " + reach(5432) + "; redis " + reach(6379));`,
  `  static String reach(int port) {
    try (Socket s = new Socket()) { s.connect(new InetSocketAddress("127.0.0.1", port), 2000); return "connected"; }
    catch (IOException e) { return "refused"; }
  }`,
);

describe("hostile Python and Java programs looking for the server's secrets find nothing", () => {
  test.each([
    ["python3", PY_WALK_PROC],
    ["java", JAVA_WALK_PROC],
  ] as const)(
    "%s: /proc/<every pid>/environ, cmdline, maps and fd/",
    async (language, source) => {
      const { record, text } = await judged(problems.hidden, language, source);
      // Its own process only: the runs' init (PID 1) is hidden, not merely closed.
      expect(record.cases[0].stdout).toContain("/environ: PATH=");
      expect(record.cases[0].stdout).not.toMatch(/^\/proc\/1\//m);
      expectNoSecret(text);
    },
    240_000,
  );

  test.each([
    ["python3", PY_WALK_FILES],
    ["java", JAVA_WALK_FILES],
  ] as const)(
    "%s: test data, configs and keys anywhere it can read, and the databases",
    async (language, source) => {
      const { record, text } = await judged(problems.hidden, language, source);
      expect(record.cases[0].stdout).toMatch(/^\d+ files; postgres refused; redis refused\n$/);
      expectNoSecret(text);
    },
    240_000,
  );

  test("nothing of the judge's logs holds a secret", () => {
    for (const secret of secrets) expect(JSON.stringify(judge.logs)).not.toContain(secret);
  });
});
