/** One Server-Sent Event as a client reads it. */
export interface SseEvent {
  id: string;
  event: string;
  data: unknown;
}

/** Parses complete `text/event-stream` frames out of `buffer`; returns the events and what is left. */
export function parseSse(buffer: string): { events: SseEvent[]; comments: string[]; rest: string; lastId?: string } {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const frames = buffer.split("\n\n");
  const rest = frames.pop() ?? "";
  // The last id of any frame, an event's or an id alone (a stream's starting position).
  let lastId: string | undefined;
  for (const frame of frames) {
    const event: Partial<SseEvent> & { lines: string[] } = { lines: [] };
    for (const line of frame.split("\n")) {
      if (line.startsWith(":")) comments.push(line.slice(1).trim());
      else if (line.startsWith("id: ")) {
        event.id = line.slice(4);
        lastId = event.id;
      } else if (line.startsWith("event: ")) event.event = line.slice(7);
      else if (line.startsWith("data: ")) event.lines.push(line.slice(6));
    }
    if (event.event) events.push({ id: event.id ?? "", event: event.event, data: JSON.parse(event.lines.join("\n")) });
  }
  return { events, comments, rest, lastId };
}

/**
 * A live stream read as it arrives: `events` grows, `until` waits for an event matching a predicate
 * (or the stream's end), `close` hangs up as a browser would.
 */
export function readStream(response: Response, abort: AbortController) {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let ended = false;
  let wake = () => {};
  const reader = response.body!.getReader();
  const done = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        const parsed = parseSse(buffer + decoder.decode(value, { stream: true }));
        buffer = parsed.rest;
        events.push(...parsed.events);
        comments.push(...parsed.comments);
        wake();
      }
    } catch {
      // aborted
    }
    ended = true;
    wake();
  })();
  return {
    events,
    comments,
    get ended() {
      return ended;
    },
    /** Waits (bounded) until an event matches, or the stream ends; returns the match or undefined. */
    async until(match: (event: SseEvent) => boolean, timeoutMs = 20_000): Promise<SseEvent | undefined> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find(match);
        if (found || ended || Date.now() > deadline) return found;
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
    },
    /** Waits (bounded) until a comment (`: heartbeat`) came, or the stream ends; whether it came. */
    async comment(text: string, timeoutMs = 20_000): Promise<boolean> {
      const deadline = Date.now() + timeoutMs;
      while (!comments.includes(text) && !ended && Date.now() <= deadline)
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      return comments.includes(text);
    },
    async close() {
      abort.abort();
      await reader.cancel().catch(() => {});
      await done;
    },
  };
}
