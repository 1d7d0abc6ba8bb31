import { Readable, Transform } from "node:stream";
import zlib from "node:zlib";
import * as tar from "tar-stream";
import { ArchiveError, formatBytes, type ArchiveLimits, type EntryCollector, type EntryKind } from "./archive-paths";

// The tar and tar.gz half of the archive reader: tar-stream, behind a cap on the unpacked stream.

// Headers, padding and long-name records are not file bytes; allow this much of them per file.
const TAR_OVERHEAD_PER_FILE = 4096;

export async function readTar(bytes: Buffer, format: "tar" | "tar.gz", collector: EntryCollector): Promise<void> {
  const extract = tar.extract();
  const stages = feedTar(bytes, format === "tar.gz", extract, collector.limits);
  try {
    for await (const entry of extract) await readTarEntry(entry, collector);
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    throw new ArchiveError("corrupt", `The ${format} archive is damaged or truncated.`, { cause: error });
  } finally {
    for (const stage of stages) stage.destroy();
  }
}

/** Counts the decompressed tar stream: a gzip of zeros is an endless run of empty tar blocks. */
function feedTar(bytes: Buffer, gzipped: boolean, extract: tar.Extract, limits: ArchiveLimits) {
  const maxStreamBytes = limits.maxTotalBytes + (limits.maxFiles + 256) * TAR_OVERHEAD_PER_FILE;
  let streamBytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      streamBytes += chunk.byteLength;
      if (streamBytes <= maxStreamBytes) return done(null, chunk);
      done(new ArchiveError("too-large", `The archive unpacks to more than ${formatBytes(maxStreamBytes)}.`));
    },
  });
  const source = Readable.from([bytes], { objectMode: false });
  const transforms: Transform[] = gzipped ? [zlib.createGunzip(), counter] : [counter];
  const stages = [source, ...transforms];
  for (const stage of stages) stage.on("error", (error) => extract.destroy(error));
  // A streamx Writable speaks the write/end/drain protocol that Node's pipe() relies on.
  transforms.reduce<Readable>((from, to) => from.pipe(to), source).pipe(extract as unknown as NodeJS.WritableStream);
  return stages;
}

type TarEntry = tar.ExtractEvents["entry"][1];

const TAR_KINDS = new Map<string, EntryKind>([
  ["file", "file"],
  ["contiguous-file", "file"],
  ["directory", "directory"],
  ["link", "link"],
  ["symlink", "link"],
  ["character-device", { special: "character device" }],
  ["block-device", { special: "block device" }],
  ["fifo", { special: "named pipe (FIFO)" }],
]);

async function readTarEntry(entry: TarEntry, collector: EntryCollector): Promise<void> {
  collector.countEntry();
  const { name, size } = entry.header;
  // tar-stream reports typeflags it does not know (sparse, volume labels…) as null.
  const type: string | null = entry.header.type;
  const kind = (type && TAR_KINDS.get(type)) || { special: "special file" };
  const path = collector.admitEntry(name, kind, size ?? 0);
  if (path === null) {
    entry.resume();
    return;
  }
  collector.add(path, await collector.collect(path, entry as AsyncIterable<Uint8Array>));
}
