import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { countUsers } from "../helpers/factories";
import { createJudgerAccount } from "../../src/modules/admin/admin.service";
import { REALISTIC_NAMES, REFUSED_NAMES } from "../fixtures/names";

// Registration, login, judger creation and member search with the names real people have, on an
// installation where the built-in judge's account exists before anybody registers (as `bun run start` does).
let t: TestApp;
beforeAll(async () => {
  t = await spawnApp();
  await createJudgerAccount(
    t.orm.em.fork(),
    { username: "local-judge-1a2b3c", email: "local-judge-1a2b3c@judges.invalid", password: "x".repeat(32) },
    "127.0.0.1",
  );
});
afterAll(() => t.close());

const JSON_NO_COOKIE = "?responseType=json&cookie=false";
const decode = (token: string) => JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
const register = (username: string, email: string, password = "correct horse battery staple") =>
  t.api.post(`/auth/register${JSON_NO_COOKIE}`, { username, email, password });
const login = (username: string, password = "correct horse battery staple") =>
  t.api.post(`/auth/login${JSON_NO_COOKIE}`, { username, password }, { form: true });

describe("the first person is site root, judgers notwithstanding", () => {
  test("peter registers first, after the built-in judge's account, and is site root; then Chris, 张伟 and José are users", async () => {
    const peter = await register("peter", "peter.parker@sjtu.edu.cn");
    expect(peter.body.errorCode).toBe("Success");
    expect(decode(peter.body.data.accessToken)).toMatchObject({ role: "root", username: "peter" });

    for (const [username, email] of [
      ["Chris", "chris@umich.edu"],
      ["张伟", "zhangwei@sjtu.edu.cn"],
      ["José", "jose@upc.edu"],
    ]) {
      const response = await register(username, email);
      expect({ username, code: response.body.errorCode }).toEqual({ username, code: "Success" });
      expect(decode(response.body.data.accessToken)).toMatchObject({ role: "user", username });
    }
    const domain = await t.api.post("/domains", { name: "程序设计 VE280" }, { token: peter.body.data.accessToken });
    expect(domain.body.errorCode).toBe("Success");
  });
});

describe("every realistic name registers and logs in", () => {
  test.each(REALISTIC_NAMES.slice(4).map((p) => [p.username, p.email]))("%s <%s>", async (username, email) => {
    const response = await register(username, email);
    expect(response.body.errorCode).toBe("Success");
    expect(decode(response.body.data.accessToken).username).toBe(username);
    expect((await login(username)).body.errorCode).toBe("Success");
    expect((await login(email.toUpperCase())).body.errorCode).toBe("Success");
    expect((await login(` ${username.toUpperCase()} `)).body.errorCode).toBe("Success");
  });
});

describe("names that deceive or break screens are refused and change nothing", () => {
  test.each(REFUSED_NAMES.map((name) => [JSON.stringify(name), name]))("%s", async (_label, username) => {
    const before = await countUsers(t);
    const response = await register(username, `refused-${before}@example.edu`);
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(["body", "username"]);
    expect(await countUsers(t)).toBe(before);
  });
});

describe("uniqueness compares the normalised, case-folded form", () => {
  test("one name spelled with a combining accent, in capitals or in full-width letters is taken", async () => {
    expect((await register("Renée", "renee@ens.fr")).body.errorCode).toBe("Success");
    for (const twin of ["Rene\u0301e", "RENÉE", "ＲＥＮÉＥ"]) {
      const response = await register(twin, `twin-${twin.length}@ens.fr`);
      expect({ twin, body: response.body }).toEqual({
        twin,
        body: { errorCode: "UserRegisterError", errorMsg: "username is already taken", data: null },
      });
    }
    // Any spelling logs in; the name is shown as it was first written, in NFC.
    const response = await login("Rene\u0301e");
    expect(response.body.errorCode).toBe("Success");
    expect(decode(response.body.data.accessToken).username).toBe("Renée");
  });

  test("e-mails: a capitalised or decomposed twin is already registered", async () => {
    expect((await register("Ana Núñez", "ana.núñez@upc.edu")).body.errorCode).toBe("Success");
    for (const twin of ["ANA.NÚÑEZ@UPC.EDU", "ana.nu\u0301n\u0303ez@upc.edu"]) {
      const response = await register(`ana ${twin.length}`, twin);
      expect(response.body).toEqual({
        errorCode: "UserRegisterError",
        errorMsg: "email is already registered",
        data: null,
      });
    }
  });

  test("ß and SS are one name", async () => {
    expect((await register("Weiß", "weiss@tum.de")).body.errorCode).toBe("Success");
    expect((await register("WEISS", "weiss2@tum.de")).body.errorMsg).toBe("username is already taken");
  });
});

describe("judgers and members use the same names", () => {
  test("the site root creates a judger with a Unicode name; a refused name is a 422", async () => {
    const root = await login("peter");
    const made = await t.api.post(
      "/admin/judgers",
      { username: "评测机 Pérez 01", password: "pw", email: "judge01@sjtu.edu.cn" },
      { token: root.body.data.accessToken },
    );
    expect(made.body.errorCode).toBe("Success");
    const refused = await t.api.post(
      "/admin/judgers",
      { username: "judge\u200b02", password: "pw", email: "judge02@sjtu.edu.cn" },
      { token: root.body.data.accessToken },
    );
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(["body", "username"]);
  });

  test("member search finds Chinese and accented names by any spelling", async () => {
    const root = (await login("peter")).body.data.accessToken;
    const domain = await t.api.post("/domains", { name: "Search" }, { token: root });
    expect(domain.body.errorCode).toBe("Success");
    const find = (query: string) =>
      t.api.get(`/domains/${domain.body.data.id}/candidates?query=${encodeURIComponent(query)}`, { token: root });
    expect((await find("张伟")).body.data.results.map((u: { username: string }) => u.username)).toContain("张伟");
    expect((await find("JOSE\u0301")).body.data.results.map((u: { username: string }) => u.username)).toContain("José");
    expect((await find("ＣＨＲＩＳ")).body.data.results.map((u: { username: string }) => u.username)).toContain(
      "Chris",
    );
  });
});
