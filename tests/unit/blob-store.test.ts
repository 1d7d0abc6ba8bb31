import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { S3Client } from "bun";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/settings/config";
import { ConfigError } from "../../src/core/env-reader";
import {
  BlobDigestMismatchError,
  BlobNotFoundError,
  InvalidDigestError,
  sha256Hex,
  type BlobStore,
} from "../../src/storage/blob-store";
import { createBlobStore } from "../../src/storage/create-blob-store";
import { FsBlobStore } from "../../src/storage/fs-blob-store";
import { S3BlobStore } from "../../src/storage/s3-blob-store";
import { startLocalS3, type LocalS3 } from "../helpers/s3-server";

/** A fresh, empty store plus a raw view of what it left behind (files on disk, objects in the bucket). */
interface Harness {
  store: BlobStore;
  prefix?: string;
  storedObjects(): Promise<string[]>;
  addForeignObject(): Promise<void>;
}

let s3: LocalS3;
let rawS3: S3Client;
let prefixCounter = 0;
const scratchDirs: string[] = [];

beforeAll(async () => {
  s3 = await startLocalS3();
  rawS3 = new S3Client({ ...s3 });
});
afterAll(async () => {
  await s3?.stop();
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "joj-blobs-"));
  scratchDirs.push(dir);
  return dir;
}

function fsHarness(): Harness {
  const dir = scratchDir();
  return {
    store: new FsBlobStore(dir),
    storedObjects: async () => filesUnder(dir),
    addForeignObject: async () => {
      mkdirSync(join(dir, "blobs", "ab"), { recursive: true });
      writeFileSync(join(dir, "blobs", "ab", "README"), "not a blob");
    },
  };
}

function s3Harness(listPageSize?: number): Harness {
  // One bucket, a fresh prefix per test: each store starts empty.
  const prefix = `test-${++prefixCounter}/blobs/`;
  return {
    store: new S3BlobStore({ ...s3, prefix }, { listPageSize }),
    prefix,
    storedObjects: async () => ((await rawS3.list({ prefix })).contents ?? []).map((o) => o.key),
    addForeignObject: async () => {
      await rawS3.write(`${prefix}notes/readme.txt`, "not a blob");
    },
  };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const items: string[] = [];
  for await (const item of iterable) items.push(item);
  return items.sort();
}

const bytes = (text: string) => new TextEncoder().encode(text);
const malformedDigests = [
  "../../etc/passwd",
  "A".repeat(64),
  "abc123",
  "",
  `${"a".repeat(64)}/..`,
  `../${"a".repeat(61)}`,
];

