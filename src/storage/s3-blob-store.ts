import { S3Client } from "bun";
import type { S3StorageSettings } from "../settings/config";
import { BlobNotFoundError, digestFor, fanOutPath, isDigest, type BlobStore } from "./blob-store";

/** Not part of Config: only tests lower the page size, to exercise continuation. */
export interface S3BlobStoreOptions {
  listPageSize?: number;
}

/** Blobs as objects `<prefix>ab/cd/<digest>` in an S3-compatible bucket (AWS S3, MinIO, R2). */
export class S3BlobStore implements BlobStore {
  readonly kind = "s3" as const;
  private readonly client: S3Client;
  private readonly prefix: string;
  private readonly listPageSize: number;

  constructor(settings: S3StorageSettings, options: S3BlobStoreOptions = {}) {
    this.client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      bucket: settings.bucket,
      accessKeyId: settings.accessKeyId,
      secretAccessKey: settings.secretAccessKey,
      // Path-style (https://endpoint/bucket/key) works with AWS as well as MinIO and local servers,
      // which have no per-bucket host names.
      virtualHostedStyle: false,
    });
    this.prefix = settings.prefix;
    this.listPageSize = options.listPageSize ?? 1000;
  }

  async put(data: Uint8Array, expectedDigest?: string): Promise<string> {
    const digest = digestFor(data, expectedDigest);
    const key = this.keyOf(digest);
    // Same key means same bytes, so an existing object is already the right one; concurrent uploads
    // of the same content just overwrite each other with identical data.
    if (await this.client.exists(key)) return digest;
    await this.client.write(key, data, { type: "application/octet-stream" });
    return digest;
  }

  async has(digest: string): Promise<boolean> {
    return this.client.exists(this.keyOf(digest));
  }

  async get(digest: string): Promise<Uint8Array> {
    try {
      return await this.client.file(this.keyOf(digest)).bytes();
    } catch (error) {
      throw isNotFound(error) ? new BlobNotFoundError(digest) : error;
    }
  }

  async stream(digest: string): Promise<ReadableStream<Uint8Array>> {
    // The GET behind stream() only fails once read, so ask first: a missing blob is reported here,
    // not as an error halfway through a response the caller has already started.
    if ((await this.size(digest)) === null) throw new BlobNotFoundError(digest);
    return this.client.file(this.keyOf(digest)).stream();
  }

  async size(digest: string): Promise<number | null> {
    try {
      return (await this.client.stat(this.keyOf(digest))).size;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(digest: string): Promise<void> {
    // S3 DELETE succeeds for a missing key, which is the idempotency the interface promises.
    await this.client.delete(this.keyOf(digest));
  }

  async *list(): AsyncIterable<string> {
    let continuationToken: string | undefined;
    do {
      const page = await this.client.list({ prefix: this.prefix, maxKeys: this.listPageSize, continuationToken });
      for (const { key } of page.contents ?? []) {
        const digest = key.slice(key.lastIndexOf("/") + 1);
        // Other objects may share the prefix; only keys in exactly our layout are blobs.
        if (isDigest(digest) && key === this.keyOf(digest)) yield digest;
      }
      continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
    } while (continuationToken);
  }

  private keyOf(digest: string): string {
    return this.prefix + fanOutPath(digest);
  }
}

function isNotFound(error: unknown): boolean {
  const { name, code } = (error ?? {}) as { name?: string; code?: string };
  return name === "S3Error" && (code === "NoSuchKey" || code === "NotFound");
}
