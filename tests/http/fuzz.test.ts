/**
 * Input hygiene, fuzzed from the app's own OpenAPI document. Every documented operation (path × method)
 * gets hostile path parameters, query parameters and bodies: NUL bytes, 64-bit extremes, 1e309, very long
 * strings, nesting 5,000 levels deep, invalid UTF-8. Each goes in its own request, sent as a site root so
 * that it gets past authentication into validation and the services, against a real domain with a real
 * problem, problem set, record, invitation and config so that valid path parameters lead somewhere.
 *
 * Whatever the input, the answer must be a refusal (or a success), never a 5xx: a 5xx means hostile input
 * reached code that chokes on it (the database, a recursive walk, an unchecked conversion). The offending
 * requests of an operation are collected, with what the app logged for them, and compared with [] at the
 * end, so one run reports all of them at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { createUser, type TestUser } from "../helpers/factories";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { judgeableProblem, submit } from "../helpers/records";

type Schema = Record<string, any>;

interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  method: string;
  /** The documented path, with `{name}` placeholders. */
  path: string;
  parameters: Parameter[];
  /** The request body's schemas by content type. */
  content: Record<string, Schema | undefined>;
}

/** One hostile request: the path and query string to send, and the body, if any. */
interface Variant {
  name: string;
  path: string;
  query: URLSearchParams;
  body?: Body;
}

type Body =
  | { kind: "json"; text: string }
  | { kind: "form"; fields: Record<string, string> }
  | { kind: "bytes"; bytes: Uint8Array };

interface Failure {
  operation: string;
  variant: string;
  status: number;
  body: string;
  /** What the app logged at level "error" for the request, when it logged anything. */
  logged?: string[];
}

const NUL_PARAM = "abc%00def"; // already URL-encoded: goes into the URL as it is
const NUL_TEXT = "a\u0000b";
const LONG_PATH_PARAM = "p".repeat(10_000);
const LONG_QUERY_VALUE = "q".repeat(5_000);
const HOSTILE_QUERY_VALUES: [string, string][] = [
  ["a NUL byte", "a\u0000b"],
  ["2^63 - 1", "9223372036854775807"],
  ["-2^63", "-9223372036854775808"],
  ["1e309 (infinity as a double)", "1e309"],
  ["a 5,000-character string", LONG_QUERY_VALUE],
];
const DEPTH = 5_000;
// {"a":"<ff><fe>"}: a JSON body whose string is no UTF-8.
const INVALID_UTF8 = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
// A placeholder swapped for a raw JSON literal after stringifying (a JS number cannot hold 2^63 - 1 exactly).
const SLOT = "\u0001fuzz-slot\u0001";

// The app is started at the top level: the tests are generated from the OpenAPI document it serves.
const t: TestApp = await spawnApp();
afterAll(() => t.close());
const spec = (await t.api.get("/api/v1/openapi.json")).body;
const operations = operationsOf(spec);

let root: TestUser;
let cast: Cast;
/** Valid values for the path parameters, by name: each hostile request varies one parameter or none. */
const valid: Record<string, string> = {};
let sent = 0;

beforeAll(async () => {
  [root, cast] = await Promise.all([createUser(t, { role: "root" }), makeCast(t)]);
  const domain = `/domains/${cast.domain.id}`;
  const owner = { token: cast.owner.token };
  const problem = await judgeableProblem(t, cast);
  const record = await submit(t, cast.member.token, `${domain}/problems/${problem}`);
  const problemSet = await t.api.post(`${domain}/problem_sets`, { title: "Fuzz set" }, owner);
  const invitation = await t.api.post(`${domain}/invitations`, { code: "fuzz-code" }, owner);
  const configs = await t.api.get(`${domain}/problems/${problem}/configs`, owner);
  for (const response of [record, problemSet, invitation, configs]) expect(response.body.errorCode).toBe("Success");
  const added = await t.api.post(`${domain}/problem_sets/${problemSet.body.data.id}/problems`, { problem }, owner);
  expect(added.body.errorCode).toBe("Success");
  Object.assign(valid, {
    domain: cast.domain.id,
    uid: root.user.id,
    user: cast.member.user.id,
    role: "user",
    invitation: invitation.body.data.id,
    problem,
    problemSet: problemSet.body.data.id,
    record: record.body.data.id,
    config: configs.body.data.results[0].id,
    index: "0",
    digest: createHash("sha256").update("fuzz").digest("hex"),
    oauth2: "github",
  });
});

