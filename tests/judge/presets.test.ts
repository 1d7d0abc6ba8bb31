import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { submit, submission } from "../helpers/records";
import { finalRecord, judgeEnv, judgerKey, listen, problemWithData, startJudge } from "../helpers/judging";
import { PRESET_NAMES, PRESETS, type PresetName } from "../../src/core/config-model/presets";

// Every language preset through the API: a config that names only presets, a + b with numbers past 32
// bits in each, submitted under the student's own file name, compiled and run by the real judge in the
// real sandbox. Then the managed runtimes' memory: a JVM program that needs well under the limit is
// accepted whatever the JVM's own overhead, and one that needs more is a memory verdict, whether the JVM
// or the kernel stops it; the same for Node.js; and a Go program with thousands of goroutines fits.
const UID_BASE = 63_000;
let t: TestApp;
let cast: Cast;
let judge: Awaited<ReturnType<typeof startJudge>>;
let problem: string;
let memoryProblem: string;
let fileProblem: string;
let outputsProblem: string;
let answersOnlyProblem: string;

const DATA = {
  "data/1.in": "1000000000000 234\n",
  "data/1.out": "1000000000234\n",
  "data/2.in": "-5 7\n",
  "data/2.out": "2\n",
};
const cases = [
  { executeInputFile: "data/1.in", executeOutputFile: "data/1.out" },
  { executeInputFile: "data/2.in", executeOutputFile: "data/2.out" },
];
const caseDefault = { time: "3s", memory: "256m", score: 50, category: "pretest" };
const presetConfig = (names: readonly string[]) => ({
  languageDefault: { cases, caseDefault },
  languages: names.map((name) => ({ name, preset: name })),
});

/** The presets that compile and run a program (output-only runs none). */
const RUNNABLE = PRESET_NAMES.filter((name) => !("outputOnly" in PRESETS[name])) as Exclude<
  PresetName,
  "output-only"
>[];

/** a + b in each preset, each under a file name the preset does not use. */
const SOLUTIONS: Record<(typeof RUNNABLE)[number], [string, string]> = {
  c: ["sum.c", '#include <stdio.h>\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a+b);}\n'],
  cpp: ["sum.cc", "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<'\\n';}\n"],
  python3: ["sum.py", "a, b = map(int, input().split())\nprint(a + b)\n"],
  java: [
    "Solution.java",
    `import java.util.*;
/* not the entry point: public class Decoy */
public class Solution {
  static class Pair { long a, b; }
  public static void main(String[] args) {
    Scanner in = new Scanner(System.in);
    Pair p = new Pair(); p.a = in.nextLong(); p.b = in.nextLong();
    Runnable r = new Runnable() { public void run() { System.out.println(p.a + p.b); } };
    r.run();
  }
}
`,
  ],
  go: ["sum.go", 'package main\nimport "fmt"\nfunc main(){var a,b int64;fmt.Scan(&a,&b);fmt.Println(a+b)}\n'],
  rust: [
    "sum.rs",
    "use std::io::Read;\nfn main(){let mut s=String::new();std::io::stdin().read_to_string(&mut s).unwrap();" +
      'let v:Vec<i64>=s.split_whitespace().map(|x|x.parse().unwrap()).collect();println!("{}",v[0]+v[1]);}\n',
  ],
  javascript: [
    "sum.js",
    "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(BigInt);\nconsole.log(String(a + b));\n",
  ],
};

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
  const server = listen(t);
  judge = await startJudge(judgeEnv(t, server, await judgerKey(t, cast), UID_BASE));
  problem = await problemWithData(t, cast, presetConfig(RUNNABLE), DATA);
  memoryProblem = await problemWithData(t, cast, presetConfig(["java", "javascript", "go", "python3"]), DATA);
  const fileIo = { fileInput: "input.txt", fileOutput: "output.txt" };
  fileProblem = await problemWithData(
    t,
    cast,
    {
      languageDefault: { cases: cases.map((c) => ({ ...c, ...fileIo })), caseDefault },
      languages: [{ name: "c", preset: "c" }],
    },
    DATA,
  );
  outputsProblem = await problemWithData(
    t,
    cast,
    {
      languageDefault: {
        cases: cases.map((c, i) => ({ ...c, submittedOutput: `answer${i + 1}.txt` })),
        caseDefault,
      },
      languages: [{ name: "outputs", preset: "output-only" }],
    },
    DATA,
  );
  // Output-only with the expected outputs alone, no input: one case compared, one judged by a checker
  // (which reads an empty input).
  answersOnlyProblem = await problemWithData(
    t,
    cast,
    {
      languages: [
        {
          name: "outputs",
          preset: "output-only",
          cases: [
            { submittedOutput: "answer1.txt", executeOutputFile: "expected/1.out", score: 50 },
            {
              submittedOutput: "answer2.txt",
              executeOutputFile: "expected/2.out",
              score: 50,
              checker: { files: ["check.py"], executeArgs: ["python3", "check.py"] },
            },
          ],
        },
      ],
    },
    {
      "expected/1.out": "42\n",
      "expected/2.out": "7\n",
      // testlib's calling convention: input, output, answer; the input is empty here.
      "check.py":
        "import sys\nsource, output, answer = (open(p).read() for p in sys.argv[1:4])\n" +
        "print('input of', len(source), 'bytes', file=sys.stderr)\nsys.exit(0 if output.split() == answer.split() else 1)\n",
    },
  );
}, 60_000);
afterAll(async () => {
  await judge?.stop();
  await t.app.stop(true);
  await t.close();
});

