import { expect } from "bun:test";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import type { TestUser } from "./factories";
import type { TestApp } from "./spawn-app";

/**
 * A real headless Chromium on the app's real port, for pages that run their own script (live pages need a real
 * connection: a stream cannot be fulfilled by request interception). Chromium from Debian is installed by
 * .ci/run; elsewhere the tests that need it run when it is there.
 */
export const chromiumPath = Bun.which("chromium");
export const noChromium = !chromiumPath && !process.env.CI;

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Every URL the page requested, in order. */
  requests: string[];
  /** Console errors (a CSP violation among them), uncaught exceptions and dialogs: a good page has none. */
  errors: string[];
}

/** One Chromium and the app listening on 127.0.0.1, started on first use; `close` stops both. */
export function chromiumFor(t: TestApp) {
  let browser: Browser | undefined;
  let origin = "";
  const start = async () => {
    if (!origin) {
      t.app.listen({ hostname: "127.0.0.1", port: 0 });
      origin = `http://127.0.0.1:${t.app.server!.port}`;
    }
    browser ??= await chromium.launch({ executablePath: chromiumPath ?? "chromium", args: ["--no-sandbox"] });
    return { browser, origin };
  };
  return {
    get origin() {
      return origin;
    },
    /**
     * Signs `who` in as a browser does (the login answer's session cookies land in the context's jar), then
     * opens `path` in a new page whose requests, console errors and dialogs are recorded.
     */
    async openAs(who: TestUser, path: string, viewport = { width: 1000, height: 520 }): Promise<OpenedPage> {
      const { browser, origin } = await start();
      const context = await browser.newContext({ viewport });
      const login = await context.request.post(`${origin}/api/v1/auth/login?responseType=json`, {
        form: { username: who.user.username, password: who.password },
      });
      expect(((await login.json()) as { errorCode: string }).errorCode).toBe("Success");
      return openIn(context, `${origin}${path}`);
    },
    /** Opens `path` as someone not signed in (a page that needs no account: the API docs). */
    async open(path: string, viewport = { width: 1200, height: 900 }): Promise<OpenedPage> {
      const { browser, origin } = await start();
      return openIn(await browser.newContext({ viewport }), `${origin}${path}`);
    },
    async close() {
      await browser?.close();
      if (origin) await t.app.stop(true);
    },
  };
}

/** A new page in `context` whose requests, console errors and dialogs are recorded, at `url`. */
async function openIn(context: BrowserContext, url: string): Promise<OpenedPage> {
  const page = await context.newPage();
  const opened: OpenedPage = { context, page, requests: [], errors: [] };
  page.on("request", (request) => opened.requests.push(request.url()));
  page.on("console", (message) => {
    if (message.type() === "error") opened.errors.push(message.text());
  });
  page.on("pageerror", (error) => opened.errors.push(error.message));
  page.on("dialog", (dialog) => {
    opened.errors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  // Chromium logs most violations itself; the event catches the rest (a report-only detail, a blocked eval).
  await page.addInitScript(
    'document.addEventListener("securitypolicyviolation", (e) => console.error("CSP: " + e.violatedDirective))',
  );
  expect((await page.goto(url))?.status()).toBe(200);
  return opened;
}
