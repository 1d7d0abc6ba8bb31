import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { User } from "../users/user.entity";
import { Domain } from "../domains/domain.entity";
import { ProblemGroup } from "./problem-group.entity";

/**
 * A problem of one domain. `languages` mirrors the `name`s of its latest config; the counters are
 * maintained in SQL by the records module. The domain cannot be deleted while it holds problems.
 */
export const Problem = defineEntity({
  name: "Problem",
  tableName: "problems",
  uniques: [{ name: "problems_domain_url_unique", properties: ["domain", "url"] }],
  properties: {
    ...baseProperties,
    domain: () => p.manyToOne(Domain).deleteRule("restrict"),
    url: p.string().length(256),
    title: p.string().length(512),
    content: p.text().default(""),
    hidden: p.boolean().default(false),
    numSubmit: p.integer().default(0),
    numAccept: p.integer().default(0),
    languages: p.json<string[]>().defaultRaw("'[]'::jsonb"),
    owner: () => p.manyToOne(User).nullable().deleteRule("set null").index("problems_owner_index"),
    problemGroup: () =>
      p.manyToOne(ProblemGroup).nullable().deleteRule("set null").index("problems_problem_group_index"),
  },
});

export type Problem = InferEntity<typeof Problem>;
