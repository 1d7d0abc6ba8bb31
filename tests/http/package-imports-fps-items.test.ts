import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { manyItemsFps } from "../helpers/big-packages";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { uploadPackage } from "../helpers/packages";
import { spawnApp, type TestApp } from "../helpers/spawn-app";

// A whole HUSTOJ problem set exported as one FPS file: every item a problem, however many there are.
let t: TestApp;
let cast: Cast;

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
}, 60_000);
afterAll(() => t?.close());

describe("an FPS file of many items", () => {
  test("500 items become 500 problems, in order", async () => {
    const { status, body } = await uploadPackage(t, cast, { bytes: manyItemsFps(500), name: "hustoj-all.xml" });

    expect(status).toBe(200);
    expect(body.errorCode).toBe("Success");
    expect(body.data.count).toBe(500);
    expect(body.data.results[0].title).toBe("Sum 1");
    expect(body.data.results[499].title).toBe("Sum 500");
  }, 60_000);

  test("a refusal names the file as it was uploaded, not problems.xml", async () => {
    const broken = manyItemsFps(2).replace("</item>", "</itm>");

    const { body } = await uploadPackage(t, cast, { bytes: broken, name: "hustoj-all.xml" });

    expect(body.errorCode).toBe("FileValidationError");
    expect(body.errorMsg).toContain("hustoj-all.xml is not well-formed XML");
  });
});
