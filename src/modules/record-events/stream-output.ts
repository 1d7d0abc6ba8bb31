import type { LiveStreamSettings } from "../../settings/config";

/** Queued bytes past which a burst waits for the client: small, so a stream that keeps up holds little. */
const WAIT_MARK_BYTES = 64 * 1024;
const settled = Promise.resolve();

/**
 * A live stream's body with its bytes bounded. Bun takes from the stream only as the client's socket drains,
 * so what is queued here is what the client has not read. A burst awaits `room()` after each event: past
 * WAIT_MARK_BYTES it waits for the client to read. The stream is dropped (`end(true)`) when an event would
 * take the queue past `maxQueuedBytes`, or when a burst has waited two heartbeats with nothing read: a
 * client that stalls costs at most that much, never a growing buffer.
 */
export class Output {
  readonly body: ReadableStream<Uint8Array>;
  closed = false;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private waiting: (() => void)[] = [];
  private stall: ReturnType<typeof setTimeout> | null = null;
  private readonly mark: number;
  private readonly stallMs: number;

  constructor(
    private readonly limits: LiveStreamSettings,
    /** The stream's end: `dropped` when its client stalled, else the client went. */
    private readonly end: (dropped: boolean) => void,
  ) {
    this.mark = Math.min(WAIT_MARK_BYTES, Math.floor(limits.maxQueuedBytes / 2));
    this.stallMs = limits.heartbeatSeconds * 2000;
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        // Called as the client reads and the queue falls under the mark.
        pull: () => this.drained(),
        cancel: () => this.end(false),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: this.mark }),
    );
  }

  /** Bytes the client has not read yet. */
  get queued(): number {
    return this.mark - (this.controller.desiredSize ?? this.mark);
  }

  /** Whether `bytes` more would pass the bound; an event alone in an empty queue always fits. */
  overflows(bytes: number): boolean {
    const queued = this.queued;
    return queued > 0 && queued + bytes > this.limits.maxQueuedBytes;
  }

  enqueue(chunk: Uint8Array): void {
    if (!this.closed) this.controller.enqueue(chunk);
  }

  /** Resolves at once under the mark; else once the client has read, or the stream was dropped for stalling. */
  room(): Promise<void> {
    if (this.closed || (this.controller.desiredSize ?? 1) > 0) return settled;
    this.stall ??= setTimeout(() => this.end(true), this.stallMs);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Ends the body: a drop discards what is queued (the client resumes with Last-Event-ID). */
  close(dropped: boolean): void {
    if (this.closed) return;
    this.closed = true;
    this.drained();
    try {
      if (dropped) this.controller.error(undefined);
      else this.controller.close();
    } catch {
      // the client went first
    }
  }

  private drained(): void {
    if (this.stall) clearTimeout(this.stall);
    this.stall = null;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}
