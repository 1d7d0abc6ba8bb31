// Runs s3rver under Node for tests/helpers/s3-server.ts (which explains why not in Bun's process).
// Usage: node --openssl-legacy-provider s3-server.node.mjs <directory> <bucket>
import { createRequire } from "node:module";

const S3rver = createRequire(import.meta.url)("s3rver");
const [directory, bucket] = process.argv.slice(2);

const server = new S3rver({
  address: "127.0.0.1",
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: bucket }],
});
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);

// The parent holds our stdin open: when it goes away, even without stopping us, stdin ends and so do we.
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
process.on("SIGTERM", () => process.exit(0));
