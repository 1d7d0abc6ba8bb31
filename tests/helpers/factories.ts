import { randomUUID } from "node:crypto";
import type { SiteRole } from "../../src/modules/identity/permissions";
import { realisticPerson } from "../fixtures/names";
import { issueUserTokens, type IssuedTokens } from "../../src/modules/identity/credentials/tokens";
import { createAccount } from "../../src/modules/identity/sessions/auth.service";
import type { User } from "../../src/modules/users/user.entity";
import type { TestApp } from "./spawn-app";

export interface TestUser {
  user: User;
  password: string;
  token: string;
  refreshToken: string;
  tokens: IssuedTokens;
}

/**
 * A user row created through the service layer, with a valid session, exactly as a test needs it. Unless
 * a test names one, the user gets a realistic name (Chinese, accented, with p and C: tests/fixtures/names.ts).
 */
export async function createUser(
  t: TestApp,
  options: { username?: string; email?: string; role?: SiteRole; password?: string; isActive?: boolean } = {},
): Promise<TestUser> {
  const em = t.orm.em.fork();
  const person = realisticPerson();
  const username = options.username ?? person.username;
  const password = options.password ?? `pw-${randomUUID()}`;
  const user = await createAccount(em, {
    username,
    email: options.email ?? (options.username ? `${options.username.replace(/\s+/g, ".")}@example.edu` : person.email),
    password,
    role: options.role ?? "user",
    ip: "127.0.0.1",
  });
  if (options.isActive === false) {
    user.isActive = false;
    await em.flush();
  }
  const tokens = await issueUserTokens(t.codec, { ...user, isActive: true }, t.config, { fresh: true });
  return { user, password, token: tokens.accessToken, refreshToken: tokens.refreshToken, tokens };
}

/** Signs arbitrary claims with the app's secret: for tokens no endpoint would ever issue. */
export function signClaims(t: TestApp, claims: Record<string, unknown>): Promise<string> {
  return t.codec.sign(claims);
}

export async function countUsers(t: TestApp): Promise<number> {
  const [row] = await t.orm.em.fork().getConnection().execute<{ n: string }[]>("select count(*)::int as n from users");
  return Number(row.n);
}

/** Polls until `check` returns a value (bounded): for effects that land just after a response. */
export async function eventually<T>(check: () => T | undefined | null | false, timeoutMs = 2_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}
