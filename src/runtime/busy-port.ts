import type { Logger } from "../core/logger";
import { StartupError } from "../core/startup";
import { describePortHolder } from "./port-holder";

/** A port this process (or a server it starts) must listen on, and the setting that moves it. */
export interface PortUse {
  /** Who listens, for the messages: `the API`, `the embedded PostgreSQL`. */
  server: string;
  host: string;
  port: number;
  /** The environment variable that chooses the port: `PORT`, `EMBEDDED_POSTGRES_PORT`. */
  setting: string;
}

/**
 * How long a busy port is tried again. Horse's 34765 (and 54329) lie in Linux's ephemeral range, where any
 * program's bind to port 0 or outgoing connection may be given the port for a moment: a first refusal is
 * often gone a few hundred milliseconds later. A port still busy after this is really in use.
 */
export const PORT_RETRY_MS = 5_000;
const FIRST_WAIT_MS = 50;
const LONGEST_WAIT_MS = 1_000;

/** A failure to bind because the address is taken (Bun's and Node's `EADDRINUSE`, or one made by addressInUse). */
export function isAddressInUse(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "EADDRINUSE";
}

/** The error a server started as a child reports as text ("Address already in use"), as a bind error. */
export function addressInUse(detail: string): Error {
  return Object.assign(new Error(detail), { code: "EADDRINUSE" });
}

/**
 * Runs `bind` (a listen, or a server's start) until it does not fail with EADDRINUSE, waiting longer each
 * time, for up to PORT_RETRY_MS; then gives up with a StartupError naming the holder and the setting.
 * Any other failure is thrown at once.
 */
export async function retryWhileBusy<T>(use: PortUse, logger: Logger, bind: () => T | Promise<T>): Promise<T> {
  const deadline = Date.now() + PORT_RETRY_MS;
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    try {
      return await bind();
    } catch (error) {
      if (!isAddressInUse(error)) throw error;
      if (Date.now() + wait > deadline) throw portInUseError(use);
      // Once at warn (the line a person sees, and the tests wait for); the next tries at debug.
      const fields = { server: use.server, host: use.host, port: use.port, retryForMs: PORT_RETRY_MS };
      if (wait === FIRST_WAIT_MS) logger.warn("port in use, retrying", fields);
      else logger.debug("port in use, retrying", fields);
      await Bun.sleep(wait);
    }
  }
}

/** The message for a port still busy after the retries: who holds it, and how to choose another. */
export function portInUseError(use: PortUse): StartupError {
  const seconds = PORT_RETRY_MS / 1000;
  return new StartupError(
    `${use.server} cannot listen on ${use.host}:${use.port}: the port is in use by ` +
      `${describePortHolder(use.port)} (still after ${seconds} s of retries). Stop that process, or set ` +
      `${use.setting} to another port.`,
  );
}
