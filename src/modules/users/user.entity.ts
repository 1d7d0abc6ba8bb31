import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { SITE_ROLES } from "../identity/permissions";

/**
 * A person or a judger. Username and e-mail are unique by identity key (`*_lower`: NFKC, case-folded;
 * see auth/names.ts); login and display keep the spelling the user chose, in NFC. Keys are text:
 * NFKC may lengthen a name.
 */
export const User = defineEntity({
  name: "User",
  tableName: "users",
  properties: {
    ...baseProperties,
    username: p.string().length(255),
    usernameLower: p.text().unique("users_username_lower_unique"),
    email: p.string().length(320),
    emailLower: p.text().unique("users_email_lower_unique"),
    gravatar: p.string().length(512).default(""),
    role: p.enum(SITE_ROLES).default("user").index("users_role_index"),
    isActive: p.boolean().default(true),
    studentId: p.string().length(255).default(""),
    realName: p.string().length(255).default(""),
    registerIp: p.string().length(64).default("127.0.0.1"),
    loginAt: p
      .datetime()
      .defaultRaw("now()")
      .onCreate(() => new Date()),
    loginIp: p.string().length(64).default("127.0.0.1"),
    // Empty for accounts that never set a password (OAuth sign-ups); such accounts cannot log in by password.
    hashedPassword: p.text().default("").hidden(),
  },
});

export type User = InferEntity<typeof User>;
