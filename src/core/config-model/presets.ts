/**
 * Language presets: a config.json language that says `"preset": "java"` and leaves out the commands gets
 * these, tested (tests/judge/presets.test.ts) on Debian's toolchains. Shared by the API (which refuses an
 * unknown preset at upload) and the judge (which runs them). The docs/config-reference.md "Language presets" table
 * shows each command as written here.
 *
 * `{memoryMb}` in an argument is the case's memory limit in MiB (plan.ts): managed runtimes size their
 * heap to the limit the student was given, and get `runtimeMb` more in the cgroup for what the runtime
 * itself holds (the JVM's metaspace and code cache, V8's isolate, Go's runtime), which never counts
 * against the student. A runtime that stops on its own heap limit says so on stderr (`outOfMemory`), and
 * that is a memory verdict like the kernel's, not a runtime error.
 */
export interface LanguagePreset {
  /** Where a submission's one file is put, whatever it was called. */
  source: string;
  /** Empty: nothing to compile. */
  compileArgs: string[];
  executeFiles: string[];
  executeArgs: string[];
  /** The commands the judge machine needs, and the Debian package of each (judge start-up, `bun run setup`). */
  toolchain: { command: string; pkg: string }[];
  /** MiB the runtime may use in the cgroup beyond the case's limit. */
  runtimeMb: number;
  /** Processes and threads, when the runtime needs more than the judge's default (JUDGE_PROCESSES). */
  processes?: number;
  /** The runtime's own out-of-memory message on stderr. */
  outOfMemory?: RegExp;
  /** Nothing is compiled or run: each case judges a file of the submission (`submittedOutput`). */
  outputOnly?: boolean;
}

/**
 * `{javaClass}` in a compile argument: the public class of the language's first compile file (Main.java for the
 * preset), found by the judge (src/judge/run/java-class.ts) with comments, strings and text blocks skipped, and
 * always a Java identifier: a name javac would read as an option or as `@argfile` is a compile error instead.
 */
export const JAVA_CLASS = "{javaClass}";

// javac wants the file named after its public class: the script renames the file after the class the judge
// found ($2), compiles, and packs every class (inner ones too) into one jar whose entry point is that class.
// The source and the name are arguments, never part of the script. javac looks for annotation processors and
// compiler plugins on its class path (/work: a submitted META-INF/services entry) and runs them: `-proc:none`
// runs no processor, and plugins (which start themselves when they say so, -Xplugin or not) are looked for on
// a processor path that holds nothing, /dev/null.
const JAVA_BUILD = [
  "set -e",
  'c="$2"',
  'if [ "$c.java" != "$1" ]; then mv -- "$1" "$c.java"; fi',
  'javac -J-Xmx512m -J-XX:+UseSerialGC -proc:none -processorpath /dev/null -encoding UTF-8 -d classes "$c.java"',
  'jar -J-Xmx256m -J-XX:+UseSerialGC --create --file main.jar --main-class "$c" -C classes .',
].join("; ");