describe("every operation of the OpenAPI document answers hostile input without a 5xx", () => {
  test("the document has operations to fuzz", () => {
    expect(operations.length).toBeGreaterThan(50);
  });

  for (const op of operations) {
    test(`${op.method} ${op.path} refuses hostile path, query and body input without a server error`, async () => {
      const failures: Failure[] = [];
      for (const variant of variantsOf(op)) {
        const failure = await send(op, variant);
        if (failure) failures.push(failure);
      }
      expect(failures).toEqual([]);
    }, 120_000);
  }

  test("the fuzzing sent on the order of a thousand requests, and the site root was still signed in", async () => {
    console.log(`fuzz: ${sent} hostile requests over ${operations.length} operations`);
    expect(sent).toBeGreaterThan(operations.length * 5);
    // Had the root been signed out along the way, the later requests would have stopped at a 401.
    expect((await t.api.get("/users/me", { token: root.token })).status).toBe(200);
  });
});

/** Every (path, method) of the document, with its parameters and request body content types. */
function operationsOf(document: Schema): Operation[] {
  const methods = ["get", "post", "put", "patch", "delete"];
  return Object.entries(document.paths as Record<string, Record<string, Schema>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => methods.includes(method))
      .map(([method, op]) => {
        const media = (op.requestBody?.content ?? {}) as Record<string, Schema>;
        const shared = (item.parameters ?? []) as unknown as Parameter[];
        return {
          method: method.toUpperCase(),
          path,
          parameters: [...shared, ...((op.parameters ?? []) as Parameter[])],
          content: Object.fromEntries(Object.entries(media).map(([type, { schema }]) => [type, resolve(schema)])),
        };
      }),
  );
}

/** A schema with its `$ref` (into components.schemas) followed. */
function resolve(schema: Schema | undefined): Schema | undefined {
  if (!schema?.$ref) return schema;
  const name = String(schema.$ref).split("/").pop()!;
  return resolve(spec.components?.schemas?.[name]);
}

/** All hostile requests for one operation: path parameters, then query parameters, then bodies. */
function variantsOf(op: Operation): Variant[] {
  return [...pathVariants(op), ...queryVariants(op), ...jsonBodyVariants(op), ...formBodyVariants(op)];
}

function pathParams(op: Operation) {
  return op.parameters.filter((p) => p.in === "path");
}

/** The operation's path with every parameter valid except `hostile`, which is given (already encoded). */
function pathWith(op: Operation, hostile?: { name: string; value: string }): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    hostile?.name === name ? hostile.value : encodeURIComponent(valid[name] ?? String(sample(paramSchema(op, name)))),
  );
}

function paramSchema(op: Operation, name: string): Schema | undefined {
  return resolve(op.parameters.find((p) => p.name === name)?.schema);
}

/** The required query parameters, valid: so that a hostile one is not refused just for a missing one. */
function requiredQuery(op: Operation): URLSearchParams {
  const query = new URLSearchParams();
  for (const p of op.parameters) {
    if (p.in === "query" && p.required) query.set(p.name, String(sample(resolve(p.schema))));
  }
  return query;
}

/** A request to the operation with valid path parameters and the required query parameters, and `body`. */
function withBody(op: Operation, name: string, body: Body): Variant {
  return { name, path: pathWith(op), query: requiredQuery(op), body };
}

function pathVariants(op: Operation): Variant[] {
  const hostile = (name: string, value: string) => ({ path: pathWith(op, { name, value }), query: requiredQuery(op) });
  return pathParams(op).flatMap((p) => [
    { name: `path {${p.name}} with a NUL byte`, ...hostile(p.name, NUL_PARAM) },
    { name: `path {${p.name}} of 10,000 characters`, ...hostile(p.name, LONG_PATH_PARAM) },
  ]);
}

function queryVariants(op: Operation): Variant[] {
  return op.parameters
    .filter((p) => p.in === "query")
    .flatMap((p) =>
      HOSTILE_QUERY_VALUES.map(([label, value]) => {
        const query = requiredQuery(op);
        query.set(p.name, value);
        return { name: `query ${p.name} = ${label}`, path: pathWith(op), query };
      }),
    );
}

