import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { t } from "elysia";
import { PATTERNS } from "../../src/core/patterns";
import { EmailAddress, LoginName, Username } from "../../src/modules/identity/credentials/name-formats";
import { REALISTIC_NAMES, REFUSED_NAMES } from "../fixtures/names";

// Compiled as the validator compiles them: TypeBox's TypeCompiler, which Elysia uses for every route.
const check = (schema: ReturnType<typeof t.String>) => {
  const compiled = TypeCompiler.Compile(schema);
  return (value: string) => compiled.Check(value);
};
const matcher = (pattern: string) => check(t.String({ pattern }));

const SAMPLES: Record<keyof typeof PATTERNS, { match: string[]; reject: string[] }> = {
  urlSlug: {
    match: ["", "cs101", "VE280-2026_fall", "p", "C", "pC{}".slice(0, 2)],
    reject: ["3f2504e0-4f89-11d3-9a0c-0305e82c3301", "a b", "课程", "a/b", "p{C}", "x\ny"],
  },
  relativePath: {
    match: ["main.c", "cases/1.in", "p/C/q.txt", "a..b", "..hidden", "测试/输入.txt"],
    reject: ["/etc/passwd", "../x", "a/../b", "a/..", "x\n/../y", "a\\b", "nul\u0000", "tab\tfile", ""],
  },
  duration: { match: ["1s", "1.5s", "500ms"], reject: ["1", "1 s", "1h", "1s\n", "p", "C"] },
  memorySize: {
    match: ["64m", "256MB", "512k", "1g", "1048576", "1.5G"],
    reject: ["64 m", "64mib", "-1", "64m\n", "p", "C"],
  },
  sha256: { match: ["a".repeat(64)], reject: ["A".repeat(64), "a".repeat(63), `${"a".repeat(64)}\n`] },
  invitableRole: {
    match: ["user", "TA", "p", "C", "助教", "root-helper", "roots", "root\n", "\nroot"],
    reject: ["root", ""],
  },
};

describe("schema patterns compile as their authors meant", () => {
  test("every exported pattern has samples", () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(Object.keys(PATTERNS).sort());
  });

  for (const [name, pattern] of Object.entries(PATTERNS)) {
    test(`${name} matches what it must and refuses what it must`, () => {
      const ok = matcher(pattern);
      const samples = SAMPLES[name as keyof typeof PATTERNS];
      for (const value of samples.match) expect({ value, ok: ok(value) }).toEqual({ value, ok: true });
      for (const value of samples.reject) expect({ value, ok: ok(value) }).toEqual({ value, ok: false });
    });
  }

  test("no pattern uses a Unicode property escape (meaningless without the u flag)", () => {
    for (const pattern of Object.values(PATTERNS)) expect(pattern).not.toMatch(/\\[pP]\{/);
  });
});

describe("account-name formats, through the compiled validator", () => {
  const username = check(Username);
  const email = check(EmailAddress);
  const login = check(LoginName);

  test("every realistic name and address registers, p and C included", () => {
    for (const person of REALISTIC_NAMES) {
      expect({ name: person.username, ok: username(person.username) }).toEqual({ name: person.username, ok: true });
      expect({ email: person.email, ok: email(person.email) }).toEqual({ email: person.email, ok: true });
      expect(login(person.username) && login(person.email)).toBe(true);
    }
    for (const name of ["p", "C", "q", "y", "pC", "{p}", "\\p{C}"]) expect(username(name)).toBe(true);
  });

  test("invisible, control and deceptive names are refused", () => {
    for (const name of REFUSED_NAMES) expect({ name, ok: username(name) }).toEqual({ name, ok: false });
    expect(username("a".repeat(65))).toBe(false);
  });

  test("e-mails need one @ and a dotted domain, and nothing invisible", () => {
    for (const bad of [
      "peter",
      "peter@sjtu",
      "pe ter@sjtu.edu.cn",
      "a@b@c.d",
      "pe\u200bter@sjtu.edu.cn",
      "nul\u0000@x.cn",
    ]) {
      expect({ bad, ok: email(bad) }).toEqual({ bad, ok: false });
    }
  });

  test("a login may carry surrounding spaces, never control characters", () => {
    expect(login("  peter ")).toBe(true);
    expect(login("peter\u0000")).toBe(false);
    expect(login("")).toBe(false);
  });
});
