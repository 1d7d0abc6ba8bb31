import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { User } from "../users/user.entity";
import { Problem } from "../problems/problem.entity";

/**
 * An immutable config version of a problem: a tree of files (problem_config_files) identified by
 * `commitId`, a SHA-256 over the sorted (path, digest) pairs, so identical trees have identical ids.
 * It outlives its problem (problem → null) while records that were judged with it point at it.
 */
export const ProblemConfig = defineEntity({
  name: "ProblemConfig",
  tableName: "problem_configs",
  // Versions are numbered per problem under the problem's config lock: "latest" is the highest.
  uniques: [{ name: "problem_configs_problem_version_unique", properties: ["problem", "version"] }],
  properties: {
    ...baseProperties,
    problem: () => p.manyToOne(Problem).nullable().deleteRule("set null"),
    committer: () => p.manyToOne(User).nullable().deleteRule("set null"),
    version: p.integer(),
    commitId: p.string().length(64),
    commitMessage: p.text().default(""),
    dataVersion: p.integer().default(2),
  },
});

export type ProblemConfig = InferEntity<typeof ProblemConfig>;
