import { Readable } from "node:stream";
import zlib from "node:zlib";
import * as tar from "tar-stream";
import { ZipFile } from "yazl";

// Builds download archives as streams: each file is read only when its turn comes and only as fast
// as the client takes the bytes, so a large problem never sits in memory whole.

export interface ArchiveSource {
  path: string;
  size: number;
  read: () => Promise<Uint8Array>;
}

// A fixed mtime makes the same files give the same bytes (cacheable, comparable downloads).
// DOS timestamps are local time, so zip uses local midnight and no UTC extra field: identical in every time zone.
const ZIP_MTIME = new Date(2000, 0, 1);
const TAR_MTIME = new Date(Date.UTC(2000, 0, 1));

export function zipArchive(files: ArchiveSource[]): ReadableStream<Uint8Array> {
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  zip.on("error", (error: Error) => output.destroy(error));
  const options = { mtime: ZIP_MTIME, forceDosTimestamp: true, mode: 0o100644, compress: true };
  for (const file of files) {
    // yazl calls this when the previous entry has been written out, not before.
    zip.addReadStreamLazy(file.path, { ...options, size: file.size }, (provide) => {
      readSource(file).then(
        (data) => provide(null, Readable.from([data], { objectMode: false })),
        (error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error))),
      );
    });
  }
  zip.end();
  return toWebStream(output, []);
}

export function tarGzArchive(files: ArchiveSource[]): ReadableStream<Uint8Array> {
  const pack = tar.pack();
  const gzip = zlib.createGzip();
  pack.on("error", (error: Error) => gzip.destroy(error));
  pack.pipe(gzip);
  packFiles(pack, files).catch((error: unknown) =>
    pack.destroy(error instanceof Error ? error : new Error(String(error))),
  );
  return toWebStream(gzip, [pack]);
}

async function packFiles(pack: tar.Pack, files: ArchiveSource[]): Promise<void> {
  for (const file of files) {
    if (pack.destroyed) return;
    const data = await readSource(file);
    const header = { name: file.path, size: data.byteLength, mode: 0o644, mtime: TAR_MTIME, type: "file" as const };
    // The callback fires once the pack has handed the bytes on, which waits for the consumer to drain them.
    await new Promise<void>((resolve, reject) => {
      pack.entry(header, data, (error) => (error ? reject(error) : resolve()));
    });
  }
  pack.finalize();
}

async function readSource(file: ArchiveSource): Promise<Buffer> {
  const data = await file.read();
  // A size that changed under us would otherwise produce a silently wrong archive.
  if (data.byteLength !== file.size) {
    throw new Error(`${file.path} was expected to be ${file.size} bytes but ${data.byteLength} were read.`);
  }
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * A pull source: the Node stream is read only when the consumer asks for the next chunk, so
 * backpressure from the HTTP client reaches all the way back to `read()`.
 */
function toWebStream(output: Readable, alsoDestroy: { destroy(): void }[]): ReadableStream<Uint8Array> {
  const chunks = output[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value as Uint8Array);
      },
      cancel() {
        output.destroy();
        for (const stream of alsoDestroy) stream.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

export type DownloadFormat = "zip" | "tar";

/**
 * A streamed download of stored files as zip or tar.gz, named `<baseName>.zip|.tar.gz` (the name is
 * reduced to safe characters so it cannot break the header).
 */
export function archiveDownload(
  files: { path: string; size: number; digest: string }[],
  store: { get(digest: string): Promise<Uint8Array> },
  baseName: string,
  format: DownloadFormat,
): Response {
  const sources = files.map((f) => ({ path: f.path, size: f.size, read: () => store.get(f.digest) }));
  const name = `${baseName}.${format === "zip" ? "zip" : "tar.gz"}`.replace(/[^A-Za-z0-9._-]/g, "_");
  return new Response(format === "zip" ? zipArchive(sources) : tarGzArchive(sources), {
    headers: {
      "content-type": format === "zip" ? "application/zip" : "application/gzip",
      "content-disposition": `attachment; filename="${name}"`,
    },
  });
}
