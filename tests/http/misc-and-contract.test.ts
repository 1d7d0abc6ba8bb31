import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser, eventually } from "../helpers/factories";
import { ERROR_CODES } from "../../src/core/errors";

let t: TestApp;
beforeAll(async () => {
  t = await spawnApp();
});
afterAll(() => t.close());

describe("misc operations", () => {
  test("GET /version is bare, without the envelope", async () => {
    const response = await t.api.get("/version");
    expect(response.body).toEqual({ version: "0.0.0-test", git: "test@2026-01-01T00:00:00Z" });
  });

  test("GET /jwt_decoded needs a token and returns its claims", async () => {
    expect((await t.api.get("/jwt_decoded")).body).toEqual({ detail: "Unauthorized" });
    const { token, user } = await createUser(t);
    const response = await t.api.get("/jwt_decoded", { token });
    expect(response.body.errorCode).toBe("Success");
    expect(response.body.data).toMatchObject({
      sub: user.id,
      type: "access",
      category: "user",
      username: user.username,
      role: "user",
      isActive: true,
      oauthName: "",
      fresh: true,
    });
    for (const claim of ["iat", "nbf", "exp", "jti", "csrf"]) expect(response.body.data[claim]).toBeDefined();
  });

  test("GET /test/report fails on purpose: a generic 500 envelope, the cause logged with the request id", async () => {
    const response = await t.api.get("/test/report", { headers: { "x-request-id": "report-check-1" } });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      errorCode: "InternalServerError",
      errorMsg: "internal server error (request id report-check-1)",
      data: null,
    });
    expect(response.text).not.toContain("at ");
    const logged = t.logs.find((l) => l.msg === "unhandled error" && l.requestId === "report-check-1") as {
      error: { message: string; stack: string };
    };
    expect(logged.error.message).toContain("fails on purpose");
    expect(logged.error.stack).toContain("misc.routes");
  });
});

describe("the wire contract", () => {
  test("every response carries a request id; a well-formed incoming one is kept", async () => {
    const generated = await t.api.get("/version");
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await t.api.get("/version", { headers: { "x-request-id": "abc-123" } });
    expect(kept.headers.get("x-request-id")).toBe("abc-123");
    const junk = await t.api.get("/version", { headers: { "x-request-id": "bad id with spaces" } });
    expect(junk.headers.get("x-request-id")).not.toBe("bad id with spaces");
  });

  test("one structured access-log line per request, with no secrets", async () => {
    const { token } = await createUser(t);
    await t.api.get("/users/me", { token, headers: { "x-request-id": "log-line-1" } });
    const line = await eventually(() => t.logs.find((l) => l.msg === "request" && l.requestId === "log-line-1"));
    expect(line).toMatchObject({ level: "info", method: "GET", path: "/api/v1/users/me", status: 200 });
    expect(JSON.stringify(t.logs)).not.toContain(token);
  });

  test("unknown routes are Horse's 404", async () => {
    const response = await t.api.get("/no/such/route");
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: "Not Found" });
  });

  test("GET / and GET /api redirect to the docs", async () => {
    for (const path of ["/", "/api"]) {
      const response = await t.api.get(`http://localhost${path}`);
      expect(response.status).toBe(307);
      expect(response.headers.get("location")).toBe("/api/v1/docs");
    }
  });

  test("the docs UI and its assets are served by the server itself", async () => {
    const page = await t.api.get("/api/v1/docs");
    expect(page.text).toContain("/api/v1/docs/assets/swagger-ui-bundle.js");
    expect(page.text).not.toMatch(/https?:\/\/(unpkg|cdn)/);
    const asset = await t.app.handle(new Request("http://localhost/api/v1/docs/assets/swagger-ui-bundle.js"));
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(100_000);
    expect((await t.api.get("/api/v1/docs/assets/..%2Fpackage.json")).status).toBe(404);
  });

  test("the OpenAPI document names Horse's operations and the 37 error codes in order", async () => {
    const doc = (await t.api.get("/api/v1/openapi.json")).body;
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    for (const id of ["v1_login", "v1_register", "v1_get_current_user", "v1_admin_create_judger", "v1_version"])
      expect(ids).toContain(id);
    const me = doc.paths["/api/v1/users/me"].get.responses["200"].content["application/json"].schema;
    expect(me.properties.errorCode.enum).toEqual([...ERROR_CODES]);
    expect(doc.paths["/api/v1/auth/login"].post.requestBody.content["application/x-www-form-urlencoded"]).toBeDefined();
  });

  test("a body-less POST with the Python client's `Content-Type: application/json` works", async () => {
    const { token } = await createUser(t);
    const response = await t.api.post("/auth/logout?responseType=json&cookie=False", undefined, {
      token,
      headers: { "content-type": "application/json", "content-length": "0" },
    });
    expect(response.body.errorCode).toBe("Success");
  });

  test("a non-object JSON body is a 422", async () => {
    const { token } = await createUser(t);
    for (const raw of ["[1,2]", "42", '"text"']) {
      const response = await t.api.patch("/users/me", undefined, { token, raw });
      expect(response.status).toBe(422);
      expect(response.body.detail[0]).toMatchObject({ loc: ["body"], type: "type_error.dict" });
    }
  });
});

describe("health", () => {
  test("/healthz is alive and /readyz checks PostgreSQL and Redis", async () => {
    expect((await t.api.get("/healthz")).body).toEqual({ status: "ok" });
    const ready = await t.api.get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ready", postgres: "ok", redis: "ok" });
  });

  test("/readyz is 503 when Redis does not answer", async () => {
    const broken = await spawnApp({ REDIS_URL: "redis://127.0.0.1:1" });
    try {
      const response = await broken.api.get("/readyz");
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ status: "unavailable", postgres: "ok", redis: "unreachable" });
    } finally {
      await broken.close();
    }
  });
});