type Judged = { state: string; cases: { state: string; memoryKb: number; stderr: string }[] };

async function judged(on: string, language: string, file: string, source: string): Promise<Judged> {
  const form = submission(language, { [file]: source });
  const record = (await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${on}`, form)).body.data;
  expect(record?.id).toBeString();
  await finalRecord(t, record.id, 120_000);
  return (await t.api.get(`/domains/${cast.domain.id}/records/${record.id}`, { token: cast.member.token })).body.data;
}

describe("a + b in every preset, through the API", () => {
  for (const name of RUNNABLE) {
    test(name, async () => {
      const [file, source] = SOLUTIONS[name];
      const record = await judged(problem, name, file, source);
      if (record.state !== "accepted") console.log(name, JSON.stringify(record.cases, null, 1).slice(0, 3000));
      expect(record.cases.map((c) => c.state)).toEqual(["accepted", "accepted"]);
      expect(record.state).toBe("accepted");
    }, 150_000);
  }
});

describe("a Java public class named in another script", () => {
  for (const name of ["Résumé", "求和"]) {
    test(name, async () => {
      const source = SOLUTIONS.java[1].replace("public class Solution", `public final class ${name}`);
      const record = await judged(problem, "java", "solution.java", source);
      expect(record.cases.map((c) => c.state)).toEqual(["accepted", "accepted"]);
    }, 150_000);
  }
});

/** Java: keeps `mib` MiB alive in 1 MiB arrays, then solves the case. */
const javaHolding = (mib: number) => `import java.util.*;
public class Main {
  public static void main(String[] args) {
    List<long[]> kept = new ArrayList<>();
    for (int i = 0; i < ${mib}; i++) { long[] block = new long[131072]; Arrays.fill(block, i); kept.add(block); }
    Scanner in = new Scanner(System.in);
    long a = in.nextLong(), b = in.nextLong();
    System.out.println(a + b + kept.size() - ${mib});
  }
}
`;

describe("managed runtimes under a 256 MiB limit", () => {
  test("a JVM program that keeps 200 MiB (78 % of the limit) is accepted", async () => {
    const record = await judged(memoryProblem, "java", "Main.java", javaHolding(200));
    expect(record.cases.map((c) => c.state)).toEqual(["accepted", "accepted"]);
    expect(record.cases[0].memoryKb).toBeGreaterThan(200 * 1024);
  }, 150_000);

  test("a JVM program that keeps 400 MiB is memory_limit_exceeded, not a runtime error", async () => {
    const record = await judged(memoryProblem, "java", "Main.java", javaHolding(400));
    expect(record.cases.map((c) => c.state)).toEqual(["memory_limit_exceeded", "memory_limit_exceeded"]);
  }, 150_000);

  test("Node.js past its limit is memory_limit_exceeded", async () => {
    const hog = "const kept = [];\nfor (;;) kept.push(new Array(1 << 16).fill(kept.length));\n";
    const record = await judged(memoryProblem, "javascript", "hog.js", hog);
    expect(record.cases.map((c) => c.state)).toEqual(["memory_limit_exceeded", "memory_limit_exceeded"]);
  }, 150_000);

  test("Node.js keeping 150 MiB is accepted", async () => {
    const holder = `const kept = [];
for (let i = 0; i < 150; i++) kept.push(Buffer.alloc(1 << 20, i));
const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(/\\s+/).map(BigInt);
console.log(String(a + b + BigInt(kept.length - 150)));
`;
    const record = await judged(memoryProblem, "javascript", "keep.js", holder);
    expect(record.cases.map((c) => c.state)).toEqual(["accepted", "accepted"]);
  }, 150_000);

  test("a Go program with 10,000 goroutines is accepted", async () => {
    const source = `package main
import ("fmt"; "sync"; "time")
func main() {
  var a, b int64
  fmt.Scan(&a, &b)
  var wg sync.WaitGroup
  var mu sync.Mutex
  total := int64(0)
  for i := 0; i < 10000; i++ {
    wg.Add(1)
    go func() { defer wg.Done(); time.Sleep(time.Millisecond); mu.Lock(); total++; mu.Unlock() }()
  }
  wg.Wait()
  fmt.Println(a + b + total - 10000)
}
`;
    const record = await judged(memoryProblem, "go", "many.go", source);
    expect(record.cases.map((c) => c.state)).toEqual(["accepted", "accepted"]);
  }, 150_000);

  test("Python past the limit is memory_limit_exceeded", async () => {
    const record = await judged(
      memoryProblem,
      "python3",
      "hog.py",
      "x = []\nwhile True:\n    x.append(b'x' * (1 << 20))\n",
    );
    expect(record.cases.map((c) => c.state)).toEqual(["memory_limit_exceeded", "memory_limit_exceeded"]);
  }, 150_000);
});

describe("file input and output", () => {
  test("a program that reads input.txt and writes output.txt is accepted", async () => {
    const source = `#include <stdio.h>
int main(void) {
  long long a, b;
  FILE *in = fopen("input.txt", "r"), *out = fopen("output.txt", "w");
  if (!in || !out || fscanf(in, "%lld %lld", &a, &b) != 2) return 3;
  fprintf(out, "%lld\\n", a + b);
  puts("stdout is not judged");
  return 0;
}
`;
    const record = await judged(fileProblem, "c", "files.c", source);
    expect(record.cases.map((c) => c.state)).toEqual(["accepted", "accepted"]);
  }, 150_000);

  test("an output.txt planted as a link is never followed: a wrong answer, even to the right text", async () => {
    // Solves the case into answer.txt, then makes output.txt a link to it: followed, it would be accepted.
    const source = `#include <stdio.h>
#include <unistd.h>
int main(void) {
  long long a, b;
  FILE *in = fopen("input.txt", "r"), *out = fopen("answer.txt", "w");
  if (!in || !out || fscanf(in, "%lld %lld", &a, &b) != 2) return 3;
  fprintf(out, "%lld\\n", a + b);
  fclose(out);
  return symlink("answer.txt", "output.txt") == 0 ? 0 : 4;
}
`;
    const record = await judged(fileProblem, "c", "link.c", source);
    expect(record.cases.map((c) => c.state)).toEqual(["wrong_answer", "wrong_answer"]);
    expect(record.cases[0].stderr).toContain("the program wrote no output.txt");
  }, 150_000);

  test("one that ignores the files (stdin is empty, output.txt never written) is a wrong answer", async () => {
    const [, source] = SOLUTIONS.c;
    const record = await judged(fileProblem, "c", "sum.c", source);
    expect(record.cases.map((c) => c.state)).toEqual(["wrong_answer", "wrong_answer"]);
    expect(record.cases[0].stderr).toContain("the program wrote no output.txt");
  }, 150_000);
});

describe("output-only", () => {
  const judgedFiles = async (files: Record<string, string>) => {
    const form = submission("outputs", files);
    const path = `/domains/${cast.domain.id}/problems/${outputsProblem}`;
    const record = (await submit(t, cast.member.token, path, form)).body.data;
    await finalRecord(t, record.id, 60_000);
    const view = await t.api.get(`/domains/${cast.domain.id}/records/${record.id}`, { token: cast.member.token });
    return view.body.data as Judged & { score: number; cases: { score: number }[] };
  };

  test("the submitted outputs, both right, are accepted", async () => {
    const record = await judgedFiles({ "answer1.txt": "1000000000234\n", "answer2.txt": "2\n" });
    expect(record.cases.map((c) => c.state)).toEqual(["accepted", "accepted"]);
    expect(record.score).toBe(100);
  }, 60_000);

  test("one wrong and one missing: the right one scores, the others earn nothing", async () => {
    const wrong = await judgedFiles({ "answer1.txt": "1000000000234\n", "answer2.txt": "3\n" });
    expect(wrong.cases.map((c) => c.state)).toEqual(["accepted", "wrong_answer"]);
    expect(wrong.score).toBe(50);
    const missing = await judgedFiles({ "answer2.txt": "2\n" });
    expect(missing.cases.map((c) => c.state)).toEqual(["wrong_answer", "accepted"]);
    expect(missing.cases[0].stderr).toContain("the submission has no answer1.txt");
    expect(missing.score).toBe(50);
  }, 60_000);

  test("a problem with expected outputs and no input files judges right, its checker reading an empty input", async () => {
    const form = submission("outputs", { "answer1.txt": "42\n", "answer2.txt": "7\n" });
    const path = `/domains/${cast.domain.id}/problems/${answersOnlyProblem}`;
    const record = (await submit(t, cast.member.token, path, form)).body.data;
    await finalRecord(t, record.id, 60_000);
    const view = (await t.api.get(`/domains/${cast.domain.id}/records/${record.id}`, { token: cast.member.token })).body
      .data as Judged & { score: number };
    expect(view.cases.map((c) => c.state)).toEqual(["accepted", "accepted"]);
    expect(view.cases[1].stderr).toContain("input of 0 bytes");
    expect(view.score).toBe(100);
  }, 60_000);

  test("an output-only case without submittedOutput is refused at upload with its path", async () => {
    const created = await t.api.post(
      `/domains/${cast.domain.id}/problems`,
      { title: "Outputs" },
      { token: cast.owner.token },
    );
    const form = new FormData();
    const config = { languages: [{ name: "outputs", preset: "output-only", cases }] };
    const { archiveOf } = await import("../helpers/archive-builders");
    form.append(
      "file",
      new Blob([await archiveOf("zip", { "config.json": JSON.stringify(config), ...DATA })]),
      "c.zip",
    );
    const path = `/domains/${cast.domain.id}/problems/${created.body.data.id}/configs`;
    const response = await t.api.post(path, undefined, { token: cast.owner.token, multipart: form });
    expect(response.body.errorCode).toBe("FileValidationError");
    expect(response.body.errorMsg).toContain('/languages/0/cases/0: an output-only case needs "submittedOutput"');
  }, 60_000);
});
