import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { assertMultipartText, parseUrlEncodedStrict } from "../../src/http/form-text";
import type { InputError } from "../../src/core/errors";

// Forms are checked like JSON: a field that is not UTF-8, raw or percent-encoded, is a 422 at its
// location and nothing is stored (it used to be stored as U+FFFD, or as the literal text "%FF").
let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
});
afterAll(() => t.close());

const BOUNDARY = "----joj-form-7d3a";
/** A multipart body built from raw bytes, so a field can hold bytes no FormData would send. */
function multipart(fields: [string, Uint8Array | string][]): { body: Uint8Array; type: string } {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`),
      Buffer.from(value),
      Buffer.from("\r\n"),
    );
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${BOUNDARY}` };
}

async function post(path: string, body: Uint8Array | string, type: string, token?: string) {
  const headers: Record<string, string> = { "content-type": type };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await t.app.handle(new Request(`http://localhost/api/v1${path}`, { method: "POST", headers, body }));
  return {
    status: response.status,
    body: (await response.json()) as {
      errorCode: string;
      detail?: { loc: (string | number)[]; type: string }[];
      data?: { id: string };
    },
  };
}

const count = async (sql: string, params: unknown[]) =>
  Number((await t.orm.em.fork().execute<{ n: string }[]>(sql, params))[0].n);
const REGISTER = "/auth/register?responseType=json&cookie=false";

describe("a field that is not UTF-8 is a 422 at its location, and nothing is stored", () => {
  test("multipart registration with a raw 0xFF byte in the username", async () => {
    const form = multipart([
      ["username", Buffer.from([0x6c, 0x69, 0xff])],
      ["email", "li.ff@sjtu.edu.cn"],
      ["password", "a long enough password"],
    ]);
    const refused = await post(REGISTER, form.body, form.type);
    expect(refused.status).toBe(422);
    expect(refused.body.detail?.[0]).toMatchObject({ loc: ["body", "username"], type: "value_error.unicode" });
    expect(await count("select count(*) as n from users where email = ?", ["li.ff@sjtu.edu.cn"])).toBe(0);
  });

  test("URL-encoded registration with %FF, and with a raw 0xFF", async () => {
    const encoded = await post(
      REGISTER,
      "username=wang%FFfang&email=wang.fang%40sjtu.edu.cn&password=a+long+enough+password",
      "application/x-www-form-urlencoded",
    );
    expect(encoded.status).toBe(422);
    expect(encoded.body.detail?.[0]).toMatchObject({ loc: ["body", "username"], type: "value_error.unicode" });
    const raw = await post(
      REGISTER,
      Buffer.concat([
        Buffer.from("username=wang"),
        Buffer.from([0xff]),
        Buffer.from("&email=w%40sjtu.edu.cn&password=x"),
      ]),
      "application/x-www-form-urlencoded",
    );
    expect(raw.status).toBe(422);
    expect(raw.body.detail?.[0].loc).toEqual(["body"]);
    expect(
      await count("select count(*) as n from users where email in (?, ?)", ["wang.fang@sjtu.edu.cn", "w@sjtu.edu.cn"]),
    ).toBe(0);
  });

  test("a problem title with a raw 0xFF byte, and one with a truncated three-byte character", async () => {
    for (const title of [Buffer.from([0x41, 0xff, 0x42]), Buffer.from([0x41, 0xe4, 0xb8])]) {
      const form = multipart([["title", title]]);
      const refused = await post(`/domains/${cast.domain.id}/problems`, form.body, form.type, cast.owner.token);
      expect(refused.status).toBe(422);
      expect(refused.body.detail?.[0]).toMatchObject({ loc: ["body", "title"], type: "value_error.unicode" });
    }
    expect(
      await count("select count(*) as n from problems where domain_id = ? and title like 'A%'", [cast.domain.id]),
    ).toBe(0);
  });

  test("valid text in every form is stored exactly: 张伟's registration and a title with an emoji", async () => {
    const urlencoded = await post(
      REGISTER,
      `username=${encodeURIComponent("张伟")}&email=zhang.wei%40sjtu.edu.cn&password=a+long+enough+password`,
      "application/x-www-form-urlencoded",
    );
    expect(urlencoded.body.errorCode).toBe("Success");
    expect(await count("select count(*) as n from users where username = ?", ["张伟"])).toBe(1);
    const form = multipart([["title", "二分查找 🔍 Binary search"]]);
    const created = await post(`/domains/${cast.domain.id}/problems`, form.body, form.type, cast.owner.token);
    expect(created.body.errorCode).toBe("Success");
    expect(await count("select count(*) as n from problems where title = ?", ["二分查找 🔍 Binary search"])).toBe(1);
  });
});

describe("the strict form decoders, as properties", () => {
  const isUtf8 = (bytes: Uint8Array) => {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      return true;
    } catch {
      return false;
    }
  };
  const outcome = (run: () => unknown) => {
    try {
      return { value: run() };
    } catch (error) {
      return { error };
    }
  };

  test("URL-encoded: any percent-encoded bytes decode exactly when they are UTF-8, and are a 422 at the field otherwise", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const encoded = [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
        const result = outcome(() => parseUrlEncodedStrict(Buffer.from(`field=${encoded}`)));
        if (isUtf8(bytes)) expect(result).toEqual({ value: { field: new TextDecoder().decode(bytes) } });
        else expect((result.error as InputError).loc).toEqual(["body", "field"]);
      }),
      { numRuns: 1000 },
    );
  });

  test("URL-encoded: any text survives encodeURIComponent and back", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme", minLength: 1 }), (value, name) => {
        expect(parseUrlEncodedStrict(Buffer.from(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`))).toEqual({
          [name]: value,
        });
      }),
      { numRuns: 500 },
    );
  });

  test("multipart: a text field passes exactly when its bytes are UTF-8; a file's bytes are never judged", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const form = multipart([["title", bytes]]);
        const result = outcome(() => assertMultipartText(form.body, form.type));
        if (isUtf8(bytes)) expect(result.error).toBeUndefined();
        else expect((result.error as InputError).loc).toEqual(["body", "title"]);
        const file = Buffer.concat([
          Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="a.bin"\r\n\r\n`),
          bytes,
          Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
        ]);
        expect(() => assertMultipartText(file, form.type)).not.toThrow();
      }),
      { numRuns: 1000 },
    );
  });
});
