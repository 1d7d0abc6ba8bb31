import type { RunResult } from "../../src/judge/sandbox/sandbox";

/** A run as the sandbox reports it: a small program that exited 0 at once, with `fields` over that. */
export const runResult = (fields: Partial<RunResult> = {}): RunResult => ({
  exitCode: 0,
  signal: 0,
  cpuMs: 10,
  wallMs: 20,
  memoryKb: 800,
  wallExceeded: false,
  oomKilled: false,
  outputExceeded: false,
  stdout: new Uint8Array(),
  stderr: new Uint8Array(),
  stderrTruncated: false,
  lost: false,
  diagnostics: "",
  files: new Map(),
  filesDropped: 0,
  ...fields,
});
