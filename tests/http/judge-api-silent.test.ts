import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { attemptTimeoutMs, JudgeApi, Unreachable } from "../../src/judge/api/judge-api";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { judgerKey, listen } from "../helpers/judging";
import { spawnApp, type TestApp } from "../helpers/spawn-app";

// An API address that takes connections and never answers: what a client meets on a keep-alive socket an
// API's restart left open, or behind a proxy that lost its upstream. The judge's call must not spend its
// whole retry window on it (a record was given back after an API came back within seconds).
let t: TestApp;
let cast: Cast;
let server: string;
let silent: TCPSocketListener<undefined>;
const held: Socket<undefined>[] = [];

beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  server = listen(t);
  silent = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: { open: (socket) => void held.push(socket), data: () => {} },
  });
});
afterAll(async () => {
  for (const socket of held) socket.end();
  silent?.stop(true);
  await t?.close();
});

describe("a judge's call when an API address answers nothing", () => {
  test("each attempt is cut at a third of the retry window (at most 10 s)", () => {
    expect(attemptTimeoutMs(30_000)).toBe(10_000);
    expect(attemptTimeoutMs(90_000)).toBe(10_000);
    expect(attemptTimeoutMs(3_000)).toBe(1_000);
  });

  test("the call moves on to the API that answers, within the window", async () => {
    const key = await judgerKey(t, cast);
    const api = new JudgeApi({ serverUrls: [`http://127.0.0.1:${silent.port}`, server], ...key }, undefined, 3_000);
    // An attempt as long as the window (the old 30 s against a 30 s window) threw Unreachable here.
    const me = await api.whoami();
    expect(me.username).toBe(key.username);
    expect(held.length).toBeGreaterThanOrEqual(1);
  });

  test("an address that stays silent is Unreachable once the window is over, not later", async () => {
    const key = await judgerKey(t, cast);
    const api = new JudgeApi({ serverUrls: [`http://127.0.0.1:${silent.port}`], ...key }, undefined, 1_500);
    const error = await api.whoami().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Unreachable);
  });
});