function jsonBodyVariants(op: Operation): Variant[] {
  const schema = op.content["application/json"];
  if (!schema) return [];
  const base = sample(schema) as Record<string, unknown>;
  const json = (name: string, text: string) => withBody(op, name, { kind: "json", text });
  return [
    ...Object.keys(schema.properties ?? {}).flatMap((key) => [
      json(`body ${key} = a string with a NUL`, withLiteral(base, key, JSON.stringify(NUL_TEXT))),
      json(`body ${key} = 9223372036854775807`, withLiteral(base, key, "9223372036854775807")),
      json(`body ${key} = an object nested ${DEPTH} levels deep`, withLiteral(base, key, nestedObject(DEPTH))),
    ]),
    withBody(op, "body of invalid UTF-8", { kind: "bytes", bytes: INVALID_UTF8 }),
    json(`body of arrays nested ${DEPTH} levels deep`, "[".repeat(DEPTH) + "]".repeat(DEPTH)),
  ];
}

function formBodyVariants(op: Operation): Variant[] {
  const schema = op.content["application/x-www-form-urlencoded"];
  if (!schema) return [];
  // A form holds text only: the valid fields that are scalars, as text.
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(sample(schema) as Record<string, unknown>)) {
    if (value !== null && typeof value !== "object") base[key] = String(value);
  }
  return Object.keys(schema.properties ?? {}).map((key) =>
    withBody(op, `form field ${key} with a NUL`, { kind: "form", fields: { ...base, [key]: NUL_TEXT } }),
  );
}

/** `base` as JSON with `key` set to the raw JSON `literal`. */
function withLiteral(base: Record<string, unknown>, key: string, literal: string): string {
  return JSON.stringify({ ...base, [key]: SLOT }).replace(JSON.stringify(SLOT), () => literal);
}

/** `{"a":{"a":…1…}}`, built as text: stringifying a value this deep would itself be a deep recursion. */
function nestedObject(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/**
 * A plausible valid value for a schema: required properties only, the first enum value or union branch,
 * the minimum of a number. It only has to get a request far enough for its one hostile part to matter.
 */
function sample(schema: Schema | undefined): unknown {
  schema = resolve(schema);
  if (!schema) return "fuzz";
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ("const" in schema) return schema.const;
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return sample(union.find((s: Schema) => s.type !== "null") ?? union[0]);
  switch (schema.type) {
    case "string":
      return schema.format === "integer" ? String(schema.minimum ?? 0) : "fuzz".padEnd(schema.minLength ?? 0, "z");
    case "integer":
    case "number":
      return schema.minimum ?? 0;
    case "boolean":
      return false;
    case "array":
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items));
    case "object":
      return Object.fromEntries((schema.required ?? []).map((key: string) => [key, sample(schema.properties?.[key])]));
    default:
      return "fuzz";
  }
}

/** Sends one variant as the site root; a failure when the answer is a 5xx. */
async function send(op: Operation, variant: Variant): Promise<Failure | undefined> {
  const requestId = `fuzz-${++sent}`;
  const query = variant.query.toString();
  const url = `${variant.path}${query ? `?${query}` : ""}`;
  const headers = { "x-request-id": requestId };
  const body = variant.body;
  let status: number;
  let text: string;
  if (body?.kind === "bytes") {
    // Raw bytes: `options.raw` is a string, which would be sent as (valid) UTF-8.
    const request = new Request(`http://localhost${url}`, {
      method: op.method,
      headers: { ...headers, authorization: `Bearer ${root.token}`, "content-type": "application/json" },
      body: body.bytes,
    });
    const response = await t.app.handle(request);
    [status, text] = [response.status, await response.text()];
  } else {
    const options = { token: root.token, headers };
    const response =
      body?.kind === "json"
        ? await t.api.call(op.method, url, undefined, { ...options, raw: body.text })
        : body?.kind === "form"
          ? await t.api.call(op.method, url, body.fields, { ...options, form: true })
          : await t.api.call(op.method, url, undefined, options);
    [status, text] = [response.status, response.text];
  }
  if (status < 500) return undefined;
  const logged = t.logs
    .filter((entry) => entry.requestId === requestId && entry.level === "error")
    .map((entry) => describeLogEntry(entry));
  const operation = `${op.method} ${op.path}`;
  const failure: Failure = { operation, variant: variant.name, status, body: text.slice(0, 300) };
  return logged.length > 0 ? { ...failure, logged } : failure;
}

/** An error log line in a few words: its message and the error (or schema problem) it names. */
function describeLogEntry(entry: Record<string, unknown>): string {
  const error = entry.error as { name?: string; message?: string; cause?: { message?: string } } | undefined;
  const detail = error
    ? `${error.name}: ${error.message}${error.cause?.message ? ` (cause: ${error.cause.message})` : ""}`
    : JSON.stringify({ at: entry.at, problem: entry.problem });
  return `${entry.msg}: ${detail}`.slice(0, 500);
}
