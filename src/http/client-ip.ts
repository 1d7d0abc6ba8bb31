import type { Server } from "bun";

/**
 * The caller's address for `registerIp`/`loginIp`. `X-Forwarded-For` is believed only with
 * TRUST_PROXY=true (behind a reverse proxy that sets it); otherwise anyone could forge it.
 */
export function clientIp(request: Request, server: Server<unknown> | null | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded.slice(0, 64);
  }
  return server?.requestIP(request)?.address ?? "127.0.0.1";
}
