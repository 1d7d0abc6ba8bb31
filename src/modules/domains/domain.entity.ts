import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { User } from "../users/user.entity";

/** A course or contest space. `url` is a slug unique site-wide; it equals the id when none was chosen. */
export const Domain = defineEntity({
  name: "Domain",
  tableName: "domains",
  properties: {
    ...baseProperties,
    url: p.string().length(256).unique("domains_url_unique"),
    name: p.string().length(256).index("domains_name_index"),
    gravatar: p.string().length(256).default(""),
    bulletin: p.text().default(""),
    hidden: p.boolean().default(true),
    group: p.string().length(256).default("").index("domains_group_index"),
    // Horse's `tag` (problem clone scoping); no endpoint sets it.
    tag: p.string().length(256).nullable(),
    owner: () => p.manyToOne(User).nullable().deleteRule("set null").index("domains_owner_index"),
  },
});

export type Domain = InferEntity<typeof Domain>;
