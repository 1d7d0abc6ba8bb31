import { defineEntity, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";

/** Problems that share test data (clones may join their source's group). */
export const ProblemGroup = defineEntity({
  name: "ProblemGroup",
  tableName: "problem_groups",
  properties: { ...baseProperties },
});

export type ProblemGroup = InferEntity<typeof ProblemGroup>;
