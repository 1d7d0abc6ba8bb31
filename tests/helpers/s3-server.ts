import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 10_000;

/**
 * A real S3 REST server (s3rver) on a free loopback port, backed by a temporary directory.
 *
 * It runs as a Node child process, not inside Bun: s3rver encrypts list continuation tokens with DES,
 * which Bun's node:crypto does not implement (ERR_CRYPTO_UNKNOWN_CIPHER, so any paged listing fails
 * with InternalError), and Node 20 only offers DES behind --openssl-legacy-provider.
 */
export async function startLocalS3(bucket = "joj-test"): Promise<LocalS3> {
  const directory = mkdtempSync(join(tmpdir(), "joj-s3rver-"));
  const child = Bun.spawn(
    [nodeBinary(), "--openssl-legacy-provider", join(import.meta.dir, "s3-server.node.mjs"), directory, bucket],
    {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  let port: number;
  try {
    port = await readPort(child);
  } catch (error) {
    child.kill();
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region: "us-east-1",
    // s3rver's single built-in account.
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Bun may put a `node` shim pointing at itself on PATH; s3rver needs the real Node. */
function nodeBinary(): string {
  const candidates = [process.env.NODE_BINARY, "/usr/bin/node", "/usr/local/bin/node"];
  const found = candidates.find((path) => path && existsSync(path)) ?? Bun.which("node");
  if (!found) throw new Error("the S3 tests need Node.js (set NODE_BINARY) to run s3rver");
  return found;
}

/** The child prints `{"port":N}` once listening; anything else within the timeout is a failed start. */
async function readPort(child: Bun.Subprocess<"pipe", "pipe", "pipe">): Promise<number> {
  const reader = child.stdout.getReader();
  const timeout = setTimeout(() => child.kill(), STARTUP_TIMEOUT_MS);
  let output = "";
  try {
    while (!output.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) {
        const stderr = await new Response(child.stderr).text();
        throw new Error(`s3rver did not start: ${stderr.trim() || "no output"}`);
      }
      output += new TextDecoder().decode(value);
    }
  } finally {
    clearTimeout(timeout);
    reader.releaseLock();
  }
  return (JSON.parse(output.slice(0, output.indexOf("\n"))) as { port: number }).port;
}
