import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { submission } from "../helpers/records";
import { judgeEnv, judgerKey, judgeStack, problemWithData, startJudge, type JudgeStack } from "../helpers/judging";

// Runs (docs/api.md "Runs") judged by the real judge in the real sandbox: C, Python and Java on the user's
// own input, a loop, a crash, a compile error, the samples compared; the hidden case's files deleted from
// the store before any run, so a judge that read one would fail; then the same through a judge in HTTP mode.
const UID_BASE = 75_000;
let stack: JudgeStack;
let problem: string;

const HIDDEN_IN = "hidden-input 7 7\n";
const HIDDEN_OUT = "hidden-answer 14\n";
const CONFIG = {
  languageDefault: {
    cases: [
      {
        category: "sample",
        executeInputFile: "data/1.in",
        executeOutputFile: "data/1.out",
        time: "1s",
        memory: "256m",
      },
      {
        category: "secret",
        executeInputFile: "data/2.in",
        executeOutputFile: "data/2.out",
        time: "1s",
        memory: "256m",
      },
      {
        category: "sample",
        executeInputFile: "data/3.in",
        executeOutputFile: "data/3.out",
        time: "1s",
        memory: "256m",
      },
    ],
  },
  languages: [
    { name: "c", preset: "c" },
    { name: "python3", preset: "python3" },
    { name: "java", preset: "java" },
  ],
};
const DATA = {
  "data/1.in": "1 2\n",
  "data/1.out": "3\n",
  "data/2.in": HIDDEN_IN,
  "data/2.out": HIDDEN_OUT,
  "data/3.in": "20 22\n",
  "data/3.out": "42\n",
};
const SUM = {
  c: { "main.c": '#include <stdio.h>\nint main(){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);return 0;}\n' },
  python3: {
    "main.py": "import sys\na, b = map(int, input().split())\nprint(a + b)\nprint('debug', file=sys.stderr)\n",
  },
  java: {
    "Main.java":
      "import java.util.Scanner;\npublic class Main { public static void main(String[] x) { " +
      "Scanner s = new Scanner(System.in); System.out.println(s.nextLong() + s.nextLong()); } }\n",
  },
};
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

beforeAll(async () => {
  stack = await judgeStack(UID_BASE, { JUDGE_CONCURRENCY: "2", JUDGE_COMPILE_SECONDS: "120" });
  problem = await problemWithData(stack.t, stack.cast, CONFIG, DATA);
  // The hidden case's bytes are gone from the store: reading them would fail the judging.
  for (const text of [HIDDEN_IN, HIDDEN_OUT]) await stack.t.store.delete(sha(text));
}, 120_000);
afterAll(() => stack.close());

const domain = () => `/domains/${stack.cast.domain.id}`;

async function run(language: keyof typeof SUM | string, files: Record<string, string>, fields: Record<string, string>) {
  const form = submission(language, files);
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  const started = await stack.t.api.post(`${domain()}/problems/${problem}/runs`, undefined, {
    token: stack.cast.member.token,
    multipart: form,
  });
  expect(started.body.errorCode).toBe("Success");
  return finished(started.body.data.id);
}

async function finished(id: string) {
  for (let i = 0; i < 1200; i++) {
    const view = (await stack.t.api.get(`${domain()}/runs/${id}`, { token: stack.cast.member.token })).body.data;
    if (view.state === "done" || view.state === "failed") return view;
    await Bun.sleep(100);
  }
  throw new Error(`run ${id} did not finish`);
}

