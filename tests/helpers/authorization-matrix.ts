import { describe, expect, test } from "bun:test";
import type { ErrorCode } from "../../src/core/errors";
import type { TestApp } from "./spawn-app";
import type { TestResponse } from "./http-client";
import { createUser } from "./factories";
import type { Cast } from "./domain-factories";

/**
 * Table-driven authorization: one row per operation, one column per kind of caller; each cell is
 * its own test. 401: no token · 403: Horse's permission refusal · NF: DomainNotFoundError (a hidden
 * domain does not exist for outsiders) · OK: Success (or a 200 non-JSON body, e.g. an archive) ·
 * CARD: Success with a domain's public card · any ErrorCode: that business error.
 */
export type Outcome = 401 | 403 | "NF" | "OK" | "CARD" | ErrorCode;
export type Caller = "anonymous" | "outsider" | "guest" | "member" | "admin" | "owner" | "siteRoot";

export interface Operation {
  name: string;
  method: string;
  /** May create what the call acts on (a fresh member, role, problem…), so each cell stands alone. */
  path: (c: Cast) => string | Promise<string>;
  body?: () => Promise<unknown> | unknown;
  /** A multipart body instead of JSON (submissions). */
  multipart?: () => FormData;
  /** In the order of the matrix's callers. */
  expect: Outcome[];
  /** The operation makes the outsider a member: use a fresh outsider so other rows are unaffected. */
  freshOutsider?: boolean;
  /** Extra checks on a successful answer. */
  check?: (response: TestResponse, expected: Outcome) => void;
}

export function authorizationMatrix(
  getApp: () => TestApp,
  getCast: () => Cast,
  callers: Caller[],
  operations: Operation[],
): void {
  describe.each(operations.map((op) => [op.name, op] as const))("%s", (_, op) => {
    test.each(callers.map((caller, i) => [caller, op.expect[i]] as const))("%s → %p", async (caller, expected) => {
      const t = getApp();
      const cast = getCast();
      const body = op.body ? await op.body() : undefined;
      const token =
        caller === "anonymous"
          ? undefined
          : caller === "outsider" && op.freshOutsider
            ? (await createUser(t)).token
            : cast[caller].token;
      const response = await t.api.call(op.method, await op.path(cast), body, { token, multipart: op.multipart?.() });
      if (expected === 401 || expected === 403) {
        expect(response.status).toBe(expected);
        expect(typeof response.body.detail).toBe("string");
        return;
      }
      expect(response.status).toBe(200);
      if (expected === "NF") {
        expect(response.body).toEqual({ errorCode: "DomainNotFoundError", errorMsg: "domain not found", data: null });
        return;
      }
      if (expected !== "OK" && expected !== "CARD") {
        expect(response.body.errorCode).toBe(expected);
        return;
      }
      if (typeof response.body === "object" && response.body !== null) expect(response.body.errorCode).toBe("Success");
      op.check?.(response, expected);
    });
  });
}
