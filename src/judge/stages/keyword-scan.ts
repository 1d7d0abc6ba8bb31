import { clip } from "./findings";
import { regexProblem } from "../../core/config-model/config-stages";
import { codeOnly, familyOf } from "./keywords";

/**
 * The keyword rules matched against the code keywords.ts leaves of each file (comments and literals blanked),
 * in this thread or, bounded in time, in a worker (keyword-worker.ts). A regular expression that does not
 * compile is refused at upload by the same check (config-stages.ts regexProblem); a judge meets one only in a
 * config an older API let through.
 */
export interface KeywordRule {
  pattern?: string;
  regex?: string;
  deduction?: number;
  forbid?: boolean;
  message?: string;
}
export interface KeywordHit {
  rule: number;
  file: string;
  line: number;
  text: string;
}

export const MAX_HITS = 10_000;
const MAX_HIT_TEXT = 200;
const WORD = "[\\p{L}\\p{M}\\p{N}_]";
const WORD_CHAR = new RegExp(`^${WORD}$`, "u");

/** A rule's expression: its regex as given, else its pattern literally with elastic whitespace; null: none. */
function expressionOf(rule: KeywordRule): RegExp | null {
  if (typeof rule.regex === "string") return new RegExp(rule.regex, "gu");
  const pattern = typeof rule.pattern === "string" ? rule.pattern.trim() : "";
  if (pattern === "") return null;
  const body = pattern
    .split(/\s+/)
    .map((part) => part.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&"))
    .join("\\s+");
  const chars = Array.from(pattern);
  const before = WORD_CHAR.test(chars[0]) ? `(?<!${WORD})` : "";
  const after = WORD_CHAR.test(chars[chars.length - 1]) ? `(?!${WORD})` : "";
  return new RegExp(before + body + after, "gu");
}

/** A rule's first `budget` non-empty matches: they hold the first `budget` of all rules, whatever the order. */
function matchesOf(code: string, expression: RegExp, rule: number, budget: number) {
  const found: { rule: number; index: number; text: string }[] = [];
  for (const match of code.matchAll(expression)) {
    if (match[0] !== "") found.push({ rule, index: match.index, text: match[0] });
    if (found.length >= budget) break;
  }
  return found;
}

/**
 * Every occurrence of every rule in the files' code (codeOnly), in file order, then position, then rule; an
 * empty match is no occurrence. At most MAX_HITS in all. A regex that does not compile throws: a broken rule
 * must fail the stage rather than pass everyone.
 */
export function scanKeywords(files: { path: string; text: string }[], rules: KeywordRule[]): KeywordHit[] {
  const expressions = rules.map((rule, index) => {
    const problem = typeof rule.regex === "string" ? regexProblem(rule.regex) : null;
    if (problem) throw new Error(`keyword rule ${index}: ${problem}`);
    return expressionOf(rule);
  });
  const hits: KeywordHit[] = [];
  // In a C or C++ submission any file may be #included (a `helper.py` holding `#define J goto`): each is read
  // as C, so Python's `#` comments cannot hide a directive.
  const cSubmission = files.some((file) => /\.(c|cc|cpp|cxx|h|hh|hpp)$/i.test(file.path));
  for (const file of files) {
    const family = familyOf(file.path);
    const code = codeOnly(file.text, cSubmission && family !== "c-templates" ? "c" : family);
    const budget = MAX_HITS - hits.length;
    const found = expressions.flatMap((expression, rule) =>
      expression ? matchesOf(code, expression, rule, budget) : [],
    );
    found.sort((a, b) => a.index - b.index || a.rule - b.rule);
    let [line, counted] = [1, 0];
    for (const { rule, index, text } of found.slice(0, MAX_HITS - hits.length)) {
      for (let at = code.indexOf("\n", counted); at >= 0 && at < index; at = code.indexOf("\n", at + 1)) line++;
      counted = index;
      hits.push({ rule, file: file.path, line, text: clip(text, MAX_HIT_TEXT) });
    }
    if (hits.length >= MAX_HITS) break;
  }
  return hits;
}

/**
 * scanKeywords in a Bun Worker, terminated after timeoutMs (its start included): an author's regular expression
 * that backtracks for ever must not hang the judge. Rejects with an Error saying it ran out of time.
 */
export function scanKeywordsBounded(
  files: { path: string; text: string }[],
  rules: KeywordRule[],
  timeoutMs: number,
): Promise<KeywordHit[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./keyword-worker.ts", import.meta.url));
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.terminate();
      finish();
    };
    const timer = setTimeout(
      () => settle(() => reject(new Error(`the keyword scan ran out of time (${timeoutMs} ms)`))),
      timeoutMs,
    );
    worker.addEventListener("message", (event: MessageEvent) => {
      const answer = event.data as { hits: KeywordHit[] } | { error: string };
      settle(() => ("hits" in answer ? resolve(answer.hits) : reject(new Error(answer.error))));
    });
    worker.addEventListener("error", (event: ErrorEvent) =>
      settle(() => reject(new Error(`the keyword scan failed: ${event.message}`))),
    );
    worker.addEventListener("close", () =>
      settle(() => reject(new Error("the keyword scan stopped without an answer"))),
    );
    try {
      worker.postMessage({ files, rules });
    } catch (error) {
      settle(() => reject(error)); // a rule or file that cannot be copied to the worker
    }
  });
}
