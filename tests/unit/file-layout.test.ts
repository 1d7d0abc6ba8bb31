import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { layoutProblem, NAME_MAX_BYTES } from "../../src/core/file-layout";

// The rule the API refuses submissions and config archives by, checked against what it stands for: a real
// file system, where the judge lays the files out.
const scratch = mkdtempSync(join(tmpdir(), "joj-layout-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Whether every path can be written as a file in a fresh directory (parents made as needed). */
function fits(paths: readonly string[], at: string): boolean {
  mkdirSync(at);
  try {
    for (const path of paths) {
      mkdirSync(dirname(join(at, path)), { recursive: true });
      closeSync(openSync(join(at, path), "wx"));
    }
    return true;
  } catch {
    return false;
  }
}

// Names that collide often, a name of exactly NAME_MAX bytes and ones past it in UTF-8 (a character of
// Chinese is 3 bytes): 85 of them fit, 86 do not.
const name = fc.oneof(
  fc.constantFrom("a", "b", "main.c", "lib"),
  fc.constantFrom("测".repeat(85), "测".repeat(86), "x".repeat(NAME_MAX_BYTES), "x".repeat(NAME_MAX_BYTES + 1)),
);
const path = fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/"));

describe("a set of paths can be laid out exactly when the file system takes them all", () => {
  test("property: layoutProblem is null if and only if the files can all be written", () => {
    let run = 0;
    fc.assert(
      fc.property(fc.array(path, { minLength: 1, maxLength: 5 }), (paths) => {
        const problem = layoutProblem(paths);
        expect(problem === null).toBe(fits(paths, join(scratch, String(run++))));
      }),
      { numRuns: 300 },
    );
  });

  test("says why, in words a student can act on", () => {
    expect(layoutProblem(["a", "a/b"])).toBe('"a" is both a file and a folder');
    expect(layoutProblem(["main.c", "main.c"])).toBe('"main.c" is there twice');
    expect(layoutProblem([`${"测".repeat(86)}.c`])).toContain("is longer than 255 bytes (in UTF-8)");
    expect(layoutProblem(["../x"])).toBe('"../x" is not a relative path');
    expect(layoutProblem(["src/a.c", "src/b.c", "main.c"])).toBeNull();
    // A directory the judge makes itself may hold files; a file may not stand where it goes.
    expect(layoutProblem(["feedback/x"], ["feedback"])).toBeNull();
    expect(layoutProblem(["feedback"], ["feedback"])).toBe('"feedback" is both a file and a folder');
  });
});
