import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser, type TestUser } from "../helpers/factories";

// A path no route takes answers in the shape of the API it is under (docs/contest-api.md, docs/api.md): the
// Contest API's `{code, message}` with the status in `code` under /api/ccs, Horse's `{"detail": "Not Found"}`
// under /api/v1 and anywhere else.
let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await spawnApp();
  user = await createUser(t);
});
afterAll(() => t.close());

async function send(path: string, method = "GET", token: string | null = user.token) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const response = await t.app.handle(new Request(`http://localhost${path}`, { method, headers }));
  const text = await response.text();
  return { status: response.status, type: response.headers.get("content-type"), body: JSON.parse(text) };
}

describe("a path no route takes", () => {
  test("under /api/ccs: a 404 with {code: 404, message}, and nothing else", async () => {
    for (const path of [
      "/api/ccs/domains/x/contests/y/nonsense/a/b",
      "/api/ccs/nothing",
      "/api/ccs",
      "/api/ccs/",
      "/api/ccs/domains",
      "/api/ccs/domains/x/contests/y/teams/z/more?strict=true",
    ]) {
      const answer = await send(path);

      expect({ path, status: answer.status, keys: Object.keys(answer.body).sort() }).toEqual({
        path,
        status: 404,
        keys: ["code", "message"],
      });
      expect(answer.body.code).toBe(404);
      expect(answer.body.message).toBeString();
      expect(answer.type).toStartWith("application/json");
    }
  });

  test("under /api/ccs, unauthenticated or with a method no route takes, the same", async () => {
    const anonymous = await send("/api/ccs/nothing", "GET", null);
    const posted = await send("/api/ccs/domains/x/contests", "POST");

    for (const answer of [anonymous, posted]) {
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ code: 404, message: expect.any(String) });
    }
  });

  test("under /api/v1 and elsewhere: Horse's {detail: 'Not Found'}", async () => {
    for (const path of ["/api/v1/nothing", "/api/v1/domains/x/nonsense/a/b", "/api/ccsx/nothing", "/nothing"]) {
      const answer = await send(path);

      expect({ path, status: answer.status, body: answer.body }).toEqual({
        path,
        status: 404,
        body: { detail: "Not Found" },
      });
    }
  });
});
