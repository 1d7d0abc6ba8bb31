/**
 * Runs `work` for the newest pending event id, one burst at a time and at most one per `gapMs`:
 * events that arrive meanwhile are folded into the next burst, so a judge reporting faster than a
 * stream reads costs one read per burst, never a queue.
 */
export function serialised(work: (id: string) => Promise<void>, fail: (error: unknown) => void, gapMs = 0) {
  let pending: string | null = null;
  let running = false;
  let lastStart = 0;
  return (id: string) => {
    pending = id;
    if (running) return;
    running = true;
    void (async () => {
      try {
        while (pending !== null) {
          const wait = lastStart + gapMs - performance.now();
          if (wait > 0) await Bun.sleep(wait);
          const next: string = pending;
          pending = null;
          lastStart = performance.now();
          await work(next);
        }
      } catch (error) {
        fail(error);
      } finally {
        running = false;
      }
    })();
  };
}
