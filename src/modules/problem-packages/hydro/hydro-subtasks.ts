import type { PackageCase } from "../model/package-model";

/**
 * Hydro's scored subtasks as our cases and groups. A `min` subtask (all cases must pass) is a group with its
 * score. A `sum` subtask's cases are scored on their own, each its share; when the subtask takes part in an
 * `if` (Hydro counts a subtask only once those it names have no failed case), each of its cases is a group of
 * its own with that share, so that the dependency can be said. A `max` subtask is a group too: stricter than
 * Hydro, where one passing case earns the score, unless it has a single case.
 */

export interface SubtaskCase {
  input: string;
  answer: string | null;
  /** Its limits; null: none given anywhere (Hydro's defaults). */
  timeMs: number | null;
  memoryMb: number | null;
  score: number;
  /** Whether config.yaml gives the case's score itself. */
  ownScore: boolean;
}

export interface Subtask {
  id: number;
  type: "min" | "max" | "sum";
  score: number;
  /** Hydro's `if`: ids of the subtasks it needs. */
  dependsOn: number[];
  cases: SubtaskCase[];
  /** How config.yaml names it in a note: "subtasks[2]", "cases", or "subtask 2" when found by file names. */
  label: string;
}

export function groupsOf(subtasks: Subtask[], at: string, notes: string[]) {
  const needs = dependenciesOf(subtasks, at, notes);
  const linked = new Set([...needs].flatMap(([s, others]) => (others.length > 0 ? [s, ...others] : [])));
  const cases: PackageCase[] = [];
  const groupScores = new Map<string, number>();
  const groupsOfSubtask = new Map<Subtask, string[]>();
  for (const s of subtasks) {
    const keys: string[] = [];
    s.cases.forEach((c, i) => {
      const alone = s.type === "sum";
      if (alone && !linked.has(s)) {
        cases.push({ input: c.input, answer: c.answer, category: "secret", group: null, score: c.score });
        return;
      }
      const key = alone ? `${s.id}.${i + 1}` : String(s.id);
      if (!keys.includes(key)) keys.push(key);
      groupScores.set(key, alone ? c.score : s.score);
      cases.push({ input: c.input, answer: c.answer, category: "secret", group: key });
    });
    groupsOfSubtask.set(s, keys);
    notesOf(s, linked.has(s), at, notes);
  }
  const groupDependsOn = new Map<string, string[]>();
  for (const [s, others] of needs) {
    if (others.length === 0) continue;
    const required = others.flatMap((o) => groupsOfSubtask.get(o)!);
    for (const key of groupsOfSubtask.get(s)!) groupDependsOn.set(key, required);
  }
  return { cases, groupScores, groupDependsOn };
}

/** Each subtask's `if` as the subtasks it names; an id that is no subtask's is dropped, as Hydro ignores it. */
function dependenciesOf(subtasks: Subtask[], at: string, notes: string[]): Map<Subtask, Subtask[]> {
  const ids = subtasks.map((s) => s.id).join(", ");
  const needs = new Map<Subtask, Subtask[]>();
  for (const s of subtasks) {
    const others: Subtask[] = [];
    for (const id of s.dependsOn) {
      const other = subtasks.find((o) => o.id === id);
      if (!other) notes.push(`${at}: ${s.label}.if names subtask ${id}, which is none (ids: ${ids}); Hydro ignores it`);
      else if (other === s) notes.push(`${at}: ${s.label}.if names the subtask itself: dropped`);
      else if (!others.includes(other)) others.push(other);
    }
    needs.set(s, others);
  }
  return needs;
}

function notesOf(s: Subtask, linked: boolean, at: string, notes: string[]) {
  if (s.type === "sum" && linked)
    notes.push(`${at}: ${s.label} (sum) is in an \`if\`: each of its cases is a group of its own, scored its share`);
  if (s.type === "max" && s.cases.length > 1)
    notes.push(
      `${at}: ${s.label} is scored \`max\` (one passing case earns its ${s.score} points in Hydro): ` +
        "here every case must pass",
    );
  if (s.type !== "sum" && s.cases.some((c) => c.ownScore && c.score !== s.score))
    notes.push(`${at}: ${s.label}: the cases' own scores are not used; the subtask scores ${s.score} as a whole`);
}
