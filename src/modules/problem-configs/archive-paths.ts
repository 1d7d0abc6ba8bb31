// What the zip and tar readers share: the error and limit types, path checks and size bookkeeping.
import { NAME_MAX_BYTES, PATH_MAX_BYTES } from "../../core/file-layout";

export interface ArchiveLimits {
  maxArchiveBytes: number;
  maxTotalBytes: number;
  maxFileBytes: number;
  maxFiles: number;
  maxPathLength: number;
  /**
   * A zip's symbolic links returned as entries with their `link` target rather than refused: a problem
   * package's reader follows the ones inside the package (package-links.ts); a config archive never has any.
   */
  keepLinks?: boolean;
}

export type ArchiveErrorReason =
  | "unsupported-format"
  | "corrupt"
  | "absolute-path"
  | "path-traversal"
  | "link"
  | "special-file"
  | "archive-too-large"
  | "too-large"
  | "too-many-files"
  | "path-too-long"
  | "invalid-path"
  | "duplicate-path";

export class ArchiveError extends Error {
  override readonly name = "ArchiveError";
  constructor(
    readonly reason: ArchiveErrorReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface ArchiveEntry {
  path: string;
  data: Uint8Array;
  /** A symbolic link's target, as written (only with `keepLinks`); its data is then empty. */
  link?: string;
}

export const MiB = 1024 * 1024;

export function formatBytes(bytes: number): string {
  return bytes >= MiB ? `${Number((bytes / MiB).toFixed(1))} MiB` : `${bytes} bytes`;
}

/** Quoted and escaped, so a hostile name cannot forge or hide text in the message. */
export function quote(name: string): string {
  return JSON.stringify(name.length > 120 ? `${name.slice(0, 120)}…` : name);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters in a name are refused
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** The relative POSIX path of an entry; "" for the archive root. */
export function normaliseEntryPath(raw: string, limits: ArchiveLimits): string {
  // U+FFFD is what an undecodable byte became; a mangled name could collide with another one.
  if (raw.includes("\uFFFD")) throw new ArchiveError("invalid-path", `The name ${quote(raw)} is not valid UTF-8.`);
  if (CONTROL_CHARACTERS.test(raw))
    throw new ArchiveError("invalid-path", `The name ${quote(raw)} contains control characters.`);
  // Windows tools write backslashes, and Windows extractors honour them: check what they would see.
  const slashed = raw.replaceAll("\\", "/");
  if (slashed.startsWith("/") || /^[A-Za-z]:/.test(slashed)) {
    throw new ArchiveError(
      "absolute-path",
      `${quote(raw)} is an absolute path; every file must be inside the archive.`,
    );
  }
  const segments = slashed.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) {
    throw new ArchiveError("path-traversal", `${quote(raw)} points outside the archive with "..".`);
  }
  const path = segments.join("/");
  if (path.length > limits.maxPathLength) {
    throw new ArchiveError(
      "path-too-long",
      `The path ${quote(path)} is longer than ${limits.maxPathLength} characters.`,
    );
  }
  // The judge writes each file under its own name: a name must fit a Linux file system in bytes, which
  // 255 characters of Chinese (765 bytes) do not.
  const long = segments.find((segment) => Buffer.byteLength(segment) > NAME_MAX_BYTES);
  if (long)
    throw new ArchiveError("path-too-long", `The name ${quote(long)} is longer than ${NAME_MAX_BYTES} bytes in UTF-8.`);
  if (Buffer.byteLength(path) > PATH_MAX_BYTES)
    throw new ArchiveError("path-too-long", `The path ${quote(path)} is longer than ${PATH_MAX_BYTES} bytes in UTF-8.`);
  return path;
}

export function requireFilePath(raw: string, limits: ArchiveLimits): string {
  const path = normaliseEntryPath(raw, limits);
  if (path === "") throw new ArchiveError("invalid-path", `The file name ${quote(raw)} is empty.`);
  return path;
}

const MAX_LINK_TARGET = 4096;
const linkRefused = (name: string) =>
  new ArchiveError("link", `${quote(name)} is a link; problem archives may only contain regular files and folders.`);
const specialFileRefused = (name: string, kind: string) =>
  new ArchiveError(
    "special-file",
    `${quote(name)} is a ${kind}; problem archives may only contain regular files and folders.`,
  );

/** What an entry is, as its format tells; `special` names any other kind for the refusal. */
export type EntryKind = "file" | "directory" | "link" | { special: string };

/** Counts what is actually produced, so limits hold whatever sizes the headers claim. */
export class EntryCollector {
  private readonly files = new Map<string, Uint8Array>();
  private readonly links = new Set<string>();
  private totalBytes = 0;
  private entryCount = 0;

  constructor(readonly limits: ArchiveLimits) {}

  /** Every entry, folders included: each costs work even though only files are kept. */
  countEntry(): void {
    if (++this.entryCount > 2 * this.limits.maxFiles) {
      throw new ArchiveError(
        "too-many-files",
        `The archive has more than ${2 * this.limits.maxFiles} files and folders.`,
      );
    }
  }

  /**
   * Only regular files and folders may be in a problem archive: a folder's name is checked and nothing
   * kept (null), a file's path is admitted at the size its header claims and returned.
   */
  admitEntry(name: string, kind: EntryKind, claimedBytes: number): string | null {
    if (kind === "link") throw linkRefused(name);
    if (typeof kind === "object") throw specialFileRefused(name, kind.special);
    if (kind === "directory") {
      normaliseEntryPath(name, this.limits);
      return null;
    }
    const path = requireFilePath(name, this.limits);
    this.admitFile(path, claimedBytes);
    return path;
  }

  /** A zip's symbolic link, admitted like a file when links are kept: its content is its target. */
  admitLink(name: string, claimedBytes: number): string {
    if (!this.limits.keepLinks) throw linkRefused(name);
    const path = requireFilePath(name, this.limits);
    if (claimedBytes > MAX_LINK_TARGET)
      throw new ArchiveError("link", `${quote(path)} is a link to a target longer than ${MAX_LINK_TARGET} bytes.`);
    this.admitFile(path, claimedBytes);
    this.links.add(path);
    return path;
  }

  /** Before any of the file is inflated: a claimed size over a limit is refused at once. */
  private admitFile(path: string, claimedBytes: number): void {
    if (this.files.has(path))
      throw new ArchiveError("duplicate-path", `The archive contains ${quote(path)} more than once.`);
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
      throw new ArchiveError(
        "too-large",
        `${quote(path)} is larger than the ${formatBytes(this.limits.maxFileBytes)} limit for one file.`,
      );
    }
    if (totalBytes > this.limits.maxTotalBytes) {
      throw new ArchiveError(
        "too-large",
        `The files in the archive add up to more than ${formatBytes(this.limits.maxTotalBytes)}.`,
      );
    }
  }

  finish(): ArchiveEntry[] {
    // "a" as a file and "a/b" as a file cannot both be written out anywhere later.
    for (const path of this.files.keys()) {
      for (let slash = path.indexOf("/"); slash !== -1; slash = path.indexOf("/", slash + 1)) {
        const folder = path.slice(0, slash);
        if (this.files.has(folder))
          throw new ArchiveError("duplicate-path", `${quote(folder)} is both a file and a folder in the archive.`);
      }
    }
    return [...this.files]
      .map(([path, data]) =>
        this.links.has(path) ? { path, data: new Uint8Array(), link: new TextDecoder().decode(data) } : { path, data },
      )
      .sort((a, b) => (a.path < b.path ? -1 : 1));
  }
}
