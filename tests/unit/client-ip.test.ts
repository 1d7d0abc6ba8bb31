import { describe, expect, test } from "bun:test";
import { clientIp, parseCidr } from "../../src/http/client-ip";

// The peer as Bun's server reports it, and the X-Forwarded-For header a request carries.
const from = (peer: string, forwarded?: string) => {
  const request = new Request("http://localhost/", {
    headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded },
  });
  const server = { requestIP: () => ({ address: peer, family: peer.includes(":") ? "IPv6" : "IPv4", port: 40000 }) };
  return [request, server as never] as const;
};

describe("the client's address", () => {
  test("without trusted proxies the header is ignored: anyone could write it", () => {
    expect(clientIp(...from("203.0.113.9", "1.2.3.4"), [])).toBe("203.0.113.9");
  });

  test("from a trusted proxy, the rightmost hop that is not one of ours", () => {
    const proxies = ["10.0.0.0/8", "127.0.0.1"];
    expect(clientIp(...from("10.1.2.3", "6.6.6.6, 198.51.100.4"), proxies)).toBe("198.51.100.4");
    expect(clientIp(...from("10.1.2.3", "6.6.6.6, 198.51.100.4, 10.9.9.9"), proxies)).toBe("198.51.100.4");
    expect(clientIp(...from("::ffff:127.0.0.1", "2001:db8::7"), proxies)).toBe("2001:db8::7");
  });

  test("a request not from a trusted proxy keeps its peer, whatever it claims", () => {
    expect(clientIp(...from("198.51.100.4", "10.0.0.1"), ["10.0.0.0/8"])).toBe("198.51.100.4");
  });

  test("garbage in the header is skipped; with nothing usable, the peer", () => {
    expect(clientIp(...from("10.0.0.2", "not-an-ip, <script>"), ["10.0.0.0/8"])).toBe("10.0.0.2");
  });

  test("CIDRs: v4, v6, single addresses; nonsense is refused", () => {
    expect(parseCidr("10.0.0.0/8")).toMatchObject({ family: 4, prefix: 8 });
    expect(parseCidr("fd00::/8")).toMatchObject({ family: 6, prefix: 8 });
    expect(parseCidr("192.0.2.1")).toMatchObject({ prefix: 32 });
    for (const bad of ["10.0.0.0/33", "10.0.0/8", "fd00::/129", "example.com", "10.0.0.0/x"])
      expect(parseCidr(bad)).toBeNull();
    expect(clientIp(...from("fd00::1", "2001:db8::1"), ["fd00::/8"])).toBe("2001:db8::1");
  });
});
