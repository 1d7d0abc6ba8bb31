import { expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { checkFailed, errorsPlugin } from "../../src/http/errors.plugin";
import { createLogger } from "../../src/core/logger";

// The route checks run in the parse phase (before a body is read), where Elysia wraps every error in a
// ParseError. A check that fails unexpectedly must stay a logged 500, not pass for a malformed body.
test("an unexpected error of a route check is a logged 500; a malformed body is still a 422", async () => {
  const logs: Record<string, unknown>[] = [];
  const app = new Elysia()
    .use(errorsPlugin(createLogger("debug", {}, (line) => logs.push(JSON.parse(line)))))
    .post("/checked", () => "ok", {
      parse: () => {
        throw checkFailed(new TypeError("a bug in a check"));
      },
      body: t.Object({}),
    })
    .post("/plain", ({ body }) => body, { body: t.Object({ a: t.Number() }) });
  const post = (path: string, body: string) =>
    app.handle(
      new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json" }, body }),
    );
  const failed = await post("/checked", "{}");
  expect(failed.status).toBe(500);
  expect(((await failed.json()) as { errorCode: string }).errorCode).toBe("InternalServerError");
  expect(logs.some((l) => l.msg === "unhandled error")).toBe(true);
  expect((await post("/plain", "{not json")).status).toBe(422);
});
