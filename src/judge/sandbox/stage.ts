import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { layoutProblem } from "../../core/file-layout";
import { mountTmpfs, unmount } from "./tmpfs";

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

/**
 * Room the stage keeps beyond a run's files: the staged files of earlier runs that covered layers of /work
 * still bind, at most the runner's PINNED_MAX (runner-layers.c), so a run of the full `JUDGE_DISK_MB` always fits.
 */
const PINNED_BYTES = 16 << 20;

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
 * container's stage on the host, under a name of the judge's, and the runner binds or copies it into a
 * /work made for that run alone. The stage is bound read-only into the container and hidden from programs,
 * so no program ever writes a name here: the judge removes only names it chose. A host file staged for the
 * run before (a program between the cases of a record) stays, as nothing can have changed it. The stage is
 * a tmpfs of its own, so a bind from it shows "/0" in a program's mountinfo, not a path of the host.
 */
export class Stage {
  /** Stage names of host files still staged, by host path and mode. */
  private readonly kept = new Map<string, string>();
  /** Stage names of this run's files written from memory: gone at the next run. */
  private written: string[] = [];
  private next = 0;

  constructor(
    readonly dir: string,
    bytes: number,
  ) {
    unmount(dir);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    mountTmpfs(dir, bytes + PINNED_BYTES, "0755");
  }

  /** The stage's tmpfs goes with its container. */
  close(): void {
    unmount(this.dir);
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

function checkLayout(paths: readonly string[], dirs: readonly string[]): void {
  const problem = layoutProblem(paths, dirs);
  if (problem) throw new JudgeFault(`the files cannot be laid out in /work: ${problem}`);
}
