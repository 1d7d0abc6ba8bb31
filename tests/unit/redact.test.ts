import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { REDACTED, Redactor, secretValuesOf } from "../../src/core/redact";

const JWT = "4f0c2a9e7d1b3c5a8e6f0d2b4a6c8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d";
const DATABASE = "postgres://joj:Tr0ub4dor-and-3@db.internal:5432/joj";

describe("Redactor", () => {
  test("cuts every occurrence of each value, the longest first, and counts them", () => {
    const redactor = new Redactor([JWT, DATABASE]);
    const { text, hits } = redactor.redact(`JWT_SECRET=${JWT}\nDATABASE_URL=${DATABASE}\nagain ${JWT}`);
    expect(text).toBe(`JWT_SECRET=${REDACTED}\nDATABASE_URL=${REDACTED}\nagain ${REDACTED}`);
    expect(hits).toBe(3);
  });

  test("a connection URL's password is a secret of its own", () => {
    const { text, hits } = new Redactor([DATABASE]).redact("the password is Tr0ub4dor-and-3, I think");
    expect(text).toBe(`the password is ${REDACTED}, I think`);
    expect(hits).toBe(1);
  });

  test("values shorter than 8 characters are left alone: they are ordinary words and numbers", () => {
    const redactor = new Redactor(["joj", "6379", "", null, undefined]);
    expect(redactor.size).toBe(0);
    expect(redactor.redact("joj 6379").text).toBe("joj 6379");
  });

  test("property: no planted secret survives, and text without one comes back unchanged", () => {
    const secret = fc.string({ minLength: 8, maxLength: 64 }).filter((s) => !s.includes(REDACTED));
    fc.assert(
      fc.property(secret, fc.string(), fc.string(), (value, before, after) => {
        const redactor = new Redactor([value]);
        expect(redactor.redact(`${before}${value}${after}`).text).not.toContain(value);
        if (!before.includes(value) && !after.includes(value) && !`${before}${after}`.includes(value)) {
          expect(redactor.redact(`${before}${after}`)).toEqual({ text: `${before}${after}`, hits: 0 });
        }
      }),
      { numRuns: 500 },
    );
  });
});

test("secretValuesOf: the values of keys, passwords, tokens and connection URLs, nothing else", () => {
  const values = secretValuesOf({
    JWT_SECRET: JWT,
    DATABASE_URL: DATABASE,
    REDIS_URL: "redis://127.0.0.1:6379",
    METRICS_TOKEN: "t".repeat(20),
    JUDGER_SECRET_ACCESS_KEY: "k".repeat(40),
    S3_ACCESS_KEY_ID: "AKIA0000",
    PGPASSWORD: "pg-password",
    PATH: "/usr/bin",
    LOG_LEVEL: "info",
    JUDGE_WORK_DIR: "/tmp/joj-judge",
  });
  expect(values.sort()).toEqual(
    [JWT, DATABASE, "redis://127.0.0.1:6379", "t".repeat(20), "k".repeat(40), "AKIA0000", "pg-password"].sort(),
  );
});
