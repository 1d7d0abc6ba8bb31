import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { Domain } from "./domain.entity";

/** A reusable join code for one domain, granting one role, until `expireAt` (null: never expires). */
export const DomainInvitation = defineEntity({
  name: "DomainInvitation",
  tableName: "domain_invitations",
  uniques: [
    { name: "domain_invitations_domain_url_unique", properties: ["domain", "url"] },
    { name: "domain_invitations_domain_code_unique", properties: ["domain", "code"] },
  ],
  properties: {
    ...baseProperties,
    domain: () => p.manyToOne(Domain).deleteRule("cascade"),
    url: p.string().length(256),
    code: p.string().length(256),
    expireAt: p.datetime().nullable(),
    role: p.string().length(256).default("user"),
  },
});

export type DomainInvitation = InferEntity<typeof DomainInvitation>;
