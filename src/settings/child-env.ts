import { MACHINE_VARIABLES, pickEnv, type Env } from "../core/env-reader";
import { SERVER_WORKER_VARIABLES } from "./secret-settings";
import { judgeChildEnv } from "../judge/judge-settings";

/**
 * What each child of `bun run start` gets of its environment: an allow-list per child, never the
 * parent's with some names deleted, so a setting added later reaches no child by default. The table
 * is in docs/operations.md "Who gets which settings".
 */
export type ChildName = "judge" | "configs";

export function childEnv(child: ChildName, env: Env): Record<string, string> {
  switch (child) {
    case "judge":
      return judgeChildEnv(env);
    case "configs":
      return pickEnv(env, [...MACHINE_VARIABLES, ...SERVER_WORKER_VARIABLES]);
  }
}