export const PRESETS = {
  // ONLINE_JUDGE as HUSTOJ, Codeforces, Hydro and DOMjudge define it: solutions written for them open in.txt
  // under `#ifndef ONLINE_JUDGE`, which here would read a file that is not there.
  c: {
    source: "main.c",
    compileArgs: ["gcc", "-std=gnu17", "-O2", "-pipe", "-static", "-DONLINE_JUDGE", "-o", "main", "main.c", "-lm"],
    executeFiles: ["main"],
    executeArgs: ["./main"],
    toolchain: [{ command: "gcc", pkg: "gcc" }],
    runtimeMb: 0,
  },
  cpp: {
    source: "main.cpp",
    compileArgs: ["g++", "-std=gnu++17", "-O2", "-pipe", "-static", "-DONLINE_JUDGE", "-o", "main", "main.cpp"],
    executeFiles: ["main"],
    executeArgs: ["./main"],
    toolchain: [{ command: "g++", pkg: "g++" }],
    runtimeMb: 0,
  },
  python3: {
    source: "main.py",
    // A syntax error is a compile error, as in the compiled languages. Isolated (-I: no /work on the
    // module path, no PYTHON* variables, no user site) and without `site` (-S), so the check imports the
    // standard library's `ast`, never a submitted ast.py.
    compileArgs: [
      "python3",
      "-I",
      "-S",
      "-c",
      "import ast, sys; ast.parse(open(sys.argv[1], 'rb').read(), sys.argv[1])",
      "main.py",
    ],
    executeFiles: ["main.py"],
    // ONLINE_JUDGE=1 in the environment, as DOMjudge sets it (Codeforces and HUSTOJ set nothing for Python).
    executeArgs: ["env", "ONLINE_JUDGE=1", "python3", "-S", "main.py"],
    toolchain: [{ command: "python3", pkg: "python3" }],
    runtimeMb: 16,
    outOfMemory: /^MemoryError\b/m,
  },
  java: {
    source: "Main.java",
    compileArgs: ["sh", "-c", JAVA_BUILD, "javac", "Main.java", JAVA_CLASS],
    executeFiles: ["main.jar"],
    // The ONLINE_JUDGE system property, as Codeforces and DOMjudge set it (`System.getProperty("ONLINE_JUDGE")`).
    executeArgs: [
      "java",
      "-DONLINE_JUDGE=true",
      "-Xmx{memoryMb}m",
      "-Xss64m",
      "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1",
      "-XX:-UsePerfData",
      "-jar",
      "main.jar",
    ],
    toolchain: [
      { command: "javac", pkg: "default-jdk-headless" },
      { command: "jar", pkg: "default-jdk-headless" },
      { command: "java", pkg: "default-jdk-headless" },
    ],
    runtimeMb: 128,
    processes: 128,
    outOfMemory: /java\.lang\.OutOfMemoryError/,
  },
  go: {
    source: "main.go",
    // GOENV=off: no go/env file is read (a submitted one could set GOFLAGS=-toolexec=…); GOTOOLCHAIN=local:
    // no other toolchain is looked for; the caches live in the run's own /tmp; GOPATH mode reads no go.mod.
    compileArgs: [
      "env",
      "GOENV=off",
      "GOFLAGS=",
      "GOTOOLCHAIN=local",
      "GOCACHE=/tmp/go-build",
      "GOPATH=/tmp/go",
      "GO111MODULE=off",
      "CGO_ENABLED=0",
      "go",
      "build",
      "-o",
      "main",
      "main.go",
    ],
    executeFiles: ["main"],
    // The collector works to stay under the limit instead of letting the heap double past it.
    executeArgs: ["env", "GOMEMLIMIT={memoryMb}MiB", "./main"],
    toolchain: [{ command: "go", pkg: "golang-go" }],
    runtimeMb: 32,
    processes: 256,
    outOfMemory: /runtime: out of memory/,
  },
  rust: {
    source: "main.rs",
    compileArgs: ["rustc", "--edition=2021", "-O", "-o", "main", "main.rs"],
    executeFiles: ["main"],
    executeArgs: ["./main"],
    toolchain: [{ command: "rustc", pkg: "rustc" }],
    runtimeMb: 0,
  },
  javascript: {
    source: "main.js",
    // Checked from stdin: node reads no package.json of the submission's (its "type" would change how the
    // check parses, where the run, with main.js alone, is CommonJS).
    compileArgs: ["sh", "-c", 'exec node --check - < "$1"', "node", "main.js"],
    executeFiles: ["main.js"],
    executeArgs: ["node", "--max-old-space-size={memoryMb}", "main.js"],
    toolchain: [{ command: "node", pkg: "nodejs" }],
    runtimeMb: 64,
    outOfMemory: /JavaScript heap out of memory/,
  },
  // CMS's and Polygon's output-only tasks: the student submits the outputs themselves.
  "output-only": {
    source: "",
    compileArgs: [],
    executeFiles: [],
    executeArgs: [],
    toolchain: [],
    runtimeMb: 0,
    outputOnly: true,
  },
} as const satisfies Record<string, LanguagePreset>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

export function presetOf(name: string | undefined | null): LanguagePreset | null {
  return name && Object.hasOwn(PRESETS, name) ? (PRESETS as Record<string, LanguagePreset>)[name] : null;
}

/** `{memoryMb}` in an argument, filled with the case's limit. */
export const fillArgs = (args: readonly string[], memoryKb: number) =>
  args.map((arg) => arg.replaceAll("{memoryMb}", String(Math.max(1, Math.floor(memoryKb / 1024)))));
