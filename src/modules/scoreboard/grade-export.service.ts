import type { EntityManager } from "@mikro-orm/postgresql";
import type { BlobStore } from "../../storage/blob-store";
import { stringify } from "csv-stringify/sync";
import type { DomainAccess } from "../identity/access";
import { uuidArray } from "../../db/addressing";
import type { ProblemSet } from "../problem-sets/problem-set.entity";
import { scoreboard } from "./scoreboard.service";
import { managesProblemSets } from "../problem-sets/problem-sets.service";
import { GRADE_PEOPLE_SQL, GRADE_STAGES_SQL } from "./scoreboard.sql";
import type { StageReport } from "../../core/judge-protocol";

interface Person {
  id: string;
  username: string;
  student_id: string;
  real_name: string;
}

/** Spreadsheet programs read UTF-8 without a byte-order mark as the local code page: Chinese names break. */
const BOM = "\uFEFF";

/**
 * The set's grades for a grade book: one row per row of the board — the set's participants (board-people.ts:
 * the domain's students, submitted or not, and anyone else with a record in the set who is no member now),
 * by student id; staff rows (every member: the teacher, TAs who tested) only when staff ask (`staffRows`).
 * Each problem gives its score (the set's rule, after any late penalty; empty when no result is shown), the
 * raw score beside it and a late flag (and, when the set asks for them, each stage's deduction:
 * `gradeStages`), then the total. The same scoreboard decides the figures, so the file and
 * `GET …/scoreboard` always agree.
 *
 * Student ids and real names are private everywhere else: a caller who does not manage problem sets gets
 * what the scoreboard shows them (its rows, without those columns' values), not every classmate's id and name.
 *
 * Cells a spreadsheet would run as a formula (a name starting with `=`, `+`, `-`, `@`) are prefixed
 * with `'` (csv-stringify's `escape_formulas`): a student's chosen name must not execute on the
 * teacher's machine.
 */
export async function gradeCsv(
  em: EntityManager,
  store: BlobStore,
  access: DomainAccess,
  set: ProblemSet,
  options: { staffRows?: boolean } = {},
): Promise<string> {
  const staff = managesProblemSets(access);
  const board = (await scoreboard(em, store, access, set, { staffRows: staff && options.staffRows === true })).view();
  const ranked = new Map(board.rows.map((row) => [row.userId, row]));
  const people = await em.execute<Person[]>(GRADE_PEOPLE_SQL, [staff, staff, uuidArray([...ranked.keys()])]);
  people.sort((a, b) => compareText(a.student_id, b.student_id) || compareText(a.username, b.username));
  const header = ["student id", "real name", "username"];
  // Stage results are the records' details: staff's columns, as student ids and real names are.
  const stages = set.gradeStages && staff ? await stagesOf(em, access.domainId, board.rows) : null;
  const stageNames = (problemId: string) => stages?.names.get(problemId) ?? [];
  for (const problem of board.problems) {
    header.push(problem.title, `${problem.title} (raw)`, `${problem.title} (late)`);
    for (const name of stageNames(problem.id)) header.push(`${problem.title}: ${name}`);
  }
  header.push("total");
  const lines = people.map((person) => {
    const row = ranked.get(person.id);
    const cells = new Map(row?.cells.map((cell) => [cell.problemId, cell]));
    const line: (string | number)[] = [person.student_id, person.real_name, person.username];
    for (const problem of board.problems) {
      const cell = cells.get(problem.id);
      const judged = cell && cell.recordId !== null;
      line.push(judged ? cell.score : "", judged ? cell.rawScore : "", cell?.late ? "late" : "");
      const own = judged ? stages?.byRecord.get(cell.recordId!) : undefined;
      for (const name of stageNames(problem.id)) line.push(stageCell(own?.find((stage) => stage.name === name)));
    }
    line.push(row?.totalScore ?? 0);
    return line;
  });
  return BOM + stringify([header, ...lines], { escape_formulas: true, record_delimiter: "windows" });
}

type BoardRow = { cells: { problemId: string; recordId: string | null }[] };

/**
 * The stages of the records the board counts, and per problem the stage names they have, in the order first
 * met (a config's order; a later version's new stage after the others).
 */
async function stagesOf(em: EntityManager, domainId: string, rows: BoardRow[]) {
  const cells = rows.flatMap((row) => row.cells.filter((cell) => cell.recordId !== null));
  const found = await em.execute<{ id: string; stages: StageReport[] }[]>(GRADE_STAGES_SQL, [
    domainId,
    uuidArray(cells.map((cell) => cell.recordId!)),
  ]);
  const byRecord = new Map(found.map((record) => [record.id, record.stages]));
  const names = new Map<string, string[]>();
  for (const cell of cells) {
    const list = names.get(cell.problemId) ?? [];
    for (const stage of byRecord.get(cell.recordId!) ?? []) if (!list.includes(stage.name)) list.push(stage.name);
    names.set(cell.problemId, list);
  }
  return { byRecord, names };
}

/** A stage in the grade book: its deduction as a negative number, or what kept it from deducting. */
function stageCell(stage: StageReport | undefined): string | number {
  if (!stage) return "";
  if (stage.forbidden) return "forbidden";
  return stage.state === "done" ? -stage.deduction : stage.state;
}

/** Student ids sort as people read them ("2" before "10"), whatever their script. */
const collator = new Intl.Collator("en", { numeric: true });
const compareText = (a: string, b: string) => (a === b ? 0 : a === "" ? 1 : b === "" ? -1 : collator.compare(a, b));
