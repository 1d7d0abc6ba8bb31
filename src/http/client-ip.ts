import { isIP } from "node:net";
import type { Server } from "bun";

/**
 * The caller's address, for `registerIp`/`loginIp` and the per-address rate limits. `X-Forwarded-For`
 * is read only when the connection comes from a trusted proxy (TRUSTED_PROXIES), and then from the
 * right: each trusted proxy appends the address it saw, so the rightmost hop that is not one of ours is
 * the client. Entries left of it were written by the client and may be anything.
 */
export function clientIp(
  request: Request,
  server: Server<unknown> | null | undefined,
  trustedProxies: readonly string[],
): string {
  const peer = normalise(server?.requestIP(request)?.address ?? "127.0.0.1");
  if (trustedProxies.length === 0 || !isTrusted(peer, trustedProxies)) return peer;
  const hops = (request.headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((hop) => normalise(hop.trim()))
    .filter((hop) => isIP(hop));
  for (let i = hops.length - 1; i >= 0; i--) if (!isTrusted(hops[i], trustedProxies)) return hops[i];
  return hops[0] ?? peer;
}

/** 127.0.0.0/8 or ::1: a caller on this machine (after normalise, so `::ffff:127.0.0.1` counts too). */
export const isLoopback = (address: string) => address === "::1" || /^127\.\d+\.\d+\.\d+$/.test(address);

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`, how dual-stack sockets report IPv4 peers) as plain IPv4. */
const normalise = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");

function isTrusted(address: string, cidrs: readonly string[]): boolean {
  const ip = toBigInt(address);
  if (!ip) return false;
  return cidrs.some((cidr) => {
    const net = parseCidr(cidr);
    if (!net || net.family !== ip.family) return false;
    const shift = BigInt(net.bits - net.prefix);
    return ip.value >> shift === net.value >> shift;
  });
}

interface Address {
  family: 4 | 6;
  value: bigint;
  bits: number;
}

function toBigInt(address: string): Address | null {
  const family = isIP(address);
  if (family === 4)
    return { family, bits: 32, value: address.split(".").reduce((n, part) => (n << 8n) + BigInt(part), 0n) };
  if (family !== 6) return null;
  const [head, tail = ""] = address.split("::");
  const parts = (s: string) => (s ? s.split(":") : []);
  const groups = address.includes("::")
    ? [...parts(head), ...Array(8 - parts(head).length - parts(tail).length).fill("0"), ...parts(tail)]
    : parts(address);
  if (groups.length !== 8 || groups.some((g) => g.includes("."))) return null;
  return { family, bits: 128, value: groups.reduce((n, g) => (n << 16n) + BigInt(parseInt(g, 16)), 0n) };
}

/** `10.0.0.0/8`, `fd00::/8`, or a single address (a /32 or /128). Null when it is neither. */
export function parseCidr(cidr: string): (Address & { prefix: number }) | null {
  const [address, prefixText] = cidr.trim().split("/");
  const ip = toBigInt(address);
  if (!ip) return null;
  const prefix = prefixText === undefined ? ip.bits : Number(prefixText);
  if (
    !Number.isInteger(prefix) ||
    prefix < 0 ||
    prefix > ip.bits ||
    (prefixText !== undefined && !/^\d+$/.test(prefixText))
  )
    return null;
  return { ...ip, prefix };
}
