import { createServer } from "node:net";

/** A TCP port the kernel says is free now (bound to 0, then closed): a random pick collides now and then. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
