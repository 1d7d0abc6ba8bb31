import type { Env } from "../env-reader";
import { SERVER_WORKER_VARIABLES } from "../config";
import { judgeChildEnv, MACHINE_VARIABLES } from "../judge/judge-settings";

/**
 * What each child of `bun run start` gets of its environment: an allow-list per child, never the
 * parent's with some names deleted, so a setting added later reaches no child by default. The table
 * is in the README ("Who gets which settings").
 */
export type ChildName = "judge" | "configs" | "redis-server";

function pick(env: Env, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

export function childEnv(child: ChildName, env: Env): Record<string, string> {
  switch (child) {
    case "judge":
      return judgeChildEnv(env);
    case "configs":
      return pick(env, [...MACHINE_VARIABLES, ...SERVER_WORKER_VARIABLES]);
    case "redis-server":
      return pick(env, MACHINE_VARIABLES);
  }
}
