import type { ResolvedStage } from "../../core/config-model/config-stages";
import { type Finding, parseClangTidy, parseCppcheck, parseCpplint } from "./findings";

/**
 * The three C and C++ linters a stage may name, each a Debian package (`bun run setup` installs them with the
 * c and cpp presets): how it is called on the submission's sources in the sandbox's /work, which exit codes
 * mean it did its job, and how its output becomes findings. Every tool's output is read merged (stdout and
 * stderr: cppcheck and cpplint write findings to stderr).
 *
 * No tool takes a setting from the submission (stage-layout.ts runs them from an empty directory, each file
 * as /work/name): clang-tidy is given its configuration (it would read a .clang-tidy beside the sources, and with
 * no `--` a compile_commands.json); cppcheck reads its library files (std.cfg) from the current directory
 * first, which is not /work; cpplint reads a CPPLINT.cfg (and a .git as the root of its header guards) in
 * the file's directory and its parents, so it is given the C and C++ files alone.
 */
export interface Linter {
  command: string;
  pkg: string;
  /** It reads only the files it lints (and their headers of the same name), never what they include. */
  sourcesOnly: boolean;
  argv(stage: ResolvedStage, sources: string[]): string[];
  /** Exit codes of a run that did its job (cpplint exits 1 when it found something). */
  ranOk(code: number): boolean;
  parse(output: string): Finding[];
}

export const WORK_DIR = "/work";
const C_SOURCE = /\.(c|h)$/i;
export const LINTABLE = /\.(c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx)$/i;

/** C unless a source is C++: clang-tidy's compiler flags, cppcheck's language. */
const isC = (sources: string[]) => sources.every((s) => C_SOURCE.test(s));

/** cpplint's --filter: `-` then `+category[/name]` per selected glob (`*` and `x/*` become prefixes). */
export function cpplintFilter(checks: readonly string[] | undefined): string {
  if (!checks) return "";
  const entries = checks.map((glob) => {
    const negative = glob.startsWith("-");
    const prefix = glob.replace(/^-/, "").replace(/\*.*$/, "");
    return `${negative ? "-" : "+"}${prefix}`;
  });
  return ["-", ...entries].join(",");
}

export const LINTERS: Record<"clang-tidy" | "cppcheck" | "cpplint", Linter> = {
  "clang-tidy": {
    command: "clang-tidy",
    pkg: "clang-tidy",
    sourcesOnly: false,
    // `--config={}`: its defaults, not a .clang-tidy it finds (its CheckOptions would tune the checks). `--`
    // ends its options: no compilation database is looked for, the flags after it are the compiler's (the
    // stage's `args`, else the presets' standard).
    argv: (stage, sources) => [
      "clang-tidy",
      "--quiet",
      "--config={}",
      `--checks=-*,${(stage.checks ?? []).join(",")}`,
      ...sources,
      "--",
      ...(stage.args ?? [isC(sources) ? "-std=gnu17" : "-std=gnu++17"]),
    ],
    // 1: it found compile errors (clang-diagnostic-error), still a run that said what it found.
    ranOk: (code) => code === 0 || code === 1,
    parse: (output) => parseClangTidy(output, WORK_DIR),
  },
  cppcheck: {
    command: "cppcheck",
    pkg: "cppcheck",
    sourcesOnly: false,
    argv: (stage, sources) => [
      "cppcheck",
      "--enable=all",
      "--quiet",
      `--language=${isC(sources) ? "c" : "c++"}`,
      "--template={file}:{line}:{column}: {severity}: {message} [{id}]",
      "--suppress=missingIncludeSystem",
      ...(stage.args ?? []),
      ...sources,
    ],
    ranOk: (code) => code === 0,
    parse: (output) => parseCppcheck(output, WORK_DIR),
  },
  cpplint: {
    command: "cpplint",
    pkg: "cpplint",
    sourcesOnly: true,
    argv: (stage, sources) => {
      const filter = cpplintFilter(stage.checks);
      return ["cpplint", ...(filter ? [`--filter=${filter}`] : []), ...(stage.args ?? []), ...sources];
    },
    ranOk: (code) => code === 0 || code === 1,
    parse: (output) => parseCpplint(output, WORK_DIR),
  },
};
