import type { CheckerShelf } from "./checker";
import type { BuildDeps } from "../cache/program-cache";

/** What judging a record's cases needs besides the case: the config's files, the checkers, the slot. */
export interface CaseContext extends Pick<BuildDeps, "config" | "cached" | "slot" | "tools"> {
  checkers: CheckerShelf;
  halt: AbortSignal;
}
