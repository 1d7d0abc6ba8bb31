import zlib from "node:zlib";
import * as tar from "tar-stream";
import { ZipFile } from "yazl";
import { zipArchive, tarGzArchive, type ArchiveSource } from "../../src/modules/problem-configs/archive-writer";

/** Archives built in tests: well-formed ones, and the hostile ones no honest tool writes. */

export const MiB = 1024 * 1024;

export async function bytesOf(stream: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export function yazlZip(build: (zip: ZipFile) => void): Promise<Buffer> {
  const zip = new ZipFile();
  build(zip);
  zip.end();
  return bytesOf(zip.outputStream as AsyncIterable<Uint8Array>);
}

export interface RawZipEntry {
  name: string | Buffer;
  data?: string;
  deflated?: Buffer;
  claimedSize?: number;
  crc?: number;
}

/** A zip written by hand, for names and sizes that yazl rightly refuses to produce. */
export function rawZip(entries: RawZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const data = Buffer.from(entry.data ?? "");
    const body = entry.deflated ?? data;
    const fields = {
      method: entry.deflated ? 8 : 0,
      crc: entry.crc ?? zlib.crc32(data),
      size: entry.claimedSize ?? data.length,
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(fields.method, 8);
    local.writeUInt32LE(fields.crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(fields.size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(fields.method, 10);
    central.writeUInt32LE(fields.crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(fields.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    parts.push(local, name, body);
    directory.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const centralDirectory = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralDirectory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, centralDirectory, end]);
}

export type TarHeader = Parameters<tar.Pack["entry"]>[0];

export async function tarOf(entries: Array<TarHeader & { data?: string | Buffer }>): Promise<Buffer> {
  const pack = tar.pack();
  const bytes = bytesOf(pack as AsyncIterable<Uint8Array>);
  for (const { data, ...header } of entries) pack.entry(header, data ?? "");
  pack.finalize();
  return bytes;
}

// A full flush ends each 1 MiB block byte-aligned with no back-references, so copies of one
// block concatenate into a valid deflate stream: gigabytes of zeros from a few megabytes.
const ZEROS_BLOCK = zlib.deflateRawSync(Buffer.alloc(MiB), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
export const deflatedZeros = (mebibytes: number) =>
  Buffer.concat([...Array(mebibytes).fill(ZEROS_BLOCK), Buffer.from([0x03, 0x00])]);

export const sourcesOf = (files: Record<string, Buffer>): ArchiveSource[] =>
  Object.entries(files).map(([path, data]) => ({ path, size: data.length, read: async () => data }));

/** A well-formed zip or tar.gz of the given files, made by the server's own archive writer. */
export async function archiveOf(format: "zip" | "tar.gz", files: Record<string, string | Buffer>): Promise<Buffer> {
  const sources = sourcesOf(Object.fromEntries(Object.entries(files).map(([path, data]) => [path, Buffer.from(data)])));
  return bytesOf(format === "zip" ? zipArchive(sources) : tarGzArchive(sources));
}
