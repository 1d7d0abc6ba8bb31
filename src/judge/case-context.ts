import type { CheckerShelf } from "./checker";
import type { RemoteFile } from "./judge-api";
import type { Slot } from "./slots";
import type { Toolbox } from "./steps";

/** What judging a record's cases needs besides the case: the config's files, the checkers, the slot. */
export interface CaseContext {
  config: Map<string, RemoteFile>;
  cached: (f: RemoteFile) => Promise<string>;
  checkers: CheckerShelf;
  slot: Slot;
  tools: Toolbox;
  halt: AbortSignal;
}
