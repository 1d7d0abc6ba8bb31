import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { User } from "../users/user.entity";
import { Domain } from "./domain.entity";

/** A membership: the user's role in one domain. `createdAt` is the join time. */
export const DomainUser = defineEntity({
  name: "DomainUser",
  tableName: "domain_users",
  uniques: [{ name: "domain_users_domain_user_unique", properties: ["domain", "user"] }],
  properties: {
    ...baseProperties,
    domain: () => p.manyToOne(Domain).deleteRule("cascade"),
    user: () => p.manyToOne(User).deleteRule("cascade").index("domain_users_user_index"),
    role: p.string().length(256),
  },
});

export type DomainUser = InferEntity<typeof DomainUser>;
