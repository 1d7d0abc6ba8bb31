import { createHash } from "node:crypto";

/**
 * Content-addressed storage for problem configs and submissions: a blob's name is the SHA-256 of its
 * bytes, so identical uploads share one copy and a name can never point at different content.
 */
export interface BlobStore {
  readonly kind: "fs" | "s3";
  /**
   * Stores bytes under their SHA-256 hex digest; idempotent; verifies the digest when given one. Returns the digest.
   */
  put(data: Uint8Array, expectedDigest?: string): Promise<string>;
  has(digest: string): Promise<boolean>;
  /** Throws BlobNotFoundError if absent. */
  get(digest: string): Promise<Uint8Array>;
  /** For large downloads; throws BlobNotFoundError if absent. */
  stream(digest: string): Promise<ReadableStream<Uint8Array>>;
  size(digest: string): Promise<number | null>;
  /** No error if absent. */
  delete(digest: string): Promise<void>;
  /** Every stored digest (for garbage collection). */
  list(): AsyncIterable<string>;
}

export class BlobNotFoundError extends Error {
  constructor(readonly digest: string) {
    super(`blob ${digest} not found`);
    this.name = "BlobNotFoundError";
  }
}

/** A digest argument that is not 64 lowercase hex characters: refused before it can reach a path or key. */
export class InvalidDigestError extends Error {
  constructor(value: string) {
    super(`not a SHA-256 hex digest: ${JSON.stringify(value.slice(0, 80))}`);
    this.name = "InvalidDigestError";
  }
}

/** The bytes given to put() do not hash to the digest the caller expected (a corrupted or partial upload). */
export class BlobDigestMismatchError extends Error {
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`blob digest mismatch: expected ${expected}, got ${actual}`);
    this.name = "BlobDigestMismatchError";
  }
}

const DIGEST = /^[0-9a-f]{64}$/;

export function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export function isDigest(value: string): boolean {
  return typeof value === "string" && DIGEST.test(value);
}

/** Every store calls this before building a path or key, so "../x" can never escape the store. */
export function assertDigest(value: string): string {
  if (!isDigest(value)) throw new InvalidDigestError(String(value));
  return value;
}

/** Hashes the bytes and checks them against the caller's digest, if any; returns the digest to store under. */
export function digestFor(data: Uint8Array, expectedDigest?: string): string {
  if (expectedDigest !== undefined) assertDigest(expectedDigest);
  const digest = sha256Hex(data);
  if (expectedDigest !== undefined && expectedDigest !== digest) {
    throw new BlobDigestMismatchError(expectedDigest, digest);
  }
  return digest;
}

/** The fan-out shared by both stores: `ab/cd/abcd…`, so no directory or listing page holds every blob. */
export function fanOutPath(digest: string): string {
  assertDigest(digest);
  return `${digest.slice(0, 2)}/${digest.slice(2, 4)}/${digest}`;
}
