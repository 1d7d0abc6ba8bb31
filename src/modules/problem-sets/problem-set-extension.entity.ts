import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { User } from "../users/user.entity";
import { ProblemSet } from "./problem-set.entity";

/**
 * One student's own window for a set (an accommodation, docs/contests.md "Extensions"): their due and lock
 * times replace the set's wherever a window is checked or a late penalty computed. Gone with the set or
 * the user.
 */
export const ProblemSetExtension = defineEntity({
  name: "ProblemSetExtension",
  tableName: "problem_set_extensions",
  uniques: [{ name: "problem_set_extensions_set_user_unique", properties: ["problemSet", "user"] }],
  properties: {
    ...baseProperties,
    problemSet: () => p.manyToOne(ProblemSet).deleteRule("cascade"),
    user: () => p.manyToOne(User).deleteRule("cascade").index("problem_set_extensions_user_index"),
    dueAt: p.datetime().nullable(),
    lockAt: p.datetime().nullable(),
    /** Who granted it (kept when they leave: null). */
    grantedBy: () => p.manyToOne(User).nullable().deleteRule("set null").index("problem_set_extensions_granted_index"),
  },
});

export type ProblemSetExtension = InferEntity<typeof ProblemSetExtension>;
