/**
 * What lint and static-analysis tools print, read into findings in the submission's own terms (paths relative
 * to the directory the tool ran in). The submission shapes that output (a diagnostic quotes its code), so every
 * parser is total and bounded: any string in, no throw, at most MAX_FINDINGS findings of bounded size out.
 */

/** One finding of a tool, in the submission's own terms. */
export interface Finding {
  file: string;
  line: number;
  check: string;
  message: string;
  /** command stages only: points the tool itself gave */
  points?: number;
}

export const MAX_FINDINGS = 10_000;
const MAX_MESSAGE = 500;
// No tool writes a diagnostic this long; such a line is a submission printing garbage into the report.
const MAX_LINE = 64 * 1024;
const MAX_POINTS = 1_000_000;

/** `text` cut to at most `max` code points, the last of them "…"; a surrogate pair is never split. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let count = 0;
  let end = 0;
  let cut = 0;
  for (const char of text) {
    if (count === max - 1) cut = end;
    if (++count > max) return `${text.slice(0, cut)}…`;
    end += char.length;
  }
  return text;
}

/** `path` with `.` and `..` resolved and repeated slashes dropped (clang-tidy prints `/work/sub/../main.cpp`). */
function normalise(path: string): string {
  const absolute = path.startsWith("/");
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part !== "..") parts.push(part);
    else if (parts.length > 0 && parts[parts.length - 1] !== "..") parts.pop();
    else if (!absolute) parts.push(part);
  }
  return (absolute ? "/" : "") + parts.join("/");
}

/**
 * `path` relative to `workDir` when it lies inside it; a file elsewhere (a system header) keeps its absolute
 * path, so a caller can tell it is none of the submission's.
 */
