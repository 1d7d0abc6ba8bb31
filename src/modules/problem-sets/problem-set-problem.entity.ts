import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { randomUUID } from "node:crypto";
import { Problem } from "../problems/problem.entity";
import { ProblemSet } from "./problem-set.entity";

/** A problem's place in a set; positions are 0..n-1 after every change. */
export const ProblemSetProblem = defineEntity({
  name: "ProblemSetProblem",
  tableName: "problem_set_problems",
  uniques: [{ name: "problem_set_problems_set_problem_unique", properties: ["problemSet", "problem"] }],
  indexes: [{ name: "problem_set_problems_problem_index", properties: ["problem"] }],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    problemSet: () => p.manyToOne(ProblemSet).deleteRule("cascade"),
    problem: () => p.manyToOne(Problem).deleteRule("cascade"),
    position: p.integer(),
  },
});

export type ProblemSetProblem = InferEntity<typeof ProblemSetProblem>;
