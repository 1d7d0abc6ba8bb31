import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The judge failed, not the program (the sandbox did not start, a file went missing on the host). */
export class JudgeFault extends Error {}

/** A file for a run's /work: bytes in memory, or a file on the host (the config cache, a built program). */
export interface StagedFile {
  path: string;
  mode: number;
  bytes?: Uint8Array;
  hostPath?: string;
}

/** A file of a run: bound read-only (a program, an input, a checker), or copied writable (sources). */
export interface WorkFile extends StagedFile {
  writable?: boolean;
}

/** One line of a run's layout as the runner reads it (runner-work.c). */
export interface LayoutEntry {
  how: "b" | "c" | "d";
  /** The file's name in the stage directory ("-" for a directory). */
  stage: string;
  path: string;
  mode: number;
}

/**
 * The judge's side of a run's /work (runner-work.c has the runner's): each file of a run is put in the
 * slot's stage directory on the host, under a name of the judge's, and the runner binds or copies it into a
 * /work made for that run alone. The stage is bound read-only into the container and hidden from programs,
 * so no program ever writes a name here: the judge removes only names it chose. A host file staged for the
 * run before (a program between the cases of a record) stays, as nothing can have changed it.
 */
export class Stage {
  /** Stage names of host files still staged, by host path and mode. */
  private readonly kept = new Map<string, string>();
  /** Stage names of this run's files written from memory: gone at the next run. */
  private written: string[] = [];
  private next = 0;

  constructor(readonly dir: string) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o755 });
  }

  /** Stages the run's files and says how the runner lays them out; refuses a layout /work cannot hold. */
  prepare(files: readonly WorkFile[], dirs: readonly string[] = []): LayoutEntry[] {
    checkLayout(
      files.map((f) => f.path),
      dirs,
    );
    for (const name of this.written) rmSync(join(this.dir, name), { force: true });
    this.written = [];
    const wanted = new Set(files.filter((f) => f.hostPath).map(keyOf));
    for (const [key, name] of this.kept)
      if (!wanted.has(key)) {
        rmSync(join(this.dir, name), { force: true });
        this.kept.delete(key);
      }
    const layout: LayoutEntry[] = dirs.map((path) => ({ how: "d", stage: "-", path, mode: 0o755 }));
    for (const file of files) {
      const how = file.writable ? "c" : "b";
      layout.push({ how, stage: this.stageOf(file), path: file.path, mode: file.mode & 0o777 });
    }
    return layout;
  }

  private stageOf(file: StagedFile): string {
    if (file.hostPath) {
      const key = keyOf(file);
      const kept = this.kept.get(key);
      if (kept) return kept;
      const name = String(this.next++);
      copyFileSync(file.hostPath, join(this.dir, name));
      chmodSync(join(this.dir, name), file.mode & 0o777);
      this.kept.set(key, name);
      return name;
    }
    const name = String(this.next++);
    writeFileSync(join(this.dir, name), file.bytes ?? new Uint8Array(), { mode: file.mode & 0o777 });
    chmodSync(join(this.dir, name), file.mode & 0o777);
    this.written.push(name);
    return name;
  }
}

const keyOf = (file: StagedFile) => `${file.mode}:${file.hostPath}`;

/** The most bytes a name may take on Linux file systems (NAME_MAX). */
export const NAME_MAX_BYTES = 255;
/** The most bytes of a path under /work the judge lays out (well within PATH_MAX). */
export const PATH_MAX_BYTES = 1024;

/** Why one path cannot be a path under /work, or null. */
function pathProblem(path: string): string | null {
  const parts = path.split("/");
  if (path.startsWith("/") || parts.some((part) => part === "" || part === "." || part === ".."))
    return `${JSON.stringify(path)} is not a relative path`;
  if (path.includes("\0")) return `${JSON.stringify(path)} holds a NUL byte`;
  if (Buffer.byteLength(path) > PATH_MAX_BYTES)
    return `${JSON.stringify(path.slice(0, 60))}… is longer than ${PATH_MAX_BYTES} bytes`;
  const long = parts.find((part) => Buffer.byteLength(part) > NAME_MAX_BYTES);
  if (long) return `the name ${JSON.stringify(long.slice(0, 60))}… is longer than ${NAME_MAX_BYTES} bytes`;
  return null;
}

/**
 * Why these files (and directories) cannot all be laid out in one directory, or null: an absolute path, an
 * empty, "." or ".." part, a name longer than a file system allows, the same file twice, or a file where
 * another path needs a directory ("a" and "a/b"). The API refuses these at the door (submissions, config
 * archives); the judge checks again rather than trust it.
 */
export function layoutProblem(files: readonly string[], dirs: readonly string[] = []): string | null {
  const seen = new Set<string>();
  const folders = new Set(dirs);
  for (const path of [...files, ...dirs]) {
    const problem = pathProblem(path);
    if (problem) return problem;
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
  }
  for (const path of files) {
    if (seen.has(path)) return `${JSON.stringify(path)} is there twice`;
    if (folders.has(path)) return `${JSON.stringify(path)} is both a file and a folder`;
    seen.add(path);
  }
  return null;
}

function checkLayout(paths: readonly string[], dirs: readonly string[]): void {
  const problem = layoutProblem(paths, dirs);
  if (problem) throw new JudgeFault(`the files cannot be laid out in /work: ${problem}`);
}