export function submissionPath(path: string, workDir: string): string {
  const file = normalise(path);
  const root = normalise(workDir);
  if (root === "/") return file.replace(/^\//, "");
  return root !== "" && file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the colour codes this removes
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b/g;

/** The output's lines, CR and colour codes removed; null stands for a line over MAX_LINE. */
function* linesOf(output: string): Generator<string | null> {
  if (typeof output !== "string") return;
  let start = 0;
  while (start < output.length) {
    const newline = output.indexOf("\n", start);
    const end = newline < 0 ? output.length : newline;
    yield end - start > MAX_LINE ? null : output.slice(start, end).replace(/\r$/, "").replace(ANSI, "");
    start = end + 1;
  }
}

function lineNumber(digits: string): number | null {
  const line = Number(digits);
  return Number.isSafeInteger(line) ? line : null;
}

// file:line:column: warning|error: message [check]; clang reports a fatal error as "error" too.
const CLANG_TIDY = /^(.+?):(\d+):(\d+): (warning|error): (.*?)(?: \[([^\][]+)\])?$/;
// The marker line clang prints under the source excerpt: `    ~~^~~`.
const CARET = /^[\t ~]*\^[\t ~^]*$/;

/**
 * clang-tidy's warnings and errors (notes only explain them). The bracket may name several checks and
 * `-warnings-as-errors`: the first check counts. A source excerpt that looks like a diagnostic (a comment of
 * the submission's) is told apart by the caret line clang prints under every excerpt.
 */
export function parseClangTidy(output: string, workDir: string): Finding[] {
  const findings: Finding[] = [];
  let pending: Finding | null = null;
  for (const line of linesOf(output)) {
    if (findings.length >= MAX_FINDINGS) break;
    if (pending && !(line !== null && CARET.test(line))) findings.push(pending);
    pending = null;
    const match = line === null ? null : CLANG_TIDY.exec(line);
    const number = match ? lineNumber(match[2]) : null;
    if (!match || number === null) continue;
    const checks = (match[6] ?? "").split(",").filter((check) => check !== "" && !check.startsWith("-"));
    pending = {
      file: submissionPath(match[1], workDir),
      line: number,
      check: checks[0] ?? `clang-diagnostic-${match[4]}`,
      message: clip(match[5], MAX_MESSAGE),
    };
  }
  if (pending && findings.length < MAX_FINDINGS) findings.push(pending);
  return findings;
}

// --template='{file}:{line}:{column}: {severity}: {message} [{id}]' (the column may be left out).
const CPPCHECK = /^(.+?):(\d+):(?:\d+:)? ([a-z]+): (.*) \[([^\s\][]+)\]$/;
/**
 * What cppcheck says about itself rather than the code, so no deduction may hang on it:
 * - severities information and debug: its configuration and progress (`--enable=all` turns them on);
 * - missingInclude, missingIncludeSystem: headers it was not given (reported at `nofile:0`), not a fault;
 * - checkersReport: the list of checkers it ran (cppcheck 2.13+);
 * - unmatchedSuppression: about the stage's suppression list, not the submission;
 * - toomanyconfigs, noValidConfiguration, normalCheckLevelMaxBranches: limits of its own analysis;
 * - internalAstError, internalError, cppcheckError: its parser gave up (on valid modern C++ too); a real
 *   syntax error fails compilation anyway.
 */
const CPPCHECK_NOISE_SEVERITIES = new Set(["information", "debug"]);
const CPPCHECK_NOISE_IDS = new Set([
  "missingInclude",
  "missingIncludeSystem",
  "checkersReport",
  "unmatchedSuppression",
  "toomanyconfigs",
  "noValidConfiguration",
  "normalCheckLevelMaxBranches",
  "internalAstError",
  "internalError",
  "cppcheckError",
]);

/** cppcheck's findings in the template above (it writes them on stderr), less its noise. */
export function parseCppcheck(output: string, workDir: string): Finding[] {
  const findings: Finding[] = [];
  for (const line of linesOf(output)) {
    if (findings.length >= MAX_FINDINGS) break;
    const match = line === null ? null : CPPCHECK.exec(line);
    const number = match ? lineNumber(match[2]) : null;
    if (!match || number === null) continue;
    if (CPPCHECK_NOISE_SEVERITIES.has(match[3]) || CPPCHECK_NOISE_IDS.has(match[5])) continue;
    findings.push({
      file: submissionPath(match[1], workDir),
      line: number,
      check: match[5],
      message: clip(match[4], MAX_MESSAGE),
    });
  }
  return findings;
}

// file:line:  message  [category/name] [confidence 1-5]; line 0 is the whole file (legal/copyright).
const CPPLINT = /^(.+?):(\d+): {2}(.*?) {2}\[([^\s\][]+)\] \[\d\]$/;

/** cpplint's default (emacs) output on stderr; its "Done processing" and "Total errors" lines are skipped. */
export function parseCpplint(output: string, workDir: string): Finding[] {
  const findings: Finding[] = [];
  for (const line of linesOf(output)) {
    if (findings.length >= MAX_FINDINGS) break;
    const match = line === null ? null : CPPLINT.exec(line);
    const number = match ? lineNumber(match[2]) : null;
    if (!match || number === null) continue;
    findings.push({
      file: submissionPath(match[1], workDir),
      line: number,
      check: match[4],
      message: clip(match[3], MAX_MESSAGE),
    });
  }
  return findings;
}

const POINTS = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const PLACE = /^([^\s:]+):(\d+):(?:\d+:)?(?:\s+|$)/;

function validPoints(points: unknown): points is number {
  return typeof points === "number" && Number.isFinite(points) && points >= 0 && points <= MAX_POINTS;
}

/** One `points comment` line, or null when its points are not a number in range. */
function commandLine(line: string, workDir: string): Finding | null {
  const [, word, comment = ""] = /^(\S+)(?:\s+([\s\S]*))?$/.exec(line.trim()) ?? [];
  const points = word !== undefined && POINTS.test(word) ? Number(word) : Number.NaN;
  if (!validPoints(points)) return null;
  const place = PLACE.exec(comment);
  const number = place ? lineNumber(place[2]) : null;
  if (!place || number === null) return { file: "", line: 0, check: "", message: clip(comment, MAX_MESSAGE), points };
  const message = clip(comment.slice(place[0].length), MAX_MESSAGE);
  return { file: submissionPath(place[1], workDir), line: number, check: "", message, points };
}

/** A JSON array of {points, file?, line?, message}; null for anything else. */
function commandJson(text: string, workDir: string): Finding[] | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null; // malformed, or nested deep enough to exhaust the stack
  }
  if (!Array.isArray(value)) return null;
  const findings: Finding[] = [];
  for (const item of value.slice(0, MAX_FINDINGS)) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return null;
    const { points, file, line, message } = item as Record<string, unknown>;
    if (!validPoints(points) || typeof message !== "string") return null;
    if (file != null && typeof file !== "string") return null;
    if (line != null && !(Number.isSafeInteger(line) && (line as number) >= 0)) return null;
    findings.push({
      file: typeof file === "string" ? submissionPath(file, workDir) : "",
      line: typeof line === "number" ? line : 0,
      check: "",
      message: clip(message, MAX_MESSAGE),
      points,
    });
  }
  return findings;
}

/**
 * A command stage's output: one `points comment` line per finding (points a non-negative number; an optional
 * `file:line:` at the start of the comment names the place), or a JSON array of {points, file?, line?, message}.
 * null when the output is in neither form (then the stage failed). Empty output = no findings = [].
 * A finding without a place has file "" and line 0. Unlike the tools' parsers, an over-long line makes the
 * output invalid instead of being skipped: skipping it would quietly drop the points it gave.
 */
export function parseCommandOutput(output: string, workDir: string): Finding[] | null {
  if (typeof output !== "string") return null;
  const text = output.replace(/^\uFEFF/, "");
  if (text.trimStart().startsWith("[")) return commandJson(text, workDir);
  const findings: Finding[] = [];
  for (const line of linesOf(text)) {
    if (findings.length >= MAX_FINDINGS) break;
    if (line === null) return null;
    if (line.trim() === "") continue;
    const finding = commandLine(line, workDir);
    if (!finding) return null;
    findings.push(finding);
  }
  return findings;
}
