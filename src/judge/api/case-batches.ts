import type { CaseReport } from "./judge-api";

export interface BatchLimits {
  /** How long a finished case may wait for others to go with it (the live view's delay). */
  delayMs: number;
  /** A batch goes at once when its reports' output reaches this many characters (the API's JSON limit). */
  maxChars: number;
  maxCases: number;
}

export const BATCH_LIMITS: BatchLimits = { delayMs: 50, maxChars: 256 * 1024, maxCases: 200 };

/**
 * A record's case reports on their way to the server in batches: one request, one statement and one
 * live announcement for the cases that finished within `delayMs` of each other, rather than one each
 * (a 100-case problem sent 100). Batches go one after another, in order. A batch that fails is the
 * record's failure: the next `add` or `flush` throws it, as a single report's failure did.
 */
export class CaseBatches {
  private pending: { index: number; report: CaseReport }[] = [];
  private chars = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private sending: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  constructor(
    private readonly send: (cases: { index: number; report: CaseReport }[]) => Promise<unknown>,
    private readonly limits: BatchLimits = BATCH_LIMITS,
  ) {}

  add(index: number, report: CaseReport): void {
    if (this.failure) throw this.failure.error;
    this.pending.push({ index, report });
    this.chars += report.stdout.length + report.stderr.length;
    if (this.chars >= this.limits.maxChars || this.pending.length >= this.limits.maxCases) this.dispatch();
    else this.timer ??= setTimeout(() => this.dispatch(), this.limits.delayMs);
  }

  /** Sends what is pending and waits for every batch; throws the first failure. */
  async flush(): Promise<void> {
    this.dispatch();
    await this.sending;
    if (this.failure) throw this.failure.error;
  }

  /** Drops what has not gone yet (the record was given back or taken). */
  discard(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = [];
    this.chars = 0;
  }

  private dispatch(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.chars = 0;
    this.sending = this.sending.then(async () => {
      if (this.failure) return;
      try {
        await this.send(batch);
      } catch (error) {
        this.failure = { error };
      }
    });
  }
}
