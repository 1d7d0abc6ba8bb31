import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser } from "../helpers/factories";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { judgeableProblem, submission, submit } from "../helpers/records";
import { BUN_BODY_LIMIT } from "../../src/http/body-limits";

// The campus the hour before a deadline: huge anonymous bodies, floods of logins, hostile bytes. Each
// refusal must come without reading what it refuses, and the rest of the site must keep answering.
let t: TestApp;
let cast: Cast;
let base: string;
beforeAll(async () => {
  t = await spawnApp({
    RATE_LOGIN_FAILURES_PER_IP: "10,10",
    RATE_LOGIN_FAILURES_PER_ACCOUNT: "5,5",
    RATE_SUBMISSIONS_PER_USER: "60,3",
    TRUSTED_PROXIES: "127.0.0.1/32",
  });
  cast = await makeCast(t);
  t.app.listen({ hostname: "127.0.0.1", port: 0, maxRequestBodySize: BUN_BODY_LIMIT });
  base = `127.0.0.1:${t.app.server!.port}`;
});
afterAll(async () => {
  await t.app.stop(true);
  await t.close();
});

/**
 * Sends a request's head (and `firstBytes` of its body) on a raw socket, then waits for the answer
 * without sending the rest: an answer proves the server decided without reading the body.
 */
async function headOnly(head: string, firstBytes = ""): Promise<{ status: number; text: string }> {
  const [host, port] = base.split(":");
  let received = "";
  const done = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname: host,
    port: Number(port),
    socket: {
      data: (_s, chunk) => {
        received += chunk.toString();
        if (/\r\n\r\n[\s\S]*\}/.test(received)) done.resolve();
      },
      close: () => done.resolve(),
      error: () => done.resolve(),
    },
  });
  socket.write(`${head.trim().replaceAll("\n", "\r\n")}\r\n\r\n${firstBytes}`);
  await done.promise;
  socket.end();
  const body = received.slice(received.indexOf("\r\n\r\n") + 4);
  // The answer may be chunked: the JSON is what stands between the first { and the last }.
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0),
    text: body.slice(body.indexOf("{"), body.lastIndexOf("}") + 1),
  };
}

const MB = 1024 * 1024;

describe("bodies are limited before they are read", () => {
  test("an anonymous 100 MB login is refused from its headers, in the envelope, while the site answers", async () => {
    const pending = headOnly(
      `POST /api/v1/auth/login?responseType=json HTTP/1.1\nHost: ${base}\nContent-Type: application/x-www-form-urlencoded\nContent-Length: ${100 * MB}`,
      "username=x&pass",
    );
    const version = await fetch(`http://${base}/api/v1/version`);
    expect(version.status).toBe(200);
    const refused = await pending;
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.text)).toMatchObject({ errorCode: "Error", data: null });
  });

  test("an anonymous 100 MB submission is refused from its headers", async () => {
    const problem = await judgeableProblem(t, cast);
    const refused = await headOnly(
      `POST /api/v1/domains/${cast.domain.id}/problems/${problem} HTTP/1.1\nHost: ${base}\nContent-Type: multipart/form-data; boundary=x\nContent-Length: ${100 * MB}`,
      "--x\r\n",
    );
    expect(refused.status).toBe(413);
  });

  test("an anonymous upload within the limit is a 401 before a byte of it is read", async () => {
    const problem = await judgeableProblem(t, cast);
    const refused = await headOnly(
      `POST /api/v1/domains/${cast.domain.id}/problems/${problem} HTTP/1.1\nHost: ${base}\nContent-Type: multipart/form-data; boundary=x\nContent-Length: 500000`,
    );
    expect(refused.status).toBe(401);
    // A member without problem.submit in a hidden problem is refused the same way: the checks need no body.
    const outsider = await createUser(t);
    const forbidden = await headOnly(
      `POST /api/v1/domains/${cast.domain.id}/problems/${problem} HTTP/1.1\nHost: ${base}\nAuthorization: Bearer ${outsider.token}\nContent-Type: multipart/form-data; boundary=x\nContent-Length: 500000`,
    );
    expect(forbidden.status).toBe(200);
    expect(JSON.parse(forbidden.text).errorCode).toBe("DomainNotFoundError");
  });

  test("a chunked JSON body is cut at the limit while it streams", async () => {
    const chunk = new TextEncoder().encode(`{"username":"${"x".repeat(64 * 1024)}`);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ > 40) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await fetch(`http://${base}/api/v1/auth/register?responseType=json`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(response.status).toBe(413);
    expect(sent).toBeLessThan(40); // reading stopped at the limit (1 MiB), not at the end of the body
  });
});

