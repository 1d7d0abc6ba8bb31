import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { createTestDatabase } from "../helpers/database";
import { createOrm } from "../../src/server/database";
import type { Orm } from "../../src/db/orm";
import { User } from "../../src/modules/users/user.entity";
import { findActiveUserRow, toUserDetail, userProfileOf, type UserRow } from "../../src/modules/users/users.service";
import { rows } from "../../src/db/statements";

// The caller's profile is made from their row without the ORM (users.service userProfileOf) on every
// authenticated request; what `/users/me` shows must be what the entity would show, for the row as
// Bun.sql reads it (Dates) and as `to_json(u)` writes it (the standing statement's text).

let orm: Orm;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  orm = await createOrm(database.url, { poolMax: 2 });
});

afterAll(async () => {
  await orm.close(true);
  await drop();
});

const text = (max: number) => fc.string({ unit: "grapheme", maxLength: max });

test("a profile from either form of the row shows what the entity shows", async () => {
  let n = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        username: text(40),
        email: text(60),
        gravatar: text(80),
        role: fc.constantFrom("root", "admin", "user", "judger"),
        studentId: text(20),
        realName: text(40),
        registerIp: fc.constantFrom("10.3.14.15", "2001:db8::17", "127.0.0.1"),
        loginIp: fc.constantFrom("192.168.1.20", "::1"),
        loginAt: fc.date({ min: new Date("2020-01-01"), max: new Date("2030-01-01"), noInvalidDate: true }),
      }),
      async (fields) => {
        const em = orm.em.fork();
        const suffix = `${process.pid}-${n++}`;
        const user = em.create(User, {
          ...fields,
          username: `${fields.username}-${suffix}`,
          usernameLower: `u-${suffix}`,
          emailLower: `e-${suffix}`,
          // PostgreSQL keeps microseconds; the views cut to milliseconds either way.
          loginAt: fields.loginAt,
        } as never);
        await em.flush();
        const fresh = orm.em.fork();
        const row = (await findActiveUserRow(fresh, user.id)) as UserRow;
        const [json] = await rows<{ u: string }>(fresh, "select to_json(u)::text as u from users u where id = ?", [
          user.id,
        ]);
        const expected = toUserDetail(fresh.map(User, row));
        expect(toUserDetail(userProfileOf(row))).toEqual(expected);
        expect(toUserDetail(userProfileOf(JSON.parse(json.u)))).toEqual(expected);
      },
    ),
    { numRuns: 40 },
  );
});

test("a deactivated user has no row to act from", async () => {
  const em = orm.em.fork();
  const user = em.create(User, {
    username: "Ines Okafor",
    usernameLower: "ines okafor",
    email: "ines.okafor@example.edu",
    emailLower: "ines.okafor@example.edu",
    isActive: false,
  } as never);
  await em.flush();
  expect(await findActiveUserRow(orm.em.fork(), user.id)).toBeNull();
});
