/**
 * How Hydro's judge finds test cases by their file names when testdata/config.yaml lists none
 * (`readSubtasksFromFiles` in Hydro's packages/common/subtask.ts, restated here): four naming rules tried in
 * order on each file of testdata/, the first that names an existing answer file wins. A number before a `-` or
 * `_` is a subtask (`2_7.in`: subtask 2, scored `min`); without one, every case is in subtask 1, scored `sum`.
 */

export interface NamedCase {
  input: string;
  output: string;
  /** The case's number; NaN where Hydro reads none (its order is then the names' order). */
  id: number;
}

export interface NamedSubtask {
  id: number;
  type: "min" | "sum";
  cases: NamedCase[];
}

interface NameRule {
  pattern: RegExp;
  answers: (m: RegExpExecArray) => (string | null)[];
  id: (m: RegExpExecArray) => number;
  subtask: (m: RegExpExecArray) => number;
  type: (m: RegExpExecArray) => "min" | "sum";
}

/** Hydro also tries each answer name with `input` spelled `output` (input3.txt → output3.txt). */
const withOutputSpelling = (names: string[]) =>
  names.flatMap((name) => [name, name.replace(/input/g, "output").replace(/INPUT/g, "OUTPUT")]);

const PLAIN_ENDINGS = ["out", "ans", "OUT", "ANS"];
const TEXT_ENDINGS = ["out", "ans"].flatMap((e) => [e, e.toUpperCase(), `${e}.txt`, `${e.toUpperCase()}.TXT`]);

// The rules in Hydro's order; the order matters, since a name can fit several.
const RULES: NameRule[] = [
  {
    // 1.in, data3.in, a2_1.in, subtask_1_4.in, input3.txt (with output3.txt)
    pattern: /^(([\w.-]*?)(?:(\d*)[-_])?(\d+))\.(in|IN|txt|TXT|in\.txt|IN\.TXT)$/,
    answers: (m) => [
      ...withOutputSpelling(TEXT_ENDINGS.map((ending) => `${m[1]}.${ending}`)),
      m[1].includes("input") ? `${m[1]}.txt`.replace(/input/g, "output") : null,
    ],
    id: (m) => Number(m[4]),
    subtask: (m) => Number(m[3] || 1),
    type: (m) => (m[3] ? "min" : "sum"),
  },
  {
    // data.in3 with data.ou3 or data.out3. Hydro reads this rule's case number from the "in" of the
    // extension, which is no number: such cases keep the order of their names.
    pattern: /^(\D*)\.(in|IN)(\d+)$/,
    answers: (m) => {
      const lower = m[2] === "in";
      return withOutputSpelling([`${m[1]}.${lower ? "ou" : "OU"}${m[3]}`, `${m[1]}.${lower ? "out" : "OUT"}${m[3]}`]);
    },
    id: () => Number.NaN,
    subtask: () => 1,
    type: () => "sum",
  },
  {
    // Names rule 1 does not take (other characters before the numbers): 第1-2.in
    pattern: /^(\D*)([0-9]+)([-_])([0-9]+)\.(in|IN)$/,
    answers: (m) => PLAIN_ENDINGS.map((ending) => `${m[1]}${m[2]}${m[3]}${m[4]}.${ending}`),
    id: (m) => Number(m[4]),
    subtask: (m) => Number(m[2]),
    type: () => "min",
  },
  {
    // 3-large.in, 12_random.in
    pattern: /^(([0-9]+)[-_].*)\.(in|IN)$/,
    answers: (m) => PLAIN_ENDINGS.map((ending) => `${m[1]}.${ending}`),
    id: (m) => Number(m[2]),
    subtask: () => 1,
    type: () => "sum",
  },
];

/** The subtasks Hydro finds among these file names (testdata/'s, flat), in its order. */
export function subtasksFromNames(names: string[]): NamedSubtask[] {
  const present = new Set(names);
  const subtasks = new Map<number, NamedSubtask>();
  for (const name of names) {
    for (const rule of RULES) {
      const m = rule.pattern.exec(name);
      if (!m) continue;
      const output = rule.answers(m).find((answer) => answer !== null && answer !== name && present.has(answer));
      if (!output) continue;
      const id = rule.subtask(m);
      const subtask = subtasks.get(id) ?? { id, type: rule.type(m), cases: [] };
      subtasks.set(id, subtask);
      if (!subtask.cases.some((c) => c.input === name && c.output === output))
        subtask.cases.push({ input: name, output, id: rule.id(m) });
      break;
    }
  }
  return [...subtasks.values()]
    .sort((a, b) => a.id - b.id)
    .map((s) => ({ ...s, cases: s.cases.sort((a, b) => naturalCompare(a.input, b.input)) }));
}

/**
 * Hydro's order of file names: runs of digits compared as numbers, other runs as text (2.in before 10.in); a
 * run of digits against one of letters, or equal numbers spelled differently (01, 1), compare as text.
 */
export function naturalCompare(a: string, b: string): number {
  const left = a.match(/\D+|\d+/g) ?? [];
  const right = b.match(/\D+|\d+/g) ?? [];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const difference = Number(left[i]) - Number(right[i]);
    if (!Number.isNaN(difference) && difference !== 0) return difference;
    if (left[i] !== right[i]) return left[i] > right[i] ? 1 : -1;
  }
  return left.length - right.length;
}
