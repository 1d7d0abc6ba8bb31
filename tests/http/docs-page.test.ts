import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromiumFor, noChromium } from "../helpers/chromium";
import { spawnApp, type TestApp } from "../helpers/spawn-app";

// The page `bun run start` points a new user at (`docs at …/api/v1/docs`), in a real browser on a real port:
// the HTML alone proved nothing, since the page fetched its document from a URL that answered 404.
let t: TestApp;
let browser: ReturnType<typeof chromiumFor>;
beforeAll(async () => {
  t = await spawnApp();
  browser = chromiumFor(t);
});
afterAll(async () => {
  await browser.close();
  await t.close();
});

describe("the API docs page in a real browser", () => {
  test.skipIf(noChromium)(
    "loads the document, lists the operations, and runs GET /api/v1/version from the page",
    async () => {
      const { page, requests, errors } = await browser.open("/api/v1/docs");
      // Either the operations or Swagger UI's "Failed to load API definition", whichever comes.
      await page.locator(".opblock, .errors-wrapper").first().waitFor();
      const failure = page.locator(".errors-wrapper");
      expect((await failure.count()) > 0 ? await failure.textContent() : "").toBe("");
      expect(await page.locator(".opblock").count()).toBeGreaterThan(50);
      const version = page.locator(".opblock-get", {
        has: page.locator('.opblock-summary-path[data-path="/api/v1/version"]'),
      });
      expect(await version.count()).toBe(1);
      expect(requests).toContain(`${browser.origin}/api/v1/openapi.json`);

      await version.locator(".opblock-summary-control").click();
      await version.getByRole("button", { name: "Try it out" }).click();
      await version.getByRole("button", { name: "Execute" }).click();
      const answer = version.locator(".live-responses-table .response");
      await answer.waitFor();
      expect(await answer.locator(".response-col_status").first().textContent()).toContain("200");
      const body = JSON.parse((await answer.locator(".response-col_description pre").first().textContent()) ?? "");
      expect(body).toEqual((await t.api.get("/version")).body);
      expect(errors).toEqual([]);
    },
    60_000,
  );
});
