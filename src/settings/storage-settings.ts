import type { EnvReader } from "../core/env-reader";

/** Where blobs are kept when STORAGE_DRIVER=s3 (config.ts reads the rest of the settings). */

/** An S3-compatible bucket (AWS S3, MinIO, R2); unset credentials fall back to Bun's own AWS_* lookup. */
export interface S3StorageSettings {
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Key prefix, always ending in "/": blobs live under `<prefix>ab/cd/<digest>`. */
  prefix: string;
}

export function readS3Settings(read: EnvReader, problems: string[]): S3StorageSettings {
  const bucket = read.optional("S3_BUCKET");
  if (bucket === undefined) problems.push("S3_BUCKET is required when STORAGE_DRIVER=s3");
  const accessKeyId = read.optional("S3_ACCESS_KEY_ID");
  const secretAccessKey = read.optional("S3_SECRET_ACCESS_KEY");
  // Half a key pair would silently mix with credentials Bun finds elsewhere (AWS_*), so refuse it.
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    problems.push("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be given together");
  }
  const prefix = read.string("S3_PREFIX", "blobs/").replace(/^\/+/, "");
  return {
    endpoint: read.optionalUrl("S3_ENDPOINT", ["http:", "https:"]),
    region: read.string("S3_REGION", "us-east-1"),
    bucket: bucket ?? "",
    accessKeyId,
    secretAccessKey,
    prefix: prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`,
  };
}