describe("a run on the user's own input", () => {
  for (const language of ["c", "python3", "java"] as const) {
    test(`${language}: the program's output, time and memory`, async () => {
      const view = await run(language, SUM[language], { input: "40 2\n" });
      expect(view).toMatchObject({ state: "done", compileOutput: "", mode: "input" });
      expect(view.results).toHaveLength(1);
      const [result] = view.results;
      expect(result).toMatchObject({
        verdict: "accepted",
        stdout: "42\n",
        exitCode: 0,
        signal: null,
        sampleIndex: null,
      });
      expect(result.timeMs).toBeGreaterThanOrEqual(0);
      expect(result.memoryKb).toBeGreaterThan(0);
      if (language === "python3") expect(result.stderr).toContain("debug");
    }, 120_000);
  }

  test("a loop is time_limit_exceeded at the first case's limit; an exit status and a crash are told apart", async () => {
    const loop = await run("c", { "main.c": "int main(){volatile long i=0;for(;;)i++;}\n" }, { input: "" });
    expect(loop.results[0]).toMatchObject({ verdict: "time_limit_exceeded", exitCode: null });
    expect(loop.results[0].timeMs).toBeGreaterThanOrEqual(1000);
    const exit3 = await run(
      "c",
      { "main.c": '#include <stdio.h>\nint main(){puts("bye");return 3;}\n' },
      { input: "" },
    );
    expect(exit3.results[0]).toMatchObject({ verdict: "runtime_error", stdout: "bye\n", exitCode: 3, signal: null });
    const crash = await run("c", { "main.c": "int main(){volatile int *p=0;return *p;}\n" }, { input: "" });
    expect(crash.results[0]).toMatchObject({ verdict: "runtime_error", exitCode: null, signal: 11 });
  }, 120_000);

  test("output that fights back: 10 MB is cut at the output limit, NUL and invalid UTF-8 come back as text", async () => {
    const flood = await run(
      "python3",
      { "main.py": "import sys\nsys.stdout.write('x' * 10_000_000)\n" },
      { input: "" },
    );
    expect(flood.results[0].verdict).toBe("output_limit_exceeded");
    expect(flood.results[0].stdout.length).toBeLessThan(70 * 1024);
    const bytes = await run(
      "c",
      { "main.c": '#include <stdio.h>\nint main(){fwrite("a\\0b\\377\\n",1,5,stdout);}\n' },
      { input: "" },
    );
    expect(bytes.results[0].verdict).toBe("accepted");
    expect(bytes.results[0].stdout.startsWith("a")).toBe(true);
    expect(bytes.results[0].stdout).not.toContain("\u0000");
  }, 120_000);

  test("a compile error shows the compiler's output and no results", async () => {
    const view = await run("c", { "main.c": "int main(){ return undeclared_name; }\n" }, { input: "1 2" });
    expect(view.state).toBe("done");
    expect(view.compileOutput).toContain("undeclared_name");
    expect(view.results).toEqual([]);
  }, 120_000);
});

describe("a run on the samples", () => {
  test("each sample compared with its answer; the hidden case never read", async () => {
    const right = await run("c", SUM.c, { samples: "true" });
    expect(
      right.results.map((r: { sampleIndex: number; verdict: string; stdout: string }) => [
        r.sampleIndex,
        r.verdict,
        r.stdout,
      ]),
    ).toEqual([
      [0, "accepted", "3\n"],
      [2, "accepted", "42\n"],
    ]);
    const wrong = await run(
      "python3",
      { "main.py": "a, b = map(int, input().split())\nprint(a - b)\n" },
      { samples: "true" },
    );
    expect(wrong.results.map((r: { verdict: string }) => r.verdict)).toEqual(["wrong_answer", "wrong_answer"]);
    // Nothing of the hidden case reached the judge's cache.
    for (const text of [HIDDEN_IN, HIDDEN_OUT])
      expect(existsSync(join(stack.judge.settings.cacheDir, sha(text).slice(0, 2), sha(text)))).toBe(false);
  }, 120_000);

  test("runs leave no record, count or board behind", async () => {
    const em = stack.t.orm.em.fork();
    expect(await em.execute("select count(*)::int as n from records")).toEqual([{ n: 0 }]);
    const seen = await stack.t.api.get(`${domain()}/problems/${problem}`, { token: stack.cast.owner.token });
    expect([seen.body.data.numSubmit, seen.body.data.numAccept]).toEqual([0, 0]);
  });
});

describe("a judge in HTTP mode", () => {
  test("takes runs from next_task and judges them under /runs", async () => {
    await stack.judge.stop();
    const server = `http://127.0.0.1:${stack.t.app.server!.port}`;
    const env = judgeEnv(stack.t, server, await judgerKey(stack.t, stack.cast), UID_BASE + 50, {
      JUDGE_MODE: "http",
      JUDGE_CONCURRENCY: "1",
    });
    const http = await startJudge(env);
    // The queue judge is gone: close() stops this one instead.
    stack.judge = http;
    const view = await run("python3", SUM.python3, { input: "1000000000000 1\n" });
    expect(view.results[0]).toMatchObject({ verdict: "accepted", stdout: "1000000000001\n" });
    const samples = await run("c", SUM.c, { samples: "true" });
    expect(samples.results.map((r: { verdict: string }) => r.verdict)).toEqual(["accepted", "accepted"]);
  }, 120_000);
});
