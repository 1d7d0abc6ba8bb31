import { describe, expect, test } from "bun:test";
import { judgeBlocker, planSetup, presetsToSet, setupExtras, type JudgeTool } from "../../src/runtime/judge-tools";
import { PRESET_NAMES } from "../../src/core/config-model/presets";

// A machine described by what it has: what a fresh Debian, a developer laptop or a judge host sees.
const machine = (isRoot: boolean, hasApt: boolean, ...present: string[]) => ({
  isRoot,
  hasApt,
  has: (tool: JudgeTool) => present.includes(tool.command ?? tool.pkg),
});
const FRESH = ["mount"];
const ALL = ["mount", "bwrap", "gcc", "libseccomp-dev"];
// Redis, and what `bun run test` needs besides the judge's tools.
const TEST_TOOLS = ["redis-server", "python3-prometheus-client", "curl", "jq", "zip"];

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

describe("bun run setup's languages and Redis", () => {
  const extras = setupExtras();
  test("a fresh Debian: every preset's toolchain and redis-server, once each", () => {
    const plan = planSetup(machine(true, true, ...FRESH), extras);
    expect(plan.kind).toBe("install");
    if (plan.kind !== "install") return;
    const packages = plan.command.slice(4);
    const wanted = ["g++", "python3", "default-jdk-headless", "golang-go", "rustc", "nodejs", "redis-server"];
    // What `bun run test` needs besides: the Prometheus project's parser for the metrics test.
    wanted.push("python3-prometheus-client", "curl", "jq", "zip");
    // The linters a C or C++ stage may run (docs/config-reference.md "Stages").
    for (const pkg of [...wanted, "clang-tidy", "cppcheck", "cpplint"]) expect(packages).toContain(pkg);
    expect(new Set(packages).size).toBe(packages.length);
  });

  test("SETUP_PRESETS leaves the others out, and names what it does not know", () => {
    const chosen = presetsToSet("c, cpp,python3,cobol");
    expect(chosen).toEqual({ presets: ["c", "cpp", "python3"], unknown: ["cobol"] });
    const plan = planSetup(machine(true, true, ...ALL, ...TEST_TOOLS), setupExtras(chosen.presets));
    expect(plan).toMatchObject({
      kind: "install",
      command: [
        "apt-get",
        "install",
        "-y",
        "--no-install-recommends",
        "g++",
        "python3",
        "clang-tidy",
        "cppcheck",
        "cpplint",
      ],
    });
    // Without C or C++ no linter is installed.
    expect(planSetup(machine(true, true, ...ALL, ...TEST_TOOLS), setupExtras(["python3"]))).toMatchObject({
      command: ["apt-get", "install", "-y", "--no-install-recommends", "python3"],
    });
    expect(presetsToSet(undefined).presets).toEqual(PRESET_NAMES);
  });

  test("a machine with every toolchain and Redis: nothing to do", () => {
    const everything = extras.map((tool) => tool.command ?? tool.pkg);
    expect(planSetup(machine(true, true, ...ALL, ...everything), extras)).toEqual({ kind: "ready" });
  });
});
