import type { Config } from "../settings/config";
import type { BlobStore } from "./blob-store";
import { FsBlobStore } from "./fs-blob-store";
import { S3BlobStore } from "./s3-blob-store";

/** The blob store the settings name: the file system, or an S3-compatible bucket. */
export function createBlobStore(storage: Config["storage"]): BlobStore {
  if (storage.driver === "s3") {
    if (!storage.s3) throw new Error("storage driver is s3 but no S3 settings were given");
    return new S3BlobStore(storage.s3);
  }
  return new FsBlobStore(storage.dir);
}
