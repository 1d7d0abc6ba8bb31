import { describe, expect, test } from "bun:test";
import { judgeBlocker, planSetup, type JudgeTool } from "../../src/runtime/judge-tools";

// A machine described by what it has: what a fresh Debian, a developer laptop or a judge host sees.
const machine = (isRoot: boolean, hasApt: boolean, ...present: string[]) => ({
  isRoot,
  hasApt,
  has: (tool: JudgeTool) => present.includes(tool.command ?? tool.pkg),
});
const FRESH = ["mount"];
const ALL = ["mount", "bwrap", "gcc", "libseccomp-dev"];

describe("bun run setup", () => {
  test("a fresh Debian as root: installs bubblewrap, gcc and libseccomp with apt-get", () => {
    const plan = planSetup(machine(true, true, ...FRESH));
    expect(plan).toMatchObject({
      kind: "install",
      command: ["apt-get", "install", "-y", "--no-install-recommends", "bubblewrap", "gcc", "libseccomp-dev"],
    });
  });

  test("a machine that has everything: nothing to do", () => {
    expect(planSetup(machine(true, true, ...ALL))).toEqual({ kind: "ready" });
    expect(planSetup(machine(false, false, ...ALL))).toEqual({ kind: "ready" });
  });

  test("not root: says to run it with sudo", () => {
    expect(planSetup(machine(false, true, ...FRESH))).toMatchObject({ kind: "cannot", fix: "sudo bun run setup" });
  });

  test("no apt-get: names the packages for another package manager", () => {
    const plan = planSetup(machine(true, false, ...FRESH));
    expect(plan.kind).toBe("cannot");
    if (plan.kind === "cannot") expect(plan.fix).toContain("bubblewrap, gcc, libseccomp-dev");
  });
});

describe("bun run start's judge check", () => {
  test("root with every tool: the judge starts", () => {
    expect(judgeBlocker(machine(true, true, ...ALL))).toBeNull();
  });

  test("not root: says why, and how to judge anyway", () => {
    expect(judgeBlocker(machine(false, true, ...ALL))?.fix).toContain("sudo bun run start");
  });

  test("no bubblewrap: names it, what it is for, and the command", () => {
    const blocker = judgeBlocker(machine(true, true, "mount", "gcc", "libseccomp-dev"));
    expect(blocker?.why).toContain("bwrap (the sandbox");
    expect(blocker?.fix).toContain("bun run setup");
    expect(blocker?.fix).toContain("apt-get install -y bubblewrap");
  });
});
