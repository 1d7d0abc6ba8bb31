import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { submit } from "../helpers/records";
import { finalRecord, judgeStack, problemWithData, type JudgeStack } from "../helpers/judging";

// A compile step runs no code of the submission's and reads no setting of it (issue 40). Each submission
// is a correct a + b beside a file a preset's tools would once have run or read: Python's syntax check
// imported a submitted ast.py, javac ran an annotation processor it found in /work, go read the env file
// under HOME (/work), node --check took the submission's package.json. Each record must be accepted. And
// javac started a submitted compiler plugin that says it starts itself, and its file name came from the first
// line like `public class X`, a comment's too: `@x` made it read a submitted x.java as its arguments (issue 52).
let stack: JudgeStack;
let problem: string;
let withHeader: string;
const javaBuild = mkdtempSync(join(tmpdir(), "joj-processor-"));
const pluginBuild = mkdtempSync(join(tmpdir(), "joj-plugin-"));

/** An annotation processor of our own that fails the compile when javac runs it. */
const PROCESSOR = `import java.util.Set;
import javax.annotation.processing.*;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;
import javax.tools.Diagnostic;
@SupportedAnnotationTypes("*")
public class Planted extends AbstractProcessor {
  @Override public synchronized void init(ProcessingEnvironment env) {
    super.init(env);
    env.getMessager().printMessage(Diagnostic.Kind.ERROR, "PLANTED CODE RAN");
  }
  @Override public boolean process(Set<? extends TypeElement> a, RoundEnvironment r) { return false; }
  @Override public SourceVersion getSupportedSourceVersion() { return SourceVersion.latestSupported(); }
}
`;

/** A javac plugin of our own that stops the compile when it runs; it starts itself wherever javac finds it. */
const PLUGIN = `import com.sun.source.util.*;
public class Planted implements Plugin {
  @Override public String getName() { return "Planted"; }
  @Override public boolean autoStart() { return true; }
  @Override public void init(JavacTask task, String... args) {
    System.err.println("PLANTED CODE RAN");
    System.exit(3);
  }
}
`;
const SUM_BODY =
  "public static void main(String[] x) { java.util.Scanner s = new java.util.Scanner(System.in);" +
  " System.out.println(s.nextLong() + s.nextLong()); }";
/** The plugin, and the argument file `@x.java` would have made javac read: the plugin, and a source to compile. */
const plantedPlugin = () => ({
  "x.java": "-Xplugin:Planted\nReal.java\n",
  "Real.java": "class Real {}\n",
  "Planted.class": readFileSync(join(pluginBuild, "Planted.class")),
  "META-INF/services/com.sun.source.util.Plugin": "Planted\n",
});

beforeAll(async () => {
  stack = await judgeStack(73_000);
  const config = {
    languageDefault: {
      caseDefault: { time: "3s", memory: "256m", score: 100 },
      cases: [{ executeInputFile: "1.in", executeOutputFile: "1.out" }],
    },
    languages: ["python3", "java", "go", "javascript"].map((name) => ({ name, preset: name })),
  };
  problem = await problemWithData(stack.t, stack.cast, config, { "1.in": "20 22\n", "1.out": "42\n" });
  // A problem that gives a header of its own, lib/util.h, beside the student's main.c.
  const c = {
    name: "c",
    compileFiles: ["main.c", "lib/util.h"],
    compileArgs: ["gcc", "-O2", "-o", "main", "main.c"],
    caseDefault: { executeFiles: ["main"], executeArgs: ["./main"] },
  };
  withHeader = await problemWithData(
    stack.t,
    stack.cast,
    { ...config, languages: [c] },
    { "1.in": "20 22\n", "1.out": "42\n", "lib/util.h": "#define SUM(a, b) ((a) + (b))\n" },
  );
  for (const [dir, source] of [
    [javaBuild, PROCESSOR],
    [pluginBuild, PLUGIN],
  ]) {
    writeFileSync(join(dir, "Planted.java"), source);
    const javac = Bun.spawn(["javac", "-d", dir, join(dir, "Planted.java")], { stderr: "pipe" });
    expect(await javac.exited).toBe(0);
  }
}, 120_000);
afterAll(() => stack?.close());

