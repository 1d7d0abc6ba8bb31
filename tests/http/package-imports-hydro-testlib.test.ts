import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { archiveOf } from "../helpers/archive-builders";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { uploadPackage } from "../helpers/packages";
import { spawnApp, type TestApp } from "../helpers/spawn-app";

// A Hydro package whose checker includes testlib.h, which Hydro's judge supplies and its export leaves out.
let t: TestApp;
let cast: Cast;

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
}, 60_000);
afterAll(() => t?.close());

describe("a Hydro checker that includes testlib.h without shipping it", () => {
  test("is refused with the fix: where to put testlib.h", async () => {
    const zip = await archiveOf("zip", {
      "problem.yaml": "title: Checked\n",
      "testdata/config.yaml": "checker_type: testlib\nchecker: chk.cc\n",
      "testdata/chk.cc": '#include "testlib.h"\nint main(int argc, char* argv[]) { registerTestlibCmd(argc, argv); }\n',
      "testdata/1.in": "1\n",
      "testdata/1.out": "1\n",
    });

    const { body } = await uploadPackage(t, cast, { bytes: zip, name: "checked.zip" });

    expect(body.errorCode).toBe("FileValidationError");
    expect(body.errorMsg).toContain("the checker chk.cc includes testlib.h, which is not in the package");
    expect(body.errorMsg).toContain("put the testlib.h it was written for in testdata/, beside chk.cc");
  });
});
