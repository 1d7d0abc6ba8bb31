import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../../db/base-properties";
import { User } from "../../users/user.entity";

/**
 * A long-lived machine credential (the "storage credential" Horse handed judgers for LakeFS). The key
 * id is public; only a SHA-256 digest of the 256-bit random secret is stored, which is enough for a
 * secret that cannot be guessed, and keeps verification cheap on every judger request.
 */
export const AccessKey = defineEntity({
  name: "AccessKey",
  tableName: "access_keys",
  properties: {
    ...baseProperties,
    keyId: p.string().length(64).unique("access_keys_key_id_unique"),
    secretDigest: p.string().length(64).hidden(),
    user: () => p.manyToOne(User).deleteRule("cascade").index("access_keys_user_index"),
    lastUsedAt: p.datetime().nullable(),
  },
});

export type AccessKey = InferEntity<typeof AccessKey>;
