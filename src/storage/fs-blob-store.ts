import { randomUUID } from "node:crypto";
import { chmod, mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from "node:fs/promises";
import { dirname, join } from "node:path";
import { BlobNotFoundError, digestFor, fanOutPath, isDigest, type BlobStore } from "./blob-store";

const FILE_MODE = 0o644;
const DIR_MODE = 0o755;
const STREAM_CHUNK_BYTES = 256 * 1024;
const FAN_OUT_NAME = /^[0-9a-f]{2}$/;

/** Blobs as files under `<dir>/blobs/ab/cd/abcd…`. */
export class FsBlobStore implements BlobStore {
  readonly kind = "fs" as const;
  private readonly root: string;

  constructor(dir: string) {
    this.root = join(dir, "blobs");
  }

  async put(data: Uint8Array, expectedDigest?: string): Promise<string> {
    const digest = digestFor(data, expectedDigest);
    const path = this.pathOf(digest);
    if (await this.has(digest)) return digest;
    await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
    // A unique temp name in the same directory, then rename: readers never see a partial file, and
    // concurrent puts of the same bytes each rename a complete copy over the other (same content).
    // The name is not a digest, so list() never reports it.
    const temp = join(dirname(path), `.tmp-${digest.slice(0, 8)}-${randomUUID()}`);
    try {
      await writeDurably(temp, data);
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return digest;
  }

  async has(digest: string): Promise<boolean> {
    return (await this.size(digest)) !== null;
  }

  async get(digest: string): Promise<Uint8Array> {
    try {
      const buffer = await readFile(this.pathOf(digest));
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    } catch (error) {
      throw isMissing(error) ? new BlobNotFoundError(digest) : error;
    }
  }

  async stream(digest: string): Promise<ReadableStream<Uint8Array>> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(digest), "r");
    } catch (error) {
      throw isMissing(error) ? new BlobNotFoundError(digest) : error;
    }
    // Reading from the already-open descriptor keeps the download whole even if the blob is deleted
    // (garbage-collected) while it is being streamed.
    return streamFrom(handle);
  }

  async size(digest: string): Promise<number | null> {
    try {
      return (await stat(this.pathOf(digest))).size;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(digest: string): Promise<void> {
    // Empty fan-out directories stay: removing one could race a concurrent put between its mkdir and open.
    await rm(this.pathOf(digest), { force: true });
  }

  async *list(): AsyncIterable<string> {
    for (const first of await fanOutDirs(this.root)) {
      for (const second of await fanOutDirs(join(this.root, first))) {
        const prefix = first + second;
        for (const name of await namesIn(join(this.root, first, second))) {
          if (isDigest(name) && name.startsWith(prefix)) yield name;
        }
      }
    }
  }

  private pathOf(digest: string): string {
    return join(this.root, fanOutPath(digest));
  }
}

/**
 * Written, flushed to disk and closed before the rename, so a crash cannot leave a truncated blob under a valid name.
 */
async function writeDurably(path: string, data: Uint8Array): Promise<void> {
  const handle = await open(path, "wx", FILE_MODE);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  // The umask may have narrowed the mode given to open(); blobs are meant to be readable by other services.
  await chmod(path, FILE_MODE);
}

function streamFrom(handle: FileHandle): ReadableStream<Uint8Array> {
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const buffer = new Uint8Array(STREAM_CHUNK_BYTES);
        const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, null);
        if (bytesRead === 0) {
          await close();
          controller.close();
          return;
        }
        controller.enqueue(buffer.subarray(0, bytesRead));
      } catch (error) {
        await close().catch(() => {});
        controller.error(error);
      }
    },
    cancel: close,
  });
}

async function namesIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    // A stray file where a fan-out directory would be holds no blobs; it must not stop garbage collection.
    if (isMissing(error) || (error as NodeJS.ErrnoException).code === "ENOTDIR") return [];
    throw error;
  }
}

async function fanOutDirs(dir: string): Promise<string[]> {
  return (await namesIn(dir)).filter((name) => FAN_OUT_NAME.test(name));
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === "ENOENT";
}
