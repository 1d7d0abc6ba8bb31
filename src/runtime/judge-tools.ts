import { existsSync } from "node:fs";
import { PRESETS, PRESET_NAMES, type PresetName } from "../core/config-model/presets";
import { sandboxHas } from "../core/sandbox-path";
import { LINT_TOOLS } from "../core/config-model/config-stages";

/**
 * What a machine needs before the built-in judge can run, and how to get it. Shared by `bun run setup`
 * (which installs what is missing) and `bun run start` (which says, in plain words, what is missing).
 */
export interface JudgeTool {
  /** What is looked for: a command on the PATH, or a file (a library's header). */
  command?: string;
  file?: string;
  /** The Debian/Ubuntu package that provides it. */
  pkg: string;
  purpose: string;
  /** Run inside the sandbox (a preset's toolchain): it counts only where the sandbox can run it. */
  sandboxed?: boolean;
}

export const JUDGE_TOOLS: readonly JudgeTool[] = [
  { command: "bwrap", pkg: "bubblewrap", purpose: "the sandbox every submitted program runs in" },
  { command: "gcc", pkg: "gcc", purpose: "builds the sandbox's runner, and compiles C submissions" },
  { file: "/usr/include/seccomp.h", pkg: "libseccomp-dev", purpose: "the runner's system-call filter" },
  { command: "mount", pkg: "mount", purpose: "gives each sandbox slot a size-limited tmpfs" },
];

/**
 * What `bun run setup` installs besides the judge's own tools: the toolchain of each language preset
 * (SETUP_PRESETS, a comma-separated list, leaves some out; every preset by default), with C and C++ the linters
 * their stages may run (clang-tidy, cppcheck, cpplint), and a local Redis
 * when none is installed, which `bun run start` runs when REDIS_URL is unset.
 */
/** Where Debian's python3-prometheus-client puts the parser the metrics test runs. */
export const PROMETHEUS_PARSER = "/usr/lib/python3/dist-packages/prometheus_client/parser.py";

export function setupExtras(presets: readonly PresetName[] = PRESET_NAMES): JudgeTool[] {
  const toolchains = presets.flatMap((name) =>
    PRESETS[name].toolchain.map((tool) => ({ ...tool, purpose: `the ${name} preset`, sandboxed: true })),
  );
  // The linters a config's stages may run on C and C++ (docs/config-reference.md "Stages").
  const linters = presets.some((name) => name === "c" || name === "cpp")
    ? LINT_TOOLS.map((tool) => ({ ...tool, purpose: "lint stages on C and C++", sandboxed: true }))
    : [];
  return [
    ...toolchains,
    ...linters,
    { command: "redis-server", pkg: "redis-server", purpose: "the queues, when REDIS_URL is unset" },
    // `bun run test` on this machine: tests/http/metrics.test.ts reads /metrics with the Prometheus project's parser,
    // and tests/process/readme-steps.test.ts runs the README's steps, which use curl, jq and zip.
    { file: PROMETHEUS_PARSER, pkg: "python3-prometheus-client", purpose: "the tests' Prometheus text parser" },
    ...["curl", "jq", "zip"].map((command) => ({ command, pkg: command, purpose: "the README's first steps" })),
  ];
}

/** SETUP_PRESETS as preset names; an unknown name is reported, not guessed at. */
export function presetsToSet(value: string | undefined): { presets: PresetName[]; unknown: string[] } {
  if (!value?.trim()) return { presets: [...PRESET_NAMES], unknown: [] };
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const known = (name: string): name is PresetName => (PRESET_NAMES as string[]).includes(name);
  return { presets: names.filter(known), unknown: names.filter((name) => !known(name)) };
}

/**
 * Whether this machine has a tool: a preset's toolchain where the sandbox can run it (the judge asks the
 * same, src/core/sandbox-path.ts), the judge's own tools on the host's PATH, a file where it is.
 */
export type Has = (tool: JudgeTool) => boolean;
export const hasOnThisMachine: Has = (tool) =>
  tool.sandboxed
    ? sandboxHas(tool.command!)
    : tool.command
      ? Bun.which(tool.command, { PATH: process.env.PATH ?? "" }) !== null
      : existsSync(tool.file!);

export function missingJudgeTools(has: Has = hasOnThisMachine): JudgeTool[] {
  return JUDGE_TOOLS.filter((tool) => !has(tool));
}

const nameOf = (tool: JudgeTool) => tool.command ?? tool.pkg;

/** The machine this process runs on, as planSetup and judgeBlocker see it. */
export const thisMachine = () => ({
  isRoot: process.getuid?.() === 0,
  has: hasOnThisMachine,
  hasApt: Bun.which("apt-get") !== null,
});

export function installCommand(tools: readonly JudgeTool[]): string {
  return `apt-get install -y ${[...new Set(tools.map((tool) => tool.pkg))].join(" ")}`;
}

export type SetupPlan =
  | { kind: "ready" }
  | { kind: "install"; tools: JudgeTool[]; command: string[] }
  | { kind: "cannot"; tools: JudgeTool[]; why: string; fix: string };

/** What `bun run setup` will do on this machine: nothing, install with apt, or explain what to run. */
export function planSetup(
  machine: { isRoot: boolean; has: Has; hasApt: boolean },
  extras: readonly JudgeTool[] = [],
): SetupPlan {
  const tools = [...missingJudgeTools(machine.has), ...extras.filter((tool) => !machine.has(tool))];
  if (tools.length === 0) return { kind: "ready" };
  const packages = [...new Set(tools.map((tool) => tool.pkg))];
  if (!machine.hasApt) {
    return {
      kind: "cannot",
      tools,
      why: "this machine has no apt-get",
      fix: `install ${packages.join(", ")} with your system's package manager`,
    };
  }
  if (!machine.isRoot) return { kind: "cannot", tools, why: "installing needs root", fix: "sudo bun run setup" };
  return { kind: "install", tools, command: ["apt-get", "install", "-y", "--no-install-recommends", ...packages] };
}

/** Why the judge cannot run here, or null when it can: for the start-up console message. */
export function judgeBlocker(machine: {
  isRoot: boolean;
  has: Has;
  hasApt: boolean;
}): { why: string; fix: string } | null {
  if (!machine.isRoot) {
    return {
      why: "the judge must run as root, to run every submitted program as an unprivileged user of its own",
      fix: "start it as root (sudo bun run start), or run a judge elsewhere: bun run worker:judge --server URL",
    };
  }
  const tools = missingJudgeTools(machine.has);
  if (tools.length === 0) return null;
  return {
    why: `missing ${tools.map((tool) => `${nameOf(tool)} (${tool.purpose})`).join("; ")}`,
    fix: machine.hasApt
      ? `bun run setup   (or: ${installCommand(tools)})`
      : `install ${tools.map((tool) => tool.pkg).join(", ")}`,
  };
}

/** A boxed console message that a person starting the server reads, unlike a JSON log line. */
export function consoleNotice(title: string, lines: string[]): string {
  const body = [title, "", ...lines];
  const width = Math.min(100, Math.max(...body.map((line) => line.length)) + 4);
  const rule = "=".repeat(width);
  return `\n${rule}\n${body.map((line) => `  ${line}`).join("\n")}\n${rule}\n`;
}
