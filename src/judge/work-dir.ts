import { chmodSync, chownSync, copyFileSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { chmod, chown, copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { BWRAP_ENV } from "./sandbox";
import type { KeptFile, Slot } from "./slots";

/** The judge failed, not the program (the sandbox did not start, a file went missing on the host). */
export class JudgeFault extends Error {}

/** A file for a work directory: bytes in memory, or a file on the host (the config cache). */
export interface StagedFile {
  path: string;
  mode: number;
  bytes?: Uint8Array;
  hostPath?: string;
}

/**
 * A work directory emptied for a new run (the program may write only here and in /tmp). The directory
 * itself stays, root's with mode 1777: a slot's container has it mounted at /work, and a program may
 * make files in it but not change the directory (its mode, extended attributes, ACL) for the next run,
 * nor remove a file of root's (the program kept between cases, work-dir.ts).
 */
export async function emptyWorkDir(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  clearDir(dir, new Set());
  chownSync(dir, 0, 0);
  chmodSync(dir, WORK_DIR_MODE);
  return dir;
}

/** /work's mode: anyone may add files (the slot's uid), only their owner remove them. */
export const WORK_DIR_MODE = 0o1777;

/**
 * Removes what a program left in `dir`, but `keep`. Files go at once. A directory is moved aside (one
 * rename, beside `dir` on the same tmpfs, out of the container's sight) and removed by `rm -rf` in the
 * background: removing a program's tree in this process took time quadratic in its depth (a tree 4,000
 * deep blocked the judge for 28 s), and `rm` removes it in linear time without holding up the judge.
 */
export function clearDir(dir: string, keep: ReadonlySet<string>): void {
  const trash = join(dir, "..", ".trash");
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (keep.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (!entry.isDirectory()) {
      rmSync(path, { force: true });
      continue;
    }
    mkdirSync(trash, { recursive: true, mode: 0o700 });
    const aside = join(trash, `${Date.now()}-${Math.random().toString(36).slice(2)}`);
    renameSync(path, aside);
    Bun.spawn(["rm", "-rf", "--one-file-system", aside], {
      stdio: ["ignore", "ignore", "ignore"],
      env: { ...BWRAP_ENV },
    });
  }
}

/** A fresh work directory owned by the slot's uid (the program may write only here and in /tmp). */
export async function freshWorkDir(root: string, name: string, uid: number): Promise<string> {
  const dir = join(root, name);
  // The root is traversable, not listable: a slot's uid reaches its own directory and nothing else.
  await mkdir(root, { recursive: true });
  await chmod(root, 0o711);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { mode: 0o700 });
  await chown(dir, uid, uid);
  return dir;
}

/** The slot's work directory, emptied for the next run: the slot's container has it mounted at /work. */
export async function slotWorkDir(slot: Slot): Promise<string> {
  slot.kept = undefined;
  return emptyWorkDir(join(slot.root, "work"));
}

const checkPath = (path: string) => {
  // The API checks paths on upload; the judge, root on its machine, checks again rather than trust it.
  if (isAbsolute(path) || path.split("/").some((part) => part === ".." || part === ""))
    throw new JudgeFault(`refusing the path "${path}"`);
};

/** Writes files into a fresh directory as the slot's uid would own them. */
export async function populate(dir: string, uid: number, files: StagedFile[]): Promise<void> {
  for (const file of files) {
    checkPath(file.path);
    const target = join(dir, file.path);
    for (let parent = dirname(file.path); parent !== "."; parent = dirname(parent)) {
      await mkdir(join(dir, parent), { recursive: true });
      await chown(join(dir, parent), uid, uid);
    }
    if (file.bytes) await writeFile(target, file.bytes, { mode: file.mode });
    else await copyFile(file.hostPath!, target);
    await chown(target, uid, uid);
    await chmod(target, file.mode);
  }
}

/**
 * /work for one case: the program's files and this case's inputs (an interactive case's interactor and its
 * input, in a directory of their own), nothing else. The program's files stay
 * from one case to the next when they are exactly as they were put there: copied from the judge's
 * cache, owned by root and read-only (the program cannot change them, only remove or replace them, and
 * a file it made is its own uid's), so each is checked by inode, owner, mode, size and link count, and
 * copied again if anything differs. Everything else in /work goes, as before every run. The calls are
 * synchronous: on the slot's tmpfs each takes microseconds, less than a trip through the thread pool.
 */
export async function stageCase(slot: Slot, program: StagedFile[], inputs: StagedFile[]): Promise<string> {
  const dir = join(slot.root, "work");
  const keep = new Map<string, KeptFile>();
  for (const file of program) {
    const kept = slot.kept?.get(file.path);
    if (!kept || kept.hostPath !== file.hostPath) continue;
    const now = lstatSync(join(dir, file.path), { throwIfNoEntry: false });
    if (
      now?.isFile() &&
      now.uid === 0 &&
      now.nlink === 1 &&
      now.ino === kept.ino &&
      now.size === kept.size &&
      (now.mode & 0o7777) === kept.mode
    )
      keep.set(file.path, kept);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  clearDir(dir, new Set(keep.keys()));
  for (const file of program) {
    if (keep.has(file.path)) continue;
    // Only a program from the cache, in /work's top level, is kept; anything else is written as before.
    if (!file.hostPath || file.path.includes("/")) {
      await populate(dir, slot.uid, [file]);
      continue;
    }
    checkPath(file.path);
    const target = join(dir, file.path);
    copyFileSync(file.hostPath, target);
    const mode = file.mode & 0o555;
    chmodSync(target, mode);
    const made = lstatSync(target);
    keep.set(file.path, { hostPath: file.hostPath, ino: made.ino, size: made.size, mode });
  }
  slot.kept = keep;
  for (const input of inputs) {
    if (!input.hostPath || input.path.includes("/")) {
      await populate(dir, slot.uid, [input]);
      continue;
    }
    checkPath(input.path);
    const target = join(dir, input.path);
    copyFileSync(input.hostPath, target);
    chownSync(target, slot.uid, slot.uid);
    chmodSync(target, input.mode);
  }
  chownSync(dir, 0, 0);
  chmodSync(dir, WORK_DIR_MODE);
  return dir;
}
