import { describe, expect, test } from "bun:test";
import { diffFields, permissionFields, REDACTED } from "../../src/modules/audit/audit-fields";
import { defaultUserPermissions } from "../../src/modules/identity/permissions";

// The one place values reach the audit log: changed fields only, secrets and unknown fields never by value.
describe("diffFields", () => {
  test("keeps only the fields that changed, dates as the API writes them", () => {
    const before = { title: "Homework 3", dueAt: new Date("2031-03-01T23:59:00Z"), hidden: false };
    const after = { title: "Homework 3", dueAt: new Date("2031-03-08T15:59:00Z"), hidden: false };
    expect(diffFields(before, after)).toEqual({
      dueAt: { before: "2031-03-01T23:59:00.000+00:00", after: "2031-03-08T15:59:00.000+00:00" },
    });
    expect(diffFields(before, { ...before })).toEqual({});
  });

  test("a creation and a deletion show every field against null", () => {
    expect(diffFields(null, { title: "Two Sum", languages: ["c"] })).toEqual({
      title: { before: null, after: "Two Sum" },
      languages: { before: null, after: ["c"] },
    });
    expect(diffFields({ role: "user" }, null)).toEqual({ role: { before: "user", after: null } });
  });

  test("secrets show that they changed, never their values, at any depth", () => {
    const changes = diffFields(
      { code: "cs101-join", password: "hunter2", config: { token: "t1", mode: "a" } },
      { code: "cs101-join-2", password: "hunter3", config: { token: "t2", mode: "a" } },
    );
    expect(changes.code).toEqual({ before: REDACTED, after: REDACTED });
    expect(changes.config).toEqual({ before: { token: REDACTED, mode: "a" }, after: { token: REDACTED, mode: "a" } });
    expect(changes.password).toEqual({ before: REDACTED, after: REDACTED });
    expect(JSON.stringify(changes)).not.toMatch(/cs101|hunter|t1|t2/);
    expect(diffFields({ code: "same" }, { code: "same" })).toEqual({});
    expect(diffFields(null, { secretAccessKey: "abc123", hashedPassword: "$argon2id$x" })).toEqual({
      secretAccessKey: { before: null, after: REDACTED },
      hashedPassword: { before: null, after: REDACTED },
    });
  });

  test("a field nobody declared recordable is redacted (fail closed)", () => {
    expect(diffFields(null, { apiKeyOfSomething: "k-123" })).toEqual({
      apiKeyOfSomething: { before: null, after: REDACTED },
    });
  });

  test("long texts are kept as their length and digest", () => {
    const statement = "x".repeat(10_000);
    const { content } = diffFields(null, { content: statement });
    expect(content.after).toEqual({ length: 10_000, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  test("a permission set is one field per flag, so an edit shows only the flags flipped", () => {
    const before = defaultUserPermissions();
    const after = defaultUserPermissions();
    after.problemSet.edit = true;
    expect(diffFields(permissionFields(before), permissionFields(after))).toEqual({
      "problemSet.edit": { before: false, after: true },
    });
  });
});
