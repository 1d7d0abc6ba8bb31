import zlib from "node:zlib";
import { Open, type File as ZipFile } from "unzipper";
import { ArchiveError, quote, type ArchiveLimits, type EntryCollector, type EntryKind } from "./archive-paths";

// The zip half of the archive reader: unzipper, checked against the raw bytes it takes on trust.

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const UNIX_FILE_KINDS: Record<number, string> = {
  2401: "named pipe (FIFO)",
  4802: "character device",
  14406: "block device",
  26411: "socket",
};
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const utf8 = new TextDecoder("utf-8", { fatal: true });

export async function readZip(bytes: Buffer, collector: EntryCollector): Promise<void> {
  checkZipRecordCount(bytes, collector.limits);
  const directory = await Open.buffer(bytes).catch((error: unknown) => {
    throw new ArchiveError(
      "corrupt",
      "The zip archive is damaged or truncated: its table of contents cannot be read.",
      { cause: error },
    );
  });
  for (const file of directory.files) {
    collector.countEntry();
    // unzipper's own `path` is decoded loosely; judge the raw bytes the central directory holds.
    const name = decodeZipName(file.pathBuffer);
    const kind = zipEntryKind(file, name);
    const path =
      kind === "link" && collector.limits.keepLinks
        ? collector.admitLink(name, file.uncompressedSize)
        : collector.admitEntry(name, kind, file.uncompressedSize);
    if (path === null) continue;
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

function zipEntryKind(file: ZipFile, name: string): EntryKind {
  // Unix modes live in the top half of the external attributes (7-Zip sets them on Windows too).
  const type = (file.externalFileAttributes >>> 16) & S_IFMT;
  if (type === S_IFLNK) return "link";
  if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) return { special: UNIX_FILE_KINDS[type] ?? "special file" };
  return type === S_IFDIR || file.type === "Directory" || /[/\\]$/.test(name) ? "directory" : "file";
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
    throw new ArchiveError(
      "too-many-files",
      `The archive lists ${records} files and folders; at most ${2 * limits.maxFiles} are allowed.`,
    );
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
  if (file.flags & 0x41)
    throw new ArchiveError("unsupported-format", `${quote(path)} is encrypted; upload the archive without a password.`);
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
