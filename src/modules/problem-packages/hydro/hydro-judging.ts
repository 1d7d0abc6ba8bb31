import type { CheckerInput } from "../../../core/config-model/config-schema";
import { findTestdata, isMapping, type TestdataIndex, type Yaml } from "./hydro-testdata";
import { programOf, refuse, text } from "../model/package-model";
import type { PackageProblem } from "../model/package-model";

/**
 * How a Hydro problem is judged, from testdata/config.yaml: its `type` (default or interactive), its
 * `checker_type` with `checker`, its `interactor`, file I/O (`filename`) and the files given to the checker.
 * Hydro's judge supplies testlib.h itself; this one bundles none, so a checker or interactor including it
 * needs the package's own, beside it in testdata/.
 */

type Judging = Pick<PackageProblem, "compare" | "checker" | "interactor" | "fileInput" | "fileOutput">;

interface Context {
  /** "testdata/config.yaml", under the problem's folder in a package of several. */
  at: string;
  files: Map<string, Uint8Array>;
  index: TestdataIndex;
  notes: string[];
}

/** config.yaml's keys read here or by hydro-testdata.ts; any other is said not to be kept. */
const READ = new Set([
  "type",
  "time",
  "memory",
  "filename",
  "checker_type",
  "checker",
  "interactor",
  "cases",
  "subtasks",
  "score",
  "judge_extra_files",
  "user_extra_files",
  "multi_pass",
]);

/** Hydro's problem types this judge has no counterpart for, and why. */
const REFUSED_TYPES: Record<string, string> = {
  submit_answer: "answers submitted as files: make it an output-only problem (preset output-only) by hand",
  objective: "a quiz of answers, not programs",
  communication: "several programs talking through a manager",
  remote_judge: "judged by another online judge",
};

/** Hydro's checker types with a protocol of ours: the program is called the way Hydro calls it. */
const PROTOCOLS: Record<string, CheckerInput["protocol"]> = { testlib: "testlib", hustoj: "hustoj", kattis: "kattis" };

export function judgingOf(config: Yaml, ctx: Context): Judging {
  const { at, notes } = ctx;
  const type = String(config.type ?? "default");
  if (REFUSED_TYPES[type]) throw refuse(`${at}: type ${type} is not supported (${REFUSED_TYPES[type]})`);
  if (type !== "default" && type !== "interactive")
    throw refuse(`${at}: type ${type} is not one of Hydro's (default, interactive, submit_answer, …)`);
  if (Number(config.multi_pass) > 1) throw refuse(`${at}: multi_pass (judging in several passes) is not supported`);
  const userFiles = config.user_extra_files;
  if (Array.isArray(userFiles) && userFiles.length > 0)
    throw refuse(`${at}: user_extra_files (${userFiles.join(", ")}), files given to the submission, are not supported`);
  const unkept = Object.keys(config).filter((key) => !READ.has(key));
  if (unkept.length > 0) notes.push(`${at}: ${unkept.join(", ")} not kept`);
  const extra = judgeExtraFiles(config, ctx);
  const checkerType = String(config.checker_type ?? "default");
  if (type === "interactive") {
    if (!config.interactor) throw refuse(`${at}: type interactive needs an interactor`);
    if (config.filename) notes.push(`${at}: filename is not used in an interactive problem (nor by Hydro)`);
    if (checkerType !== "default")
      notes.push(`${at}: checker_type is not used in an interactive problem (nor by Hydro)`);
    notes.push(
      "the interactor is called with the case's input and its output file, as testlib's are; " +
        "Hydro also gives it the case's answer file, third",
    );
    const interactor = { ...programFor(config.interactor, "interactor", extra, ctx), protocol: "testlib" as const };
    return { compare: null, checker: null, interactor, fileInput: null, fileOutput: null };
  }
  const filename = config.filename ? String(config.filename) : null;
  return {
    ...checkingOf(config, checkerType, extra, ctx),
    interactor: null,
    fileInput: filename && `${filename}.in`,
    fileOutput: filename && `${filename}.out`,
  };
}

function checkingOf(config: Yaml, checkerType: string, extra: string[], ctx: Context) {
  const { at, notes } = ctx;
  if (checkerType === "default" || checkerType === "strict") {
    if (config.checker) notes.push(`${at}: checker is not used with checker_type ${checkerType} (nor by Hydro)`);
    if (checkerType === "strict") return { compare: { compare: "exact" as const }, checker: null };
    notes.push(
      "checker_type default: output compared token by token " +
        "(Hydro compares lines, ignoring only spaces at their ends and blank lines at the end)",
    );
    return { compare: { compare: "whitespace" as const }, checker: null };
  }
  const protocol = PROTOCOLS[checkerType];
  if (!protocol)
    throw refuse(`${at}: checker_type ${checkerType} is not supported (default, strict, testlib, hustoj, kattis)`);
  if (!config.checker) throw refuse(`${at}: checker_type ${checkerType} needs a checker`);
  const program = programFor(config.checker, "checker", extra, ctx);
  return { compare: null, checker: { ...program, protocol, ...(protocol === "kattis" ? { flags: [] } : {}) } };
}

/** A checker or interactor: its source in testdata/, the headers beside it, and judge_extra_files. */
function programFor(source: unknown, name: "checker" | "interactor", extra: string[], ctx: Context) {
  const { at, files } = ctx;
  const file = typeof source === "string" ? source : isMapping(source) ? source.file : undefined;
  if (typeof file !== "string" || !file) throw refuse(`${at}: ${name} names no file`);
  if (!file.includes("."))
    throw refuse(`${at}: ${name} ${file} names one of Hydro's built-in checkers, which this judge does not have`);
  const path = findTestdata(ctx.index, file);
  if (!path) throw refuse(`${at}: ${name} ${file} is not in testdata/`);
  const folder = path.slice(0, path.lastIndexOf("/") + 1);
  const beside = (p: string) => p.startsWith(folder) && !p.slice(folder.length).includes("/");
  const headers = [...files.keys()].filter((p) => beside(p) && /\.(h|hpp)$/i.test(p) && p !== path).sort();
  if (/#\s*include\s*[<"]testlib\.h[>"]/.test(text(files.get(path))) && !files.has(`${folder}testlib.h`))
    throw refuse(
      `${at}: the ${name} ${file} includes testlib.h, which is not in the package (Hydro's judge supplies its ` +
        `own; this one bundles none). To import it, put the testlib.h it was written for in ${folder || "testdata/"}` +
        `, beside ${file}, zip the package again and upload it`,
    );
  const built = programOf([path], name, `${at}: ${name} ${file}`);
  return { ...built, files: [path, ...headers, ...extra.filter((p) => p !== path && !headers.includes(p))] };
}

/** judge_extra_files: in testdata/, given to the checker or interactor. */
function judgeExtraFiles(config: Yaml, ctx: Context): string[] {
  const listed = config.judge_extra_files ?? [];
  if (!Array.isArray(listed)) throw refuse(`${ctx.at}: judge_extra_files is not a list`);
  const paths = listed.map((name, i) => {
    const path = typeof name === "string" ? findTestdata(ctx.index, name) : null;
    if (!path) throw refuse(`${ctx.at}: judge_extra_files[${i}] ${name} is not in testdata/`);
    return path;
  });
  if (paths.length > 0)
    ctx.notes.push(`${ctx.at}: judge_extra_files are given to the checker at their paths (Hydro: in its folder)`);
  return paths;
}
