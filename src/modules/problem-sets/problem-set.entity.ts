import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { User } from "../users/user.entity";
import { Domain } from "../domains/domain.entity";

/**
 * An assignment or contest: an ordered list of the domain's problems with a time window
 * (unlockAt → dueAt → lockAt, all optional, all instants). The domain cannot be deleted while it
 * holds problem sets.
 */
export const ProblemSet = defineEntity({
  name: "ProblemSet",
  tableName: "problem_sets",
  uniques: [{ name: "problem_sets_domain_url_unique", properties: ["domain", "url"] }],
  properties: {
    ...baseProperties,
    domain: () => p.manyToOne(Domain).deleteRule("restrict"),
    url: p.string().length(256),
    title: p.string().length(256),
    content: p.text().default(""),
    hidden: p.boolean().default(false),
    scoreboardHidden: p.boolean().default(false),
    /** Which of a user's scores for a problem the scoreboard counts: the best one or the last one. */
    scoreboardRule: p.string().length(8).default("best"),
    unlockAt: p.datetime().nullable(),
    dueAt: p.datetime().nullable(),
    lockAt: p.datetime().nullable(),
    numSubmit: p.integer().default(0),
    numAccept: p.integer().default(0),
    owner: () => p.manyToOne(User).nullable().deleteRule("set null").index("problem_sets_owner_index"),
  },
});

export type ProblemSet = InferEntity<typeof ProblemSet>;
