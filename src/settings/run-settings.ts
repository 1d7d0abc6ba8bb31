import type { EnvReader } from "../core/env-reader";

/** Runs (docs/api.md "Runs"): a user's program judged on their own input, without a record. */
export interface RunSettings {
  /** Runs of a user accepted in any 60 s (counted from the runs' rows); 0: no limit. */
  perMinute: number;
  /** Runs of one user queued or being judged at once. */
  waiting: number;
  /** How long a run is kept, then deleted with its files. */
  keepMinutes: number;
  /** The largest input a run on the user's own input may carry, in bytes. */
  inputMaxBytes: number;
}

export function readRunSettings(read: EnvReader): RunSettings {
  return {
    perMinute: read.integer("RUNS_PER_MINUTE", 30, 0, 100_000),
    waiting: read.integer("RUNS_WAITING", 3, 1, 10_000),
    keepMinutes: read.integer("RUNS_KEEP_MINUTES", 60, 1, 7 * 24 * 60),
    inputMaxBytes: read.integer("RUNS_INPUT_MAX_BYTES", 64 * 1024, 1, 16 * 1024 * 1024),
  };
}

/** A worker's: it takes no runs. */
export const NO_RUNS: RunSettings = { perMinute: 0, waiting: 0, keepMinutes: 0, inputMaxBytes: 0 };
