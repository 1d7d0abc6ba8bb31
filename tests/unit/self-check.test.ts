import { describe, expect, test } from "bun:test";
import { judgeProbeReport } from "../../src/judge/sandbox/self-check";

// Reports in probe.c's format: "<pid> <self|other> <what> <ok|denied> <hex>".
const hex = (text: string) => Buffer.from(text, "latin1").toString("hex");
const line = (pid: number, self: boolean, what: string, data: string | null) =>
  `${pid} ${self ? "self" : "other"} ${what} ${data === null ? "denied" : "ok"} ${data === null ? "" : hex(data)}`;
const SELF = [
  line(2, true, "environ", "PATH=/usr/bin\0HOME=/work\0LANG=C.UTF-8\0"),
  line(2, true, "cmdline", "./probe\0"),
];
const CLOSED_INIT = [
  line(1, false, "environ", null),
  line(1, false, "cmdline", "/.runner\0\0\0\0"),
  line(1, false, "maps", null),
  line(1, false, "mem", null),
  line(1, false, "fd", null),
];
const report = (...lines: string[]) => lines.join("\n");

describe("the self-check's reading of the probe", () => {
  test("the sandbox as it should be: its own process, and an init it can read nothing of", () => {
    expect(judgeProbeReport(report(...SELF, ...CLOSED_INIT), ["judger-secret-0123456789"])).toEqual([]);
  });

  test("bubblewrap's init holding the judge's environment (the leak this check guards against)", () => {
    const leaky = [
      line(1, false, "environ", "JUDGER_SECRET_ACCESS_KEY=judger-secret-0123456789\0"),
      ...CLOSED_INIT.slice(1),
    ];
    expect(judgeProbeReport(report(...SELF, ...leaky), ["judger-secret-0123456789"])).toEqual([
      "the probe read a setting of the judge in /proc/1/environ",
      "the probe can read /proc/1/environ",
    ]);
  });

  test("a second process it did not start, readable", () => {
    const problems = judgeProbeReport(report(...SELF, ...CLOSED_INIT, line(7, false, "fd", "0=/dev/null;")), []);
    expect(problems).toEqual(["the probe sees process 7, which it did not start", "the probe can read /proc/7/fd"]);
  });

  test("an init whose command line is not blanked, or whose memory opens", () => {
    const open = [line(1, false, "cmdline", "/.runner\x002000\x00--\x00./probe\0"), line(1, false, "mem", "")];
    expect(judgeProbeReport(report(...SELF, ...open), [])).toEqual([
      "the probe can read /proc/1/cmdline",
      "the probe can read /proc/1/mem",
    ]);
  });

  test("variables beyond the sandbox's own in the program's environment", () => {
    const self = line(2, true, "environ", "PATH=/usr/bin\0JOJ_SELF_CHECK_CANARY=joj-canary-abc\0");
    expect(judgeProbeReport(report(self, ...CLOSED_INIT), ["joj-canary-abc"])).toEqual([
      "the probe read a setting of the judge in /proc/2/environ",
      "a sandboxed program has variables it should not: JOJ_SELF_CHECK_CANARY",
    ]);
  });

  test("no report at all: the probe did not run", () => {
    expect(judgeProbeReport("", [])).toEqual(["the probe did not see itself: it did not run"]);
  });
});
