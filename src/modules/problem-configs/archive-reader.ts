import { readFile, stat } from "node:fs/promises";
import { Readable, Transform } from "node:stream";
import zlib from "node:zlib";
import * as tar from "tar-stream";
import { Open, type File as ZipFile } from "unzipper";

// Reads teacher-uploaded zip / tar / tar.gz archives into memory. Every name, type and size in an
// upload is hostile until checked: nothing here touches the file system except reading the upload.

export interface ArchiveLimits {
  maxArchiveBytes: number;
  maxTotalBytes: number;
  maxFileBytes: number;
  maxFiles: number;
  maxPathLength: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = Object.freeze({
  maxArchiveBytes: 64 * MiB,
  maxTotalBytes: 256 * MiB,
  maxFileBytes: 64 * MiB,
  maxFiles: 10_000,
  maxPathLength: 255,
});

export type ArchiveErrorReason =
  | "unsupported-format" | "corrupt" | "absolute-path" | "path-traversal" | "link" | "special-file"
  | "archive-too-large" | "too-large" | "too-many-files" | "path-too-long" | "invalid-path" | "duplicate-path";

export class ArchiveError extends Error {
  override readonly name = "ArchiveError";
  constructor(readonly reason: ArchiveErrorReason, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

export interface ArchiveEntry { path: string; data: Uint8Array }
export type ArchiveFormat = "zip" | "tar" | "tar.gz";

const ZIP_LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];
const ZIP_EMPTY_ARCHIVE = [0x50, 0x4b, 0x05, 0x06];
const USTAR = [0x75, 0x73, 0x74, 0x61, 0x72];

const bytesAt = (head: Uint8Array, offset: number, magic: number[]) =>
  magic.every((byte, i) => head[offset + i] === byte);

/** By magic bytes only: a file name is whatever the uploader typed. */
export function detectArchiveFormat(head: Uint8Array): ArchiveFormat | null {
  if (bytesAt(head, 0, ZIP_LOCAL_HEADER) || bytesAt(head, 0, ZIP_EMPTY_ARCHIVE)) return "zip";
  if (head[0] === 0x1f && head[1] === 0x8b) return "tar.gz";
  if (bytesAt(head, 257, USTAR)) return "tar";
  return null;
}

export async function readArchive(file: string | Uint8Array, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): Promise<ArchiveEntry[]> {
  const bytes = typeof file === "string" ? await loadArchiveFile(file, limits) : checkArchiveSize(file, limits);
  const format = detectArchiveFormat(bytes.subarray(0, 512));
  if (format === null) throw new ArchiveError("unsupported-format", "The upload is not a zip, tar or tar.gz archive.");
  const collector = new EntryCollector(limits);
  if (format === "zip") await readZip(bytes, collector);
  else await readTar(bytes, format, collector);
  return collector.finish();
}

/** With no root config.json, unwraps `problem/…` when `problem/config.json` exists (a zipped folder). */
export function stripSingleTopFolder(entries: ArchiveEntry[]): ArchiveEntry[] {
  if (entries.length === 0 || entries.some((entry) => entry.path === "config.json")) return entries;
  const prefix = `${entries[0].path.split("/")[0]}/`;
  if (!entries.every((entry) => entry.path.startsWith(prefix))) return entries;
  if (!entries.some((entry) => entry.path === `${prefix}config.json`)) return entries;
  return entries.map((entry) => ({ path: entry.path.slice(prefix.length), data: entry.data }));
}

async function loadArchiveFile(path: string, limits: ArchiveLimits): Promise<Buffer> {
  // Refuse on the size the file system reports before reading a byte of it.
  if ((await stat(path)).size > limits.maxArchiveBytes) throw archiveTooLarge(limits);
  // Checked again after reading: the file may have grown in between.
  return checkArchiveSize(await readFile(path), limits);
}

function checkArchiveSize(bytes: Uint8Array, limits: ArchiveLimits): Buffer {
  if (bytes.byteLength > limits.maxArchiveBytes) throw archiveTooLarge(limits);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const archiveTooLarge = (limits: ArchiveLimits) =>
  new ArchiveError("archive-too-large", `The archive is larger than the ${formatBytes(limits.maxArchiveBytes)} upload limit.`);

function formatBytes(bytes: number): string {
  return bytes >= MiB ? `${Number((bytes / MiB).toFixed(1))} MiB` : `${bytes} bytes`;
}

/** Quoted and escaped, so a hostile name cannot forge or hide text in the message. */
function quote(name: string): string {
  return JSON.stringify(name.length > 120 ? `${name.slice(0, 120)}…` : name);
}

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** The relative POSIX path of an entry; "" for the archive root. */
function normaliseEntryPath(raw: string, limits: ArchiveLimits): string {
  // U+FFFD is what an undecodable byte became; a mangled name could collide with another one.
  if (raw.includes("\uFFFD")) throw new ArchiveError("invalid-path", `The name ${quote(raw)} is not valid UTF-8.`);
  if (CONTROL_CHARACTERS.test(raw)) throw new ArchiveError("invalid-path", `The name ${quote(raw)} contains control characters.`);
  // Windows tools write backslashes, and Windows extractors honour them: check what they would see.
  const slashed = raw.replaceAll("\\", "/");
  if (slashed.startsWith("/") || /^[A-Za-z]:/.test(slashed)) {
    throw new ArchiveError("absolute-path", `${quote(raw)} is an absolute path; every file must be inside the archive.`);
  }
  const segments = slashed.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) {
    throw new ArchiveError("path-traversal", `${quote(raw)} points outside the archive with "..".`);
  }
  const path = segments.join("/");
  if (path.length > limits.maxPathLength) {
    throw new ArchiveError("path-too-long", `The path ${quote(path)} is longer than ${limits.maxPathLength} characters.`);
  }
  return path;
}

function requireFilePath(raw: string, limits: ArchiveLimits): string {
  const path = normaliseEntryPath(raw, limits);
  if (path === "") throw new ArchiveError("invalid-path", `The file name ${quote(raw)} is empty.`);
  return path;
}

const linkRefused = (name: string) =>
  new ArchiveError("link", `${quote(name)} is a link; problem archives may only contain regular files and folders.`);
const specialFileRefused = (name: string, kind: string) =>
  new ArchiveError("special-file", `${quote(name)} is a ${kind}; problem archives may only contain regular files and folders.`);

/** Counts what is actually produced, so limits hold whatever sizes the headers claim. */
class EntryCollector {
  private readonly files = new Map<string, Uint8Array>();
  private totalBytes = 0;
  private entryCount = 0;

