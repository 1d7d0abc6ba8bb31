import type { CCS_JUDGEMENT_TYPE_IDS } from "./ccs.schemas";

/**
 * Our records, problems and verdicts in the Contest API's terms (docs/contest-api.md): its ids are at most
 * 36 characters of [a-zA-Z0-9_.-], so a judgement (a record judged again is a new one) and a run (one of its
 * cases) carry the record's UUID in base 36 (25 characters) with their numbers after it.
 */

type CcsTypeId = (typeof CCS_JUDGEMENT_TYPE_IDS)[number];

const B36 = 25;

/** A UUID as 25 base-36 digits, and back (null: not one of ours). */
export function compactUuid(uuid: string): string {
  return BigInt(`0x${uuid.replaceAll("-", "")}`)
    .toString(36)
    .padStart(B36, "0");
}

export function expandUuid(compact: string): string | null {
  if (!/^[0-9a-z]{25}$/.test(compact)) return null;
  let value = 0n;
  for (const digit of compact) value = value * 36n + BigInt(Number.parseInt(digit, 36));
  if (value >= 1n << 128n) return null;
  const hex = value.toString(16).padStart(32, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The record's n-th judgement (0: the first; a rejudge makes the next). */
export const judgementId = (recordId: string, n: number) => `${compactUuid(recordId)}-${n}`;
/** Its run of case `ordinal` (1-based, as the spec counts test cases). */
export const runId = (recordId: string, n: number, ordinal: number) => `${judgementId(recordId, n)}-${ordinal}`;

/** A judgement's or run's id read back: the record, the judgement's number, the run's ordinal. */
export function parseJudgementId(id: string): { recordId: string; n: number; ordinal: number | null } | null {
  const match = /^([0-9a-z]{25})-(\d{1,3})(?:-(\d{1,4}))?$/.exec(id);
  const recordId = match && expandUuid(match[1]);
  if (!match || !recordId) return null;
  return { recordId, n: Number(match[2]), ordinal: match[3] === undefined ? null : Number(match[3]) };
}

/** A problem's label by its place in the set: A…Z, then AA, AB…, as contests letter them. */
export function problemLabel(ordinal: number): string {
  let label = "";
  for (let n = ordinal + 1; n > 0; n = Math.floor((n - 1) / 26))
    label = String.fromCharCode(65 + ((n - 1) % 26)) + label;
  return label;
}

/**
 * A language name as an id: `c++` is `cpp`, anything else outside the id's characters an underscore, at most 36
 * characters, not starting with `-` or `.` nor ending with `.` (the spec's ID).
 */
export const languageId = (name: string) =>
  name
    .toLowerCase()
    .replaceAll("+", "p")
    .replace(/[^a-z0-9_.-]/g, "_")
    .replace(/^[-.]/, "_")
    .slice(0, 36)
    .replace(/\.$/, "_");

/** File extensions of the languages our presets name, for tools that guess a submission's language. */
const EXTENSIONS: Record<string, string[]> = {
  c: ["c"],
  cpp: ["cpp", "cc", "cxx", "c++"],
  python3: ["py"],
  python: ["py"],
  java: ["java"],
  go: ["go"],
  rust: ["rs"],
  javascript: ["js"],
};
export const extensionsOf = (name: string) => EXTENSIONS[languageId(name)] ?? [];

/** Our case results as the spec's judgement types. */
const CASE_TYPES: Record<string, string> = {
  accepted: "AC",
  wrong_answer: "WA",
  time_limit_exceeded: "TLE",
  memory_limit_exceeded: "MLE",
  output_limit_exceeded: "OLE",
  runtime_error: "RTE",
  compile_error: "CE",
  system_error: "JE",
};
export const caseType = (state: string): string | null => CASE_TYPES[state] ?? null;

/**
 * A judged record's type: AC when accepted, JE when the judge failed, else its first case that was not
 * accepted (the board's verdict, which decides the penalty); WA when none says more (a forbidden stage).
 */
export function recordType(state: string, firstFailure: string | null): string | null {
  if (state === "accepted") return "AC";
  if (state === "failed") return "JE";
  if (state !== "rejected") return null;
  const type = firstFailure ? caseType(firstFailure) : null;
  return type && type !== "AC" ? type : "WA";
}

/** The judgement types we give, with our verdict behind each (the set's penaltyVerdicts decide `penalty`). */
export const JUDGEMENT_TYPES: { id: CcsTypeId; name: string; verdict: string | null; solved: boolean }[] = [
  { id: "AC", name: "correct", verdict: null, solved: true },
  { id: "WA", name: "wrong answer", verdict: "wrong_answer", solved: false },
  { id: "TLE", name: "time limit exceeded", verdict: "time_limit_exceeded", solved: false },
  { id: "MLE", name: "memory limit exceeded", verdict: "memory_limit_exceeded", solved: false },
  { id: "OLE", name: "output limit exceeded", verdict: "output_limit_exceeded", solved: false },
  { id: "RTE", name: "run-time error", verdict: "runtime_error", solved: false },
  { id: "CE", name: "compiler error", verdict: "compile_error", solved: false },
  { id: "JE", name: "judging error", verdict: null, solved: false },
];