async function judged(language: string, files: Record<string, string | Uint8Array>, target = problem) {
  const { t, cast } = stack;
  const form = new FormData();
  form.set("language", language);
  for (const [name, content] of Object.entries(files)) form.append("files", new File([content], name));
  const response = await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${target}`, form);
  expect(response.body.errorCode).toBe("Success");
  const row = await finalRecord(t, response.body.data.id, 120_000);
  const [first] = row.cases as { state: string; stderr: string }[];
  return { state: row.state, stderr: first.stderr };
}

describe("a preset's compile step runs nothing and reads nothing of the submission", () => {
  test("python3: a submitted ast.py is not what the syntax check imports (isolated mode)", async () => {
    const record = await judged("python3", {
      "main.py": "a, b = map(int, input().split())\nprint(a + b)\n",
      "ast.py": 'import sys\nsys.stderr.write("PLANTED CODE RAN\\n")\nraise SystemExit(3)\n',
    });
    expect(record).toEqual({ state: "accepted", stderr: "" });
  }, 120_000);

  test("java: no annotation processor on javac's class path runs (-proc:none, -processorpath /dev/null)", async () => {
    const record = await judged("java", {
      "Main.java":
        "import java.util.*;\npublic class Main { public static void main(String[] x) { Scanner s = new Scanner(System.in);" +
        " System.out.println(s.nextLong() + s.nextLong()); } }\n",
      "Planted.class": readFileSync(join(javaBuild, "Planted.class")),
      "META-INF/services/javax.annotation.processing.Processor": "Planted\n",
    });
    expect(record).toEqual({ state: "accepted", stderr: "" });
  }, 120_000);

  test("java: a compiler plugin on javac's class path that starts itself is not looked for there", async () => {
    const { "Planted.class": plugin, "META-INF/services/com.sun.source.util.Plugin": service } = plantedPlugin();
    const record = await judged("java", {
      "Main.java": `public class Main { ${SUM_BODY} }\n`,
      "Planted.class": plugin,
      "META-INF/services/com.sun.source.util.Plugin": service,
    });
    expect(record).toEqual({ state: "accepted", stderr: "" });
  }, 120_000);

  test("java: `public class @x` is a compile error saying so; no argument file is read, no plugin runs", async () => {
    const record = await judged("java", {
      "Main.java": `import java.util.*;\npublic class @x { ${SUM_BODY} }\n`,
      ...plantedPlugin(),
    });
    expect(record).toEqual({
      state: "rejected",
      stderr: 'Main.java:2: a public class\'s name must be a Java identifier, not "@x"',
    });
  }, 120_000);

  test("java: a public class named in a comment, a string or a text block is no declaration", async () => {
    const record = await judged("java", {
      "Main.java": [
        "/*",
        "public class @x",
        "*/",
        "// public class Decoy",
        "public class Main {",
        '  static final String NAME = "public class Decoy";',
        '  static final String NOTE = """',
        "    public class Decoy",
        '    """;',
        `  ${SUM_BODY}`,
        "}",
      ].join("\n"),
      ...plantedPlugin(),
    });
    expect(record).toEqual({ state: "accepted", stderr: "" });
  }, 120_000);

  test("go: an env file in the submission's home directory sets nothing (HOME is not /work, GOENV=off)", async () => {
    const record = await judged("go", {
      "main.go": 'package main\nimport "fmt"\nfunc main(){var a,b int64;fmt.Scan(&a,&b);fmt.Println(a+b)}\n',
      // go build would run every tool through /bin/false: a compile error.
      ".config/go/env": "GOFLAGS=-toolexec=/bin/false\n",
    });
    expect(record).toEqual({ state: "accepted", stderr: "" });
  }, 120_000);

  test("javascript: a submitted package.json does not change how the check parses main.js", async () => {
    // CommonJS, as main.js runs alone: a top-level return is fine there, and a syntax error in a module.
    const record = await judged("javascript", {
      "main.js":
        "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n" +
        "console.log(a + b);\nreturn;\n",
      "package.json": '{ "type": "module" }\n',
    });
    expect(record).toEqual({ state: "accepted", stderr: "" });
  }, 120_000);
});

describe("files the judge cannot lay out beside the problem's", () => {
  test("a submitted file where the problem's header needs a folder: a compile error saying so, no host path", async () => {
    const main =
      '#include <stdio.h>\n#include "lib/util.h"\nint main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",SUM(a,b));}\n';
    expect(await judged("c", { "main.c": main }, withHeader)).toEqual({ state: "accepted", stderr: "" });
    const clash = await judged("c", { "main.c": main, lib: "not a folder\n" }, withHeader);
    expect(clash.state).toBe("rejected");
    expect(clash.stderr).toBe(
      "the submission's files and the problem's cannot be laid out together: \"lib\" is both a file and a folder",
    );
    expect(clash.stderr).not.toContain(stack.judge.settings.workDir);
  }, 120_000);
});
