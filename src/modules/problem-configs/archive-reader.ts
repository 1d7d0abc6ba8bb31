import { readFile, stat } from "node:fs/promises";
import { ArchiveError, EntryCollector, MiB, formatBytes, type ArchiveEntry, type ArchiveLimits } from "./archive-paths";
import { readTar } from "./archive-tar";
import { readZip } from "./archive-zip";
import { ARCHIVE_MAX_BYTES } from "../../http/body-limits";

// Reads teacher-uploaded zip / tar / tar.gz archives into memory. Every name, type and size in an
// upload is hostile until checked: nothing here touches the file system except reading the upload.
// This is the module's public face: the zip and tar readers and their shared checks live beside it.

export { ArchiveError, type ArchiveEntry, type ArchiveErrorReason, type ArchiveLimits } from "./archive-paths";

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = Object.freeze({
  maxArchiveBytes: ARCHIVE_MAX_BYTES,
  maxTotalBytes: 256 * MiB,
  maxFileBytes: 64 * MiB,
  maxFiles: 10_000,
  maxPathLength: 255,
});

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

export async function readArchive(
  file: string | Uint8Array,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): Promise<ArchiveEntry[]> {
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
  new ArchiveError(
    "archive-too-large",
    `The archive is larger than the ${formatBytes(limits.maxArchiveBytes)} upload limit.`,
  );