describe("rate limits", () => {
  const wrongLogin = (username: string, from?: string) =>
    t.api.post(
      "/auth/login?responseType=json&cookie=false",
      { username, password: "not the password" },
      { form: true, headers: from ? { "x-forwarded-for": from } : {} },
    );

  test("30 wrong logins in a row from one address: 429s with Retry-After, and the rest of the site works", async () => {
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push(await wrongLogin(`nobody-${i}`, "203.0.113.7"));
    const statuses = answers.map((a) => a.status);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
    expect(Number(answers[29].headers.get("retry-after"))).toBeGreaterThan(0);
    expect(answers[29].body).toMatchObject({ errorCode: "Error", data: null });
    expect((await t.api.get("/version")).status).toBe(200);
    // Another address still logs in.
    const { user, password } = await createUser(t);
    const other = await t.api.post(
      "/auth/login?responseType=json&cookie=false",
      { username: user.username, password },
      { form: true, headers: { "x-forwarded-for": "198.51.100.1" } },
    );
    expect(other.body.errorCode).toBe("Success");
  });

  test("submissions per user: a burst, then 429 with Retry-After; others unaffected", async () => {
    const problem = await judgeableProblem(t, cast);
    const path = `/domains/${cast.domain.id}/problems/${problem}`;
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await submit(t, cast.member.token, path, submission("c"))).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect((await submit(t, cast.admin.token, path, submission("c"))).body.errorCode).toBe("Success");
  });

  test("X-Forwarded-For is believed only from a trusted proxy, and read from the right", async () => {
    // The client wrote the leftmost entry itself; the trusted proxy (127.0.0.1) appended the address it
    // saw, which counts: changing the leftmost does not buy a fresh bucket.
    for (let i = 0; i < 10; i++) expect((await wrongLogin(`spoof-${i}`, `1.1.1.${i}, 100.64.0.5`)).status).toBe(200);
    expect((await wrongLogin("spoof-x", "8.8.8.8, 100.64.0.5")).status).toBe(429);
    expect((await wrongLogin("spoof-y", "8.8.8.8, 100.64.0.6")).status).toBe(200);
  });
});

describe("hostile bytes are 422s that change nothing", () => {
  test("NUL bytes in a path, a login, an e-mail, a domain name and a gravatar", async () => {
    const { token } = await createUser(t, { role: "root" });
    const answers = [
      await t.api.get(`/domains/abc%00def`, { token }),
      await t.api.post("/auth/login?responseType=json", { username: "pe\u0000ter", password: "x" }, { form: true }),
      await t.api.post("/auth/register?responseType=json", { username: "nul", email: "a\u0000@b.cn", password: "x" }),
      await t.api.post("/domains", { name: "evil\u0000" }, { token }),
      await t.api.patch("/users/me", { gravatar: "\u0000" }, { token }),
    ];
    expect(answers.map((a) => a.status)).toEqual([422, 422, 422, 422, 422]);
    expect(answers[0].body.detail[0].loc).toEqual(["path", "domain"]);
    expect(answers[3].body.detail[0].loc).toEqual(["body", "name"]);
  });

  test("invalid UTF-8 is refused, not stored as U+FFFD", async () => {
    // A site root: a user who may not create domains is refused (403) before the body is even read.
    const { token } = await createUser(t, { role: "root" });
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"name":"caf'),
      0xe9,
      ...new TextEncoder().encode('"}'),
    ]);
    const response = await t.app.handle(
      new Request("http://localhost/api/v1/domains", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: bytes,
      }),
    );
    expect(response.status).toBe(422);
    expect(((await response.json()) as { detail: { type: string }[] }).detail[0].type).toBe("value_error.unicode");
  });

  test("JSON nested 5,000 levels deep and an offset past 64 bits", async () => {
    const { token } = await createUser(t, { role: "root" });
    const deep = await t.api.post("/domains", undefined, {
      token,
      raw: `{"name":${"[".repeat(5000)}${"]".repeat(5000)}}`,
    });
    expect(deep.status).toBe(422);
    expect(deep.body.detail[0].type).toBe("value_error.nesting");
    const offset = await t.api.get(`/domains/${cast.domain.id}/records?offset=9223372036854775807`, {
      token: cast.admin.token,
    });
    expect(offset.status).toBe(422);
    expect(offset.body.detail[0].loc).toEqual(["query", "offset"]);
  });

  test("a wrong type where an object belongs is a 422 at its location, never quietly a default", async () => {
    for (const [permission, loc] of [
      [5, ["body", "permission"]],
      [{ general: 3 }, ["body", "permission", "general"]],
      [{ general: { view: "yes" } }, ["body", "permission", "general", "view"]],
    ] as const) {
      const response = await t.api.post(
        `/domains/${cast.domain.id}/roles`,
        { role: `TA ${JSON.stringify(permission)}`, permission },
        { token: cast.owner.token },
      );
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual([...loc]);
    }
  });

  test("a 422 never echoes a password or a secret, and cuts long values", async () => {
    const response = await t.api.post("/auth/register?responseType=json", {
      username: "x".repeat(500),
      email: "bad",
      password: "hunter2-correct-horse",
      client_secret: "s3cr3t",
    });
    expect(response.status).toBe(422);
    expect(response.text).not.toContain("hunter2-correct-horse");
    expect(response.text).not.toContain("s3cr3t");
    expect(response.body.body.username.length).toBeLessThan(300);
  });
});
