import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { SITE_ROLES } from "../../auth/permissions";

/**
 * A person or a judger. Uniqueness of username and e-mail is case-insensitive (the `*_lower`
 * columns); login and display keep the spelling the user chose.
 */
export const User = defineEntity({
  name: "User",
  tableName: "users",
  properties: {
    ...baseProperties,
    username: p.string().length(255),
    usernameLower: p.string().length(255).unique("users_username_lower_unique"),
    email: p.string().length(320),
    emailLower: p.string().length(320).unique("users_email_lower_unique"),
    gravatar: p.string().length(512).default(""),
    role: p.enum(SITE_ROLES).default("user").index("users_role_index"),
    isActive: p.boolean().default(true),
    studentId: p.string().length(255).default(""),
    realName: p.string().length(255).default(""),
    registerIp: p.string().length(64).default("127.0.0.1"),
    loginAt: p.datetime().defaultRaw("now()").onCreate(() => new Date()),
    loginIp: p.string().length(64).default("127.0.0.1"),
    // Empty for accounts that never set a password (OAuth sign-ups); such accounts cannot log in by password.
    hashedPassword: p.text().default("").hidden(),
  },
});

export type User = InferEntity<typeof User>;