describe.each([
  ["fs", fsHarness],
  ["s3", () => s3Harness()],
] as const)("%s blob store", (_kind, makeHarness) => {
  test("put stores bytes under their SHA-256 and get returns them", async () => {
    const { store } = makeHarness();
    const data = bytes("abc");

    const digest = await store.put(data);

    // The FIPS 180-2 test vector for "abc".
    expect(digest).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await store.get(digest)).toEqual(data);
  });

  test("identical content is stored once and the second put is a no-op", async () => {
    const { store, storedObjects } = makeHarness();

    const first = await store.put(bytes("same"));
    const second = await store.put(bytes("same"));

    expect(second).toBe(first);
    expect(await collect(store.list())).toEqual([first]);
    expect(await storedObjects()).toHaveLength(1);
  });

  test("a matching expected digest is accepted and a mismatching one is refused with nothing stored", async () => {
    const { store, storedObjects } = makeHarness();
    const data = bytes("payload");

    await expect(store.put(data, sha256Hex(bytes("other")))).rejects.toBeInstanceOf(BlobDigestMismatchError);
    expect(await storedObjects()).toEqual([]);

    expect(await store.put(data, sha256Hex(data))).toBe(sha256Hex(data));
  });

  test("an absent blob: get and stream throw BlobNotFoundError, has is false, size is null, delete is quiet", async () => {
    const { store } = makeHarness();
    const absent = sha256Hex(bytes("never stored"));

    await expect(store.get(absent)).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.stream(absent)).rejects.toBeInstanceOf(BlobNotFoundError);
    expect(await store.has(absent)).toBe(false);
    expect(await store.size(absent)).toBeNull();
    await store.delete(absent);
  });

  test("has and size describe a stored blob; after delete it is gone", async () => {
    const { store } = makeHarness();
    const digest = await store.put(bytes("12345"));

    expect(await store.has(digest)).toBe(true);
    expect(await store.size(digest)).toBe(5);

    await store.delete(digest);

    expect(await store.has(digest)).toBe(false);
    expect(await store.size(digest)).toBeNull();
    await expect(store.get(digest)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  test("list yields exactly the stored digests and ignores anything else in the store", async () => {
    const { store, addForeignObject } = makeHarness();
    const digests = await Promise.all(["a", "b", "c"].map((text) => store.put(bytes(text))));
    await store.delete(await store.put(bytes("deleted")));
    await addForeignObject();

    expect(await collect(store.list())).toEqual([...digests].sort());
  });

  test("malformed digests are refused by every method before touching storage", async () => {
    const { store, storedObjects } = makeHarness();
    const data = bytes("x");

    for (const bad of malformedDigests) {
      await expect(store.put(data, bad)).rejects.toBeInstanceOf(InvalidDigestError);
      await expect(store.has(bad)).rejects.toBeInstanceOf(InvalidDigestError);
      await expect(store.get(bad)).rejects.toBeInstanceOf(InvalidDigestError);
      await expect(store.stream(bad)).rejects.toBeInstanceOf(InvalidDigestError);
      await expect(store.size(bad)).rejects.toBeInstanceOf(InvalidDigestError);
      await expect(store.delete(bad)).rejects.toBeInstanceOf(InvalidDigestError);
    }
    expect(await storedObjects()).toEqual([]);
  });

  test("ten concurrent puts of the same bytes leave exactly one object and no temporary files", async () => {
    const { store, storedObjects } = makeHarness();
    const data = randomBytes(64 * 1024);

    const digests = await Promise.all(Array.from({ length: 10 }, () => store.put(data)));

    expect(new Set(digests)).toEqual(new Set([sha256Hex(data)]));
    expect(await storedObjects()).toHaveLength(1);
    expect(await collect(store.list())).toEqual([sha256Hex(data)]);
    expect(await store.get(digests[0])).toEqual(new Uint8Array(data));
  });

  test("a 5 MiB blob streams back byte for byte", async () => {
    const { store } = makeHarness();
    const data = new Uint8Array(randomBytes(5 * 1024 * 1024 + 17));
    const digest = await store.put(data);

    const streamed = new Uint8Array(await new Response(await store.stream(digest)).arrayBuffer());

    expect(streamed.byteLength).toBe(data.byteLength);
    expect(sha256Hex(streamed)).toBe(digest);
    expect(await store.size(digest)).toBe(data.byteLength);
  });
});

describe("filesystem layout", () => {
  test("a blob is a 0644 file at <dir>/blobs/ab/cd/<digest>", async () => {
    const dir = scratchDir();
    const digest = await new FsBlobStore(dir).put(bytes("abc"));

    const path = join(dir, "blobs", digest.slice(0, 2), digest.slice(2, 4), digest);

    expect(statSync(path).mode & 0o777).toBe(0o644);
  });
});

describe("S3 layout", () => {
  test("a blob is the object <prefix>ab/cd/<digest>", async () => {
    const { store, prefix } = s3Harness();

    const digest = await store.put(bytes("abc"));

    expect(await rawS3.exists(`${prefix}ba/78/${digest}`)).toBe(true);
  });

  test("list pages through the bucket with continuation tokens", async () => {
    const { store } = s3Harness(2);
    const digests = await Promise.all(["1", "2", "3", "4", "5"].map((text) => store.put(bytes(text))));

    expect(await collect(store.list())).toEqual([...digests].sort());
  });
});

describe("createBlobStore and the storage configuration", () => {
  const base = () => ({ DATA_DIR: scratchDir(), JWT_SECRET: "test-secret" });

  function problemsOf(env: Record<string, string>): string {
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems.join("\n");
      throw error;
    }
    throw new Error("expected a ConfigError");
  }

  test("the fs driver is the default, has no S3 settings, and builds a filesystem store", () => {
    const { storage } = loadConfig(base());

    expect(storage.driver).toBe("fs");
    expect(storage.s3).toBeNull();
    expect(createBlobStore(storage).kind).toBe("fs");
  });

  test("STORAGE_DRIVER=s3 without S3_BUCKET is a configuration problem naming S3_BUCKET", () => {
    expect(problemsOf({ ...base(), STORAGE_DRIVER: "s3" })).toContain("S3_BUCKET");
  });

  test("half an S3 key pair or a malformed endpoint is refused, by name", () => {
    const text = problemsOf({
      ...base(),
      STORAGE_DRIVER: "s3",
      S3_BUCKET: "b",
      S3_ACCESS_KEY_ID: "k",
      S3_ENDPOINT: "minio:9000",
    });

    expect(text).toContain("S3_SECRET_ACCESS_KEY");
    expect(text).toContain("S3_ENDPOINT");
  });

  test("STORAGE_DRIVER=s3 reads the S3 settings, with defaults, and builds an S3 store", () => {
    const full = loadConfig({
      ...base(),
      STORAGE_DRIVER: "s3",
      S3_ENDPOINT: "http://minio:9000",
      S3_REGION: "eu-west-3",
      S3_BUCKET: "judge",
      S3_ACCESS_KEY_ID: "key",
      S3_SECRET_ACCESS_KEY: "secret",
      S3_PREFIX: "joj/blobs",
    }).storage;
    const minimal = loadConfig({ ...base(), STORAGE_DRIVER: "s3", S3_BUCKET: "judge" }).storage;

    expect(full.s3).toEqual({
      endpoint: "http://minio:9000",
      region: "eu-west-3",
      bucket: "judge",
      accessKeyId: "key",
      secretAccessKey: "secret",
      prefix: "joj/blobs/",
    });
    expect(minimal.s3).toEqual({
      endpoint: undefined,
      region: "us-east-1",
      bucket: "judge",
      accessKeyId: undefined,
      secretAccessKey: undefined,
      prefix: "blobs/",
    });
    expect(createBlobStore(full).kind).toBe("s3");
  });
});
