import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { yazlZip } from "../helpers/archive-builders";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { uploadPackage } from "../helpers/packages";
import { spawnApp, type TestApp } from "../helpers/spawn-app";

// A Kattis package zipped as its author keeps it, with symbolic links (`zip -y`: an entry of mode 0120000
// whose content is the link's target): links inside the package are followed, any other refused by its path.
let t: TestApp;
let cast: Cast;

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
}, 60_000);
afterAll(() => t?.close());

const FILES: Record<string, string> = {
  "sums/problem.yaml": "problem_format_version: 2023-07-draft\nname: Sums\nlimits:\n  time_limit: 1\n",
  "sums/statement/problem.en.md": "# Sums\n\nAdd two numbers.\n",
  "sums/data/sample/1.in": "1 2\n",
  "sums/data/sample/1.ans": "3\n",
  "sums/shared/big/2.in": "20 22\n",
  "sums/shared/big/2.ans": "42\n",
};
const LINKS: Record<string, string> = {
  // A sample that is also a secret case, and a folder of cases shared with another problem.
  "sums/data/secret/1.in": "../sample/1.in",
  "sums/data/secret/1.ans": "../sample/1.ans",
  "sums/data/secret/big": "../../shared/big",
};

/** The files, and each link as zip -y stores it. */
const zipWith = (links: Record<string, string>) =>
  yazlZip((zip) => {
    for (const [path, text] of Object.entries(FILES)) zip.addBuffer(Buffer.from(text), path);
    for (const [path, target] of Object.entries(links)) zip.addBuffer(Buffer.from(target), path, { mode: 0o120777 });
  });
const imported = async (links: Record<string, string>) =>
  (await uploadPackage(t, cast, { bytes: await zipWith(links), name: "sums.zip" })).body;

describe("symbolic links in a zipped package", () => {
  test("a link to a file inside the package is its content; a link to a folder, the folder's files", async () => {
    const body = await imported(LINKS);

    expect(body.errorCode).toBe("Success");
    const problem = body.data.results[0];
    const config = await t.api.get(`/domains/${cast.domain.id}/problems/${problem.id}/configs/latest/json`, {
      token: cast.admin.token,
    });
    const cases = config.body.data.data.languageDefault.cases.map(
      (c: { executeInputFile: string }) => c.executeInputFile,
    );
    expect(cases).toEqual(["data/sample/1.in", "data/secret/1.in", "data/secret/big/2.in"]);
    const listing = await t.api.get(`/domains/${cast.domain.id}/problems/${problem.id}/configs/latest/ls`, {
      token: cast.admin.token,
    });
    const checksums = new Map(
      listing.body.data.results.map((f: { path: string; checksum: string }) => [f.path, f.checksum]),
    );
    expect(checksums.get("data/secret/big/2.ans")).toBe(checksums.get("shared/big/2.ans"));
    expect(checksums.get("data/secret/1.in")).toBe(checksums.get("data/sample/1.in"));
  });

  test("an absolute link, one out of the package, one to nothing and a loop are refused with their paths", async () => {
    const refusals = [
      [
        { "sums/data/secret/1.in": "/etc/passwd" },
        "data/secret/1.in: its link points at /etc/passwd, an absolute path",
      ],
      [
        { "sums/data/secret/1.in": "../../../../x.in" },
        "data/secret/1.in: its link points at ../../../../x.in, outside",
      ],
      [
        { "sums/data/secret/1.in": "../sample/9.in" },
        "data/secret/1.in: its link points at ../sample/9.in, which is not",
      ],
      [{ "sums/data/secret/a.in": "b.in", "sums/data/secret/b.in": "a.in" }, "data/secret/a.in: its link goes round"],
    ] as const;
    for (const [links, message] of refusals) {
      const body = await imported(links);
      expect(body.errorCode).toBe("FileValidationError");
      expect(body.errorMsg).toContain(message);
    }
  });
});
