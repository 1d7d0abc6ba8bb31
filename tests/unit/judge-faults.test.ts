import { describe, expect, test } from "bun:test";
import { caseWithout } from "../../src/core/judge-protocol";
import { Redactor } from "../../src/core/redact";
import { guardReport, hostPathsOf } from "../../src/judge/api/judge-api";
import { failureMessage } from "../../src/judge/record/judge-record";
import { JudgeFault } from "../../src/judge/sandbox/stage";

// What a record says when the judge failed: never a path of the judge machine (issue 40).
const settings = { workDir: "/var/lib/joj/judge/work", cacheDir: "/var/lib/joj/judge/cache" };

describe("a judge failure as the record shows it", () => {
  test("a fault the judge names is shown in its words", () => {
    const fault = new JudgeFault('the files cannot be laid out in /work: "lib" is both a file and a folder');
    expect(failureMessage(fault)).toBe(`The judge failed (not the program): ${fault.message}`);
  });

  test("any other error (a file system's, naming a path of the machine) is only in the judge's log", () => {
    const error = new Error(`ENOENT: no such file or directory, rename '${settings.workDir}/60001/stage/7'`);
    const said = failureMessage(error);
    expect(said).toBe("The judge failed (not the program): an error of the judge machine (its log has the details)");
    expect(said).not.toContain("/var/lib");
  });
});

describe("every case report leaves the judge without its directories", () => {
  const guard = { redactor: new Redactor([]), hostPaths: hostPathsOf(settings) };

  test("the work and cache directories become [judge], the deepest first", () => {
    const diagnostics = `sandbox failed: bwrap: Can't find source path ${settings.workDir}/60001/stage: No such file`;
    const report = guardReport(guard, caseWithout("system_error", diagnostics), () => {});
    expect(report.stderr).toBe("sandbox failed: bwrap: Can't find source path [judge]/60001/stage: No such file");
  });

  test("a directory that is also a path inside the sandbox is not cut: the program's own output stays whole", () => {
    // A judge whose work directory is /work: its programs print /work/main.c in their own messages.
    expect(hostPathsOf({ workDir: "/work", cacheDir: "/tmp" })).toEqual([]);
    expect(hostPathsOf({ workDir: "/", cacheDir: "/srv/joj/cache" })).toEqual(["/srv/joj/cache"]);
    const report = guardReport(
      { redactor: new Redactor([]), hostPaths: hostPathsOf({ workDir: "/work", cacheDir: "/tmp" }) },
      { ...caseWithout("compile_error", "/work/main.c:3:1: error: expected ';'"), stdout: "/tmp/x" },
      () => {},
    );
    expect([report.stdout, report.stderr]).toEqual(["/tmp/x", "/work/main.c:3:1: error: expected ';'"]);
  });
});
