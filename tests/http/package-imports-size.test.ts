import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fpsFile, fpsItem, hydroExport, image, numberLines } from "../helpers/big-packages";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { uploadPackage } from "../helpers/packages";
import { spawnApp, type TestApp } from "../helpers/spawn-app";

// Packages as a new user sends them: the whole export, megabytes of cases and images, under the upload limit.
let t: TestApp;
let cast: Cast;

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
}, 60_000);
afterAll(() => t?.close());

describe("POST /domains/{domain}/problem_packages takes the upload limit, not the JSON routes' 1 MiB", () => {
  test("a 2.4 MB FPS file with many cases and base64 images is imported as it is sent", async () => {
    const tests = Array.from({ length: 30 }, (_, i) => ({
      input: numberLines(64 * 1024, `in${i}`),
      output: numberLines(4 * 1024, `out${i}`),
    }));
    const images = [1, 2, 3].map((n) => ({ src: `/upload/image/2024/fig${n}.png`, data: image(90 * 1024) }));
    const description = images.map((img) => `<p><img src="${img.src}"/></p>`).join("");
    const xml = fpsFile([fpsItem({ title: "大文件 Big file", tests, images, description })]);
    expect(Buffer.byteLength(xml)).toBeGreaterThan(2_400_000);

    const { status, body } = await uploadPackage(t, cast, { bytes: xml, name: "export.xml" });

    expect(status).toBe(200);
    expect(body.errorCode).toBe("Success");
    const [problem] = body.data.results;
    expect(problem).toMatchObject({ title: "大文件 Big file", format: "fps" });
    expect(problem.attachments).toHaveLength(3);
    const config = await t.api.get(`/domains/${cast.domain.id}/problems/${problem.id}/configs/latest/json`, {
      token: cast.admin.token,
    });
    expect(config.body.data.data.languageDefault.cases).toHaveLength(31);
  }, 120_000);

  test("an 8.6 MB Hydro export of several problems is imported as it is sent", async () => {
    const zip = await hydroExport(6, 20, 132 * 1024);
    expect(zip.length).toBeGreaterThan(8_600_000);

    const { status, body } = await uploadPackage(t, cast, { bytes: zip, name: "hydro-export.zip" });

    expect(status).toBe(200);
    expect(body.errorCode).toBe("Success");
    expect(body.data.count).toBe(6);
    expect(body.data.results.map((r: { title: string }) => r.title)).toContain("第 6 题 Problem 6");
    expect(body.data.results[0].attachments).toEqual([expect.objectContaining({ name: "figure1.png" })]);
  }, 120_000);
});
