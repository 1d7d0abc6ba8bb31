import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import type { DomainPermissionSet } from "../identity/permissions";
import { Domain } from "./domain.entity";

/** A named permission set of one domain (root, admin, user, guest, and custom ones). */
export const DomainRole = defineEntity({
  name: "DomainRole",
  tableName: "domain_roles",
  uniques: [{ name: "domain_roles_domain_role_unique", properties: ["domain", "role"] }],
  properties: {
    ...baseProperties,
    domain: () => p.manyToOne(Domain).deleteRule("cascade"),
    role: p.string().length(256),
    permission: p.json<DomainPermissionSet>(),
  },
});

export type DomainRole = InferEntity<typeof DomainRole>;
