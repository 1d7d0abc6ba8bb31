import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { randomUUID } from "node:crypto";
import { ProblemConfig } from "./problem-config.entity";

/** One file of a config version: its path in the tree and the content-addressed blob holding it. */
export const ProblemConfigFile = defineEntity({
  name: "ProblemConfigFile",
  tableName: "problem_config_files",
  uniques: [{ name: "problem_config_files_config_path_unique", properties: ["config", "path"] }],
  indexes: [{ name: "problem_config_files_digest_index", properties: ["digest"] }],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    config: () => p.manyToOne(ProblemConfig).deleteRule("cascade"),
    path: p.string().length(1024),
    digest: p.string().length(64),
    size: p.bigint("number"),
  },
});

export type ProblemConfigFile = InferEntity<typeof ProblemConfigFile>;
