import { createHash } from "node:crypto";
import { mkdir, readdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RemoteFile } from "./judge-api";

const DIGEST = /^[0-9a-f]{64}$/;
/** A file used this recently may be in a running record's hands: never pruned. */
const IN_USE_MS = 15 * 60_000;

/**
 * Config files on the judge machine, by SHA-256. A config version's files never change, so an entry
 * never goes stale and a new version is simply new digests: no restart, no invalidation. Every
 * download is checked against its digest before it is kept. Least recently used files go first
 * once the cache outgrows its bound.
 */
export class FileCache {
  private readonly pending = new Map<string, Promise<string>>();
  private bytesSincePrune = 0;

  constructor(private readonly dir: string, private readonly maxBytes: number) {}

  /** The cached file's path, downloading it first if needed (concurrent asks share one download). */
  async path(file: RemoteFile, download: (file: RemoteFile) => Promise<Uint8Array>): Promise<string> {
    if (!DIGEST.test(file.digest)) throw new Error(`not a SHA-256 digest: ${file.digest}`);
    const path = join(this.dir, file.digest.slice(0, 2), file.digest);
    const now = new Date();
    if (await utimes(path, now, now).then(() => true, () => false)) return path;
    let pending = this.pending.get(file.digest);
    if (!pending) {
      pending = this.fetch(file, path, download).finally(() => this.pending.delete(file.digest));
      this.pending.set(file.digest, pending);
    }
    return pending;
  }

  private async fetch(file: RemoteFile, path: string, download: (file: RemoteFile) => Promise<Uint8Array>): Promise<string> {
    const bytes = await download(file);
    const actual = createHash("sha256").update(bytes).digest("hex");
    if (actual !== file.digest) throw new Error(`${file.path}: downloaded bytes have digest ${actual}, expected ${file.digest}`);
    await mkdir(join(this.dir, file.digest.slice(0, 2)), { recursive: true });
    const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(temp, bytes, { mode: 0o644 });
    await rename(temp, path);
    this.bytesSincePrune += bytes.length;
    if (this.bytesSincePrune > this.maxBytes / 10) await this.prune();
    return path;
  }

  /** Drops least recently used files until the cache is under 80 % of its bound. */
  async prune(): Promise<void> {
    this.bytesSincePrune = 0;
    const entries: { path: string; size: number; used: number }[] = [];
    for (const shard of await readdir(this.dir).catch(() => [] as string[])) {
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
      await rm(entry.path, { force: true });
      total -= entry.size;
    }
  }
}
