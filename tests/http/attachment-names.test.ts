import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { archiveOf } from "../helpers/archive-builders";
import { uploadPackage } from "../helpers/packages";

// A problem's attachments are served at exactly the url its import answers, whatever their names: names
// that need percent-encoding (spaces, CJK, quotes, semicolons) included (docs/problem-packages.md
// "Statements and attachments"). A Kattis package without submissions: no judge is needed.
let t: TestApp;
let cast: Cast;

const FILES: Record<string, string> = {
  "attachments/名前 with space.png": "not really a PNG, but its bytes: \u00e9\u4e2d",
  'attachments/a"b;c.txt': 'a "quoted"; text\n',
  // Decoded once, not twice: "%25" is a percent sign, not the start of another escape.
  "attachments/100% sure (really).txt": "100\n",
  "attachments/tool.py": "print(42)\n",
};
const KATTIS = {
  "problem.yaml": "problem_format_version: 2023-07-draft\nname: Named Files\ntype: pass-fail\n",
  "statement/problem.en.md": "# Named Files\n\nSee ![figure](<attachments/名前 with space.png>).\n",
  "data/sample/1.in": "1\n",
  "data/sample/1.ans": "1\n",
  "data/secret/1.in": "2\n",
  "data/secret/1.ans": "2\n",
  ...FILES,
};

type Listed = { name: string; size: number; url: string };
let listed: Listed[];

const served = (url: string, token = cast.member.token) =>
  t.app.handle(new Request(`http://localhost${url}`, { headers: { authorization: `Bearer ${token}` } }));

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
  const answer = await uploadPackage(t, cast, { bytes: await archiveOf("zip", KATTIS), name: "named.zip" });
  expect(answer.body.errorCode).toBe("Success");
  listed = answer.body.data.results[0].attachments;
});
afterAll(() => t.close());

describe("GET …/problems/{p}/attachments/{name} at the url the import answers", () => {
  test("each url is the name percent-encoded segment by segment: no space, quote or semicolon left raw", () => {
    expect(listed.map((a) => a.name).sort()).toEqual(Object.keys(FILES).sort());
    for (const { url } of listed) {
      expect(url).not.toMatch(/[\s";'()*\u0080-\uffff]/);
      expect(url).toContain("/attachments/attachments/");
    }
    const odd = listed.find((a) => a.name.startsWith("attachments/a"))!;
    expect(odd.url.endsWith("/attachments/attachments/a%22b%3Bc.txt")).toBe(true);
  });

  test("serves each file's own bytes, with a Content-Disposition safe to quote and its name in filename*", async () => {
    for (const { name, url } of listed) {
      const response = await served(url);
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(FILES[name]))).toBe(true);
      const disposition = response.headers.get("content-disposition")!;
      const base = name.split("/").at(-1)!;
      expect(disposition).toMatch(/^(inline|attachment); filename="[A-Za-z0-9._-]+"; filename\*=UTF-8''\S+$/);
      const [, star] = disposition.split("filename*=UTF-8''");
      expect(star).toMatch(/^[A-Za-z0-9!#$&+^`|~._-]*(%[0-9A-F]{2}[A-Za-z0-9!#$&+^`|~._-]*)*$/);
      expect(decodeURIComponent(star)).toBe(base);
    }
  });

  test("the statement's link to an attachment is its url too", async () => {
    const problem = await t.api.get(`/domains/${cast.domain.id}/problems/${listed[0].url.split("/")[6]}`, {
      token: cast.member.token,
    });
    const image = listed.find((a) => a.name.includes("名前"))!;
    expect(problem.body.data.content).toContain(`![figure](<${image.url}>)`);
  });

  test("a name that is not the problem's is still refused, encoded or not", async () => {
    const base = listed[0].url.slice(0, listed[0].url.indexOf("/attachments/") + "/attachments/".length);
    for (const path of ["attachments/missing.txt", "attachments%2Ftool.py%00", "%E5%90%8D%E5%89%8D", "%ZZ"]) {
      const refused = (await (await served(base + path)).json()) as { errorCode: string };
      expect([path, refused.errorCode]).toEqual([path, "FileDownloadError"]);
    }
  });
});
