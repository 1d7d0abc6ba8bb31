import type { CheckerShelf } from "./checker";
import type { RemoteFile } from "../api/judge-api";
import type { Slot } from "../sandbox/slots";
import type { Toolbox } from "../run/steps";

/** What judging a record's cases needs besides the case: the config's files, the checkers, the slot. */
export interface CaseContext {
  config: Map<string, RemoteFile>;
  cached: (f: RemoteFile) => Promise<string>;
  checkers: CheckerShelf;
  slot: Slot;
  tools: Toolbox;
  halt: AbortSignal;
}
