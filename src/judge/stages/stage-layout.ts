import { readFile } from "node:fs/promises";
import { posix } from "node:path";
import type { ResolvedStage } from "../../core/config-model/config-stages";
import type { RemoteFile } from "../api/judge-api";
import { normalisePath } from "../run/plan";
import type { WorkFile } from "../sandbox/stage";
import { LINTABLE, type Linter, WORK_DIR } from "./linters";

/**
 * What a stage's tool is given in /work and how it is called, so that a submitted file is only ever read as a
 * source: never as the tool's settings (a CPPLINT.cfg, a .clang-tidy, cppcheck's std.cfg), never as a module
 * of the course's own script (a re.py beside style.py), never in place of the course's files.
 */
export interface ToolRun {
  argv: string[];
  files: WorkFile[];
}

/**
 * A linter on the files to lint. It runs from /tmp, empty when a run starts, not /work (cppcheck reads its
 * library files from the current directory first); each file is passed as /work/name (a submitted `--checks=…`
 * is a file to the tool, not an option); both streams go, in order, to stdout (cppcheck and cpplint write their
 * findings to stderr).
 */
export async function lintRun(
  linter: Linter,
  stage: ResolvedStage,
  files: WorkFile[],
  linted: string[],
): Promise<ToolRun> {
  const sources = linted.map((path) => `${WORK_DIR}/${path}`);
  const argv = ["/bin/sh", "-c", 'cd /tmp && exec "$@" 2>&1', "stage", ...linter.argv(stage, sources)];
  const given = linter.sourcesOnly ? files.filter((f) => LINTABLE.test(f.path)) : files;
  return { argv, files: await withoutSuppressions(given, linted) };
}

/**
 * The linted files with the tools' own suppression markers defused (`NOLINT`, `NOLINTNEXTLINE`, `NOLINTBEGIN`:
 * clang-tidy and cpplint; `cppcheck-suppress`), letter for letter so lines and columns stay: a student must not
 * switch off the course's checks with a comment.
 */
async function withoutSuppressions(files: WorkFile[], linted: string[]): Promise<WorkFile[]> {
  return Promise.all(
    files.map(async (file) => {
      if (!linted.includes(file.path) || !file.hostPath) return file;
      // Byte for byte (latin1 keeps every byte as it is, UTF-8 or not): only the markers change.
      const text = (await readFile(file.hostPath)).toString("latin1");
      const defused = text.replace(/NOLINT/g, "NOLlNT").replace(/cppcheck-suppress/g, "cppcheck-suppresz");
      return { path: file.path, mode: file.mode, bytes: Buffer.from(defused, "latin1"), writable: true };
    }),
  );
}

/** Where the course's files are laid out a second time, alone: the folder Python imports them from. */
export const COURSE_DIR = ".course";

/**
 * A command stage: the course's `files` first (a submitted file of the same path, or one in the way of its
 * folders, is left out: a student's style.py must not grade itself), beside the submission's. Python puts the
 * script's own directory, /work, first on its module path, where a submitted re.py would be the `re` the
 * course's style.py imports: the command runs with Python's safe path (PYTHONSAFEPATH, inherited by whatever it
 * starts), and the course's files are importable from a copy in a folder no submitted file is in.
 */
export async function commandRun(
  stage: ResolvedStage,
  files: WorkFile[],
  config: Map<string, RemoteFile>,
  cached: (file: RemoteFile) => Promise<string>,
): Promise<ToolRun | { missing: string }> {
  const course: WorkFile[] = [];
  for (const path of stage.files ?? []) {
    const name = normalisePath(path);
    const file = config.get(name);
    if (!file) return { missing: `the config version has no ${path}` };
    course.push({ path: name, mode: 0o755, hostPath: await cached(file) });
  }
  const beside = files.filter((f) => !course.some((c) => inTheWay(f.path, c.path)));
  const taken = [...beside, ...course].map((f) => f.path);
  const dir = freeFolder(COURSE_DIR, taken);
  const copies = course.map((f) => ({ ...f, path: `${dir}/${f.path}` }));
  const importable = [...new Set(copies.map((f) => `${WORK_DIR}/${posix.dirname(f.path)}`))];
  const env = ["PYTHONSAFEPATH=1", ...(importable.length ? [`PYTHONPATH=${importable.join(":")}`] : [])];
  return { argv: ["env", ...env, ...(stage.command ?? [])], files: [...beside, ...course, ...copies] };
}

/** Two paths that cannot both be laid out: the same, or one a folder of the other. */
const inTheWay = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

/** `base`, or `base-1`, `base-2`…: the first that is no path's folder or file. */
export function freeFolder(base: string, paths: string[]): string {
  for (let n = 0; ; n++) {
    const dir = n === 0 ? base : `${base}-${n}`;
    if (!paths.some((path) => inTheWay(path, dir))) return dir;
  }
}