  constructor(readonly limits: ArchiveLimits) {}

  /** Every entry, folders included: each costs work even though only files are kept. */
  countEntry(): void {
    if (++this.entryCount > 2 * this.limits.maxFiles) {
      throw new ArchiveError("too-many-files", `The archive has more than ${2 * this.limits.maxFiles} files and folders.`);
    }
  }

  /** Before any of the file is inflated: a claimed size over a limit is refused at once. */
  admitFile(path: string, claimedBytes: number): void {
    if (this.files.has(path)) throw new ArchiveError("duplicate-path", `The archive contains ${quote(path)} more than once.`);
    if (this.files.size >= this.limits.maxFiles) {
      throw new ArchiveError("too-many-files", `The archive contains more than ${this.limits.maxFiles} files.`);
    }
    this.checkSize(path, claimedBytes, this.totalBytes + claimedBytes);
  }

  async collect(path: string, stream: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    let fileBytes = 0;
    for await (const chunk of stream) {
      fileBytes += chunk.byteLength;
      this.totalBytes += chunk.byteLength;
      // Throwing out of the loop destroys the stream, which stops the inflater mid-bomb.
      this.checkSize(path, fileBytes, this.totalBytes);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  add(path: string, data: Uint8Array): void {
    this.files.set(path, data);
  }

  private checkSize(path: string, fileBytes: number, totalBytes: number): void {
    if (fileBytes > this.limits.maxFileBytes) {
      throw new ArchiveError("too-large", `${quote(path)} is larger than the ${formatBytes(this.limits.maxFileBytes)} limit for one file.`);
    }
    if (totalBytes > this.limits.maxTotalBytes) {
      throw new ArchiveError("too-large", `The files in the archive add up to more than ${formatBytes(this.limits.maxTotalBytes)}.`);
    }
  }

  finish(): ArchiveEntry[] {
    // "a" as a file and "a/b" as a file cannot both be written out anywhere later.
    for (const path of this.files.keys()) {
      for (let slash = path.indexOf("/"); slash !== -1; slash = path.indexOf("/", slash + 1)) {
        const folder = path.slice(0, slash);
        if (this.files.has(folder)) throw new ArchiveError("duplicate-path", `${quote(folder)} is both a file and a folder in the archive.`);
      }
    }
    return [...this.files].map(([path, data]) => ({ path, data })).sort((a, b) => (a.path < b.path ? -1 : 1));
  }
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const UNIX_FILE_KINDS: Record<number, string> = {
  0o010000: "named pipe (FIFO)", 0o020000: "character device", 0o060000: "block device", 0o140000: "socket",
};
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const utf8 = new TextDecoder("utf-8", { fatal: true });

async function readZip(bytes: Buffer, collector: EntryCollector): Promise<void> {
  checkZipRecordCount(bytes, collector.limits);
  const directory = await Open.buffer(bytes).catch((error: unknown) => {
    throw new ArchiveError("corrupt", "The zip archive is damaged or truncated: its table of contents cannot be read.", { cause: error });
  });
  for (const file of directory.files) {
    collector.countEntry();
    // unzipper's own `path` is decoded loosely; judge the raw bytes the central directory holds.
    const name = decodeZipName(file.pathBuffer);
    // Unix modes live in the top half of the external attributes (7-Zip sets them on Windows too).
    const type = (file.externalFileAttributes >>> 16) & S_IFMT;
    if (type === S_IFLNK) throw linkRefused(name);
    if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) throw specialFileRefused(name, UNIX_FILE_KINDS[type] ?? "special file");
    if (type === S_IFDIR || file.type === "Directory" || /[/\\]$/.test(name)) {
      normaliseEntryPath(name, collector.limits);
      continue;
    }
    const path = requireFilePath(name, collector.limits);
    collector.admitFile(path, file.uncompressedSize);
    checkZipEntry(file, bytes, path);
    const entry = file.stream();
    // unzipper re-emits inflater errors on the entry even after we stop reading it.
    entry.on("error", () => {});
    const data = await collector.collect(path, entry).catch((error: unknown) => {
      if (error instanceof ArchiveError) throw error;
      throw new ArchiveError("corrupt", `${quote(path)} is damaged in the zip archive.`, { cause: error });
    });
    // unzipper does not verify checksums on this API.
    if (data.byteLength !== file.uncompressedSize || zlib.crc32(data) !== file.crc32) {
      throw new ArchiveError("corrupt", `${quote(path)} is damaged in the zip archive (its checksum does not match).`);
    }
    collector.add(path, data);
  }
}

const END_OF_DIRECTORY = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_END_SIGNATURE = 0x06064b50;

/**
 * unzipper 0.12.5 walks one slot per record the end of central directory claims, and builds every
 * record, before returning anything: a forged zip64 count of 2^32 exhausts memory. So the count is
 * read here the way unzipper finds it (the first signature in the last 80 bytes) and bounded first.
 */
function checkZipRecordCount(archive: Buffer, limits: ArchiveLimits): void {
  const end = archive.indexOf(END_OF_DIRECTORY, Math.max(0, archive.length - 80));
  if (end === -1 || end + 22 > archive.length) return; // unzipper refuses these itself
  let records = archive.readUInt16LE(end + 10);
  if (archive.readUInt16LE(end + 4) === 0xffff || records === 0xffff || archive.readUInt32LE(end + 16) === 0xffffffff) {
    const damaged = new ArchiveError("corrupt", "The zip archive is damaged: its zip64 table of contents is invalid.");
    // Below 80 bytes unzipper looks for the locator elsewhere; no real zip64 trailer is that short.
    const locator = end - 20;
    if (archive.length < 80 || locator < 0 || archive.readUInt32LE(locator) !== ZIP64_LOCATOR_SIGNATURE) throw damaged;
    const record = Number(archive.readBigUInt64LE(locator + 8));
    if (record + 56 > archive.length || archive.readUInt32LE(record) !== ZIP64_END_SIGNATURE) throw damaged;
    records = Number(archive.readBigUInt64LE(record + 32));
  }
  // Folders are records too, hence the allowance over maxFiles.
  if (records > 2 * limits.maxFiles) {
    throw new ArchiveError("too-many-files", `The archive lists ${records} files and folders; at most ${2 * limits.maxFiles} are allowed.`);
  }
}

function decodeZipName(raw: Buffer): string {
  try {
    return utf8.decode(raw);
  } catch {
    throw new ArchiveError("invalid-path", `The name ${quote(raw.toString("latin1"))} is not valid UTF-8.`);
  }
}

/** What unzipper takes on trust: it reads the local header at whatever offset the directory gives. */
function checkZipEntry(file: ZipFile, archive: Buffer, path: string): void {
  if (file.flags & 0x41) throw new ArchiveError("unsupported-format", `${quote(path)} is encrypted; upload the archive without a password.`);
  if (file.compressionMethod !== 0 && file.compressionMethod !== 8) {
    throw new ArchiveError("unsupported-format", `${quote(path)} uses a compression method other than deflate.`);
  }
  const at = file.offsetToLocalFileHeader;
  const damaged = new ArchiveError("corrupt", `${quote(path)} is damaged in the zip archive.`);
  const sizesKnown = [at, file.compressedSize, file.uncompressedSize].every(Number.isSafeInteger);
  if (!sizesKnown || at + 30 > archive.length || archive.readUInt32LE(at) !== LOCAL_HEADER_SIGNATURE) throw damaged;
  const nameLength = archive.readUInt16LE(at + 26);
  const dataStart = at + 30 + nameLength + archive.readUInt16LE(at + 28);
  // Two different names for one entry is how zips are made to look different to different tools.
  if (!archive.subarray(at + 30, at + 30 + nameLength).equals(file.pathBuffer)) throw damaged;
  if (dataStart + file.compressedSize > archive.length) throw damaged;
}

// Headers, padding and long-name records are not file bytes; allow this much of them per file.
const TAR_OVERHEAD_PER_FILE = 4096;

async function readTar(bytes: Buffer, format: ArchiveFormat, collector: EntryCollector): Promise<void> {
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

async function readTarEntry(entry: TarEntry, collector: EntryCollector): Promise<void> {
  collector.countEntry();
  const { name, size } = entry.header;
  // tar-stream reports typeflags it does not know (sparse, volume labels…) as null.
  const type: string | null = entry.header.type;
  switch (type) {
    case "file":
    case "contiguous-file":
      break;
    case "directory":
      normaliseEntryPath(name, collector.limits);
      entry.resume();
      return;
    case "link":
    case "symlink":
      throw linkRefused(name);
    case "character-device":
    case "block-device":
      throw specialFileRefused(name, type.replace("-", " "));
    case "fifo":
      throw specialFileRefused(name, "named pipe (FIFO)");
    default:
      throw specialFileRefused(name, "special file");
  }
  const path = requireFilePath(name, collector.limits);
  collector.admitFile(path, size ?? 0);
  collector.add(path, await collector.collect(path, entry as AsyncIterable<Uint8Array>));
}
