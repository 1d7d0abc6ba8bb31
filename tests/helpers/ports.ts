import { createServer } from "node:net";
import { readFileSync } from "node:fs";

/**
 * A TCP port free now, below the kernel's range of ephemeral ports (ip_local_port_range, 32768 and up here):
 * a port the kernel hands out for a bind to 0 comes from that range, and so may be taken by the next outgoing
 * connection (to PostgreSQL, to Redis) before the process under test binds it ("Is port 36986 in use?"). Below
 * the range only another listener can take it, and a random pick checked by binding makes that rare.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * Math.max(1000, low - 20_000));
    if (await bindable(port)) return port;
  }
  throw new Error("no free port below the ephemeral range");
}

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isFinite(low) && low > 21_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
