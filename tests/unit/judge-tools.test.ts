import { describe, expect, test } from "bun:test";
import { judgeBlocker, planSetup } from "../../src/runtime/judge-tools";

// A machine described by the commands it has: what a fresh Debian, a developer laptop or a judge host sees.
const has = (...commands: string[]) => (command: string) => (commands.includes(command) ? `/usr/bin/${command}` : null);
const FRESH_DEBIAN = has("apt-get", "setpriv");
const READY = has("apt-get", "setpriv", "bwrap", "gcc");

describe("bun run setup", () => {
  test("a fresh Debian as root: installs bubblewrap and gcc with apt-get", () => {
    const plan = planSetup({ isRoot: true, which: FRESH_DEBIAN });
    expect(plan).toMatchObject({ kind: "install", command: ["apt-get", "install", "-y", "--no-install-recommends", "bubblewrap", "gcc"] });
  });

  test("a machine that has everything: nothing to do", () => {
    expect(planSetup({ isRoot: true, which: READY })).toEqual({ kind: "ready" });
    expect(planSetup({ isRoot: false, which: READY })).toEqual({ kind: "ready" });
  });

  test("not root: says to run it with sudo", () => {
    expect(planSetup({ isRoot: false, which: FRESH_DEBIAN })).toMatchObject({ kind: "cannot", fix: "sudo bun run setup" });
  });

  test("no apt-get: names the packages for another package manager", () => {
    const plan = planSetup({ isRoot: true, which: has("setpriv") });
    expect(plan.kind).toBe("cannot");
    if (plan.kind === "cannot") expect(plan.fix).toContain("bubblewrap, gcc");
  });
});

describe("bun run start's judge check", () => {
  test("root with every tool: the judge starts", () => {
    expect(judgeBlocker({ isRoot: true, which: READY })).toBeNull();
  });

  test("not root: says why, and how to judge anyway", () => {
    expect(judgeBlocker({ isRoot: false, which: READY })?.fix).toContain("sudo bun run start");
  });

  test("no bubblewrap: names it, what it is for, and the command", () => {
    const blocker = judgeBlocker({ isRoot: true, which: has("apt-get", "setpriv", "gcc") });
    expect(blocker?.why).toContain("bwrap (the sandbox");
    expect(blocker?.fix).toContain("bun run setup");
    expect(blocker?.fix).toContain("apt-get install -y bubblewrap");
  });
});
