import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { RemoteFile } from "../api/judge-api";

/** A file of a built directory, as built (in memory) and as kept (on the host). */
export interface BuiltFile {
  path: string;
  mode: number;
  bytes: Uint8Array;
}
export interface KeptFile {
  path: string;
  mode: number;
  hostPath: string;
}
interface Manifest {
  files: { path: string; mode: number }[];
  bytes: number;
}

const DIGEST = /^[0-9a-f]{64}$/;
/** A file used this recently may be in a running record's hands: never pruned. */
const IN_USE_MS = 15 * 60_000;
/** How often a file in use has its mtime renewed: far inside IN_USE_MS. */
const TOUCH_EVERY_MS = 60_000;
const MAX_TOUCHED = 100_000;
/** Built directories (compiled checkers) live beside the digest shards, each with its manifest. */
const BUILT = "built";
const MANIFEST = "manifest.json";

/**
 * Config files on the judge machine, by SHA-256. A config version's files never change, so an entry
 * never goes stale and a new version is simply new digests: no restart, no invalidation. Every
 * download is checked against its digest before it is kept. Least recently used files go first
 * once the cache outgrows its bound.
 */
export class FileCache {
  private readonly pending = new Map<string, Promise<string>>();
  private readonly building = new Map<string, Promise<KeptFile[]>>();
  /** When this process last marked a file used (its mtime), by digest. */
  private readonly touched = new Map<string, number>();
  private bytesSincePrune = 0;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
  ) {}

  /** The cached file's path, downloading it first if needed (concurrent asks share one download). */
  async path(file: RemoteFile, download: (file: RemoteFile) => Promise<Uint8Array>): Promise<string> {
    if (!DIGEST.test(file.digest)) throw new Error(`not a SHA-256 digest: ${file.digest}`);
    const path = join(this.dir, file.digest.slice(0, 2), file.digest);
    // A file touched within TOUCH_EVERY_MS is there (pruning spares anything used within IN_USE_MS): a
    // 100-case record asks for each input and answer once, not a syscall each.
    const touched = this.touched.get(file.digest);
    if (touched !== undefined && Date.now() - touched < TOUCH_EVERY_MS) return path;
    const now = new Date();
    if (
      await utimes(path, now, now).then(
        () => true,
        () => false,
      )
    ) {
      if (this.touched.size >= MAX_TOUCHED) this.touched.clear();
      this.touched.set(file.digest, now.getTime());
      return path;
    }
    let pending = this.pending.get(file.digest);
    if (!pending) {
      pending = this.fetch(file, path, download).finally(() => this.pending.delete(file.digest));
      this.pending.set(file.digest, pending);
    }
    return pending;
  }

  private async fetch(
    file: RemoteFile,
    path: string,
    download: (file: RemoteFile) => Promise<Uint8Array>,
  ): Promise<string> {
    const bytes = await download(file);
    const actual = createHash("sha256").update(bytes).digest("hex");
    if (actual !== file.digest)
      throw new Error(`${file.path}: downloaded bytes have digest ${actual}, expected ${file.digest}`);
    await mkdir(join(this.dir, file.digest.slice(0, 2)), { recursive: true });
    const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(temp, bytes, { mode: 0o644 });
    await rename(temp, path);
    this.bytesSincePrune += bytes.length;
    if (this.bytesSincePrune > this.maxBytes / 10) await this.prune();
    return path;
  }

  /**
   * Files built once from config files (a compiled checker) under `key`, a digest of everything the
   * build depends on: built by `build` on a miss (concurrent asks share one build), written to a
   * temporary directory and renamed into place, so a half-written build is never seen. A build that
   * throws is not kept: the next ask builds again.
   */
  async built(key: string, build: () => Promise<BuiltFile[]>): Promise<KeptFile[]> {
    if (!DIGEST.test(key)) throw new Error(`not a SHA-256 digest: ${key}`);
    const root = join(this.dir, BUILT, key);
    const kept = await this.readBuilt(root);
    if (kept) return kept;
    let pending = this.building.get(key);
    if (!pending) {
      pending = build()
        .then((files) => this.store(root, files))
        .finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }

  private async readBuilt(root: string): Promise<KeptFile[] | null> {
    const manifest = await readFile(join(root, MANIFEST), "utf8").then(
      (text) => JSON.parse(text) as Manifest,
      () => null,
    );
    if (!manifest) return null;
    const now = new Date();
    await utimes(root, now, now).catch(() => undefined);
    return manifest.files.map((f) => ({ ...f, hostPath: join(root, "files", f.path) }));
  }

  private async store(root: string, files: BuiltFile[]): Promise<KeptFile[]> {
    const temp = `${root}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      for (const file of files) {
        await mkdir(dirname(join(temp, "files", file.path)), { recursive: true });
        await writeFile(join(temp, "files", file.path), file.bytes, { mode: file.mode });
      }
      const bytes = files.reduce((sum, f) => sum + f.bytes.length, 0);
      const manifest: Manifest = { files: files.map(({ path, mode }) => ({ path, mode })), bytes };
      await writeFile(join(temp, MANIFEST), JSON.stringify(manifest));
      // Another judge process on this machine may have stored the same build first: then its copy stands.
      await rename(temp, root).catch(() => undefined);
      this.bytesSincePrune += bytes;
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
    const kept = await this.readBuilt(root);
    if (!kept) throw new Error(`could not keep the build in ${root}`);
    return kept;
  }

  /** Drops least recently used files (and builds) until the cache is under 80 % of its bound. */
  async prune(): Promise<void> {
    this.bytesSincePrune = 0;
    const entries: { path: string; size: number; used: number }[] = [];
    for (const key of await readdir(join(this.dir, BUILT)).catch(() => [] as string[])) {
      const root = join(this.dir, BUILT, key);
      const manifest = await readFile(join(root, MANIFEST), "utf8").then(
        (text) => JSON.parse(text) as Manifest,
        () => null,
      );
      const info = await stat(root).catch(() => null);
      if (manifest && info) entries.push({ path: root, size: manifest.bytes, used: info.mtimeMs });
    }
    for (const shard of await readdir(this.dir).catch(() => [] as string[])) {
      if (shard === BUILT) continue;
      for (const name of await readdir(join(this.dir, shard)).catch(() => [] as string[])) {
        const path = join(this.dir, shard, name);
        const info = await stat(path).catch(() => null);
        if (info?.isFile()) entries.push({ path, size: info.size, used: info.mtimeMs });
      }
    }
    let total = entries.reduce((sum, e) => sum + e.size, 0);
    const cutoff = Date.now() - IN_USE_MS;
    for (const entry of entries.sort((a, b) => a.used - b.used)) {
      if (total <= this.maxBytes * 0.8 || entry.used > cutoff) break;
      await rm(entry.path, { recursive: true, force: true });
      total -= entry.size;
    }
  }
}
