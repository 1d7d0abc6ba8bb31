import { parseSse } from "../../tests/helpers/sse";

/**
 * The drill's clients, as a browser or a script would behave against several APIs: a request that finds
 * its API gone or draining (a connection error, 503) is sent to the next one; a live stream that ends is
 * opened again, on whichever API answers, with the last event id it saw.
 */

export interface Answer {
  status: number;
  body: { errorCode?: string; data?: any; errorMsg?: string } | null;
  /** Which API answered (its index). */
  api: number;
}

export interface Tally {
  /** Answers with a status of 5xx other than 503 (the documented draining answer). */
  serverErrors: number;
  /** Requests retried on another API after a connection error or a 503. */
  retried: number;
}

export const tally: Tally = { serverErrors: 0, retried: 0 };

/** Sends to `apis[first]`, then to the others in turn while the answer is a connection error or 503. */
export async function call(
  apis: string[],
  first: number,
  path: string,
  init: { method?: string; token?: string; json?: unknown; form?: () => FormData } = {},
): Promise<Answer> {
  for (let attempt = 0; attempt < apis.length * 20; attempt++) {
    const api = (first + attempt) % apis.length;
    const headers: Record<string, string> = {};
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.json !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(`${apis[api]}/api/v1${path}`, {
        method: init.method ?? (init.json !== undefined || init.form ? "POST" : "GET"),
        headers,
        body: init.form ? init.form() : init.json !== undefined ? JSON.stringify(init.json) : undefined,
      });
    } catch {
      tally.retried++;
      await Bun.sleep(100);
      continue;
    }
    if (response.status === 503) {
      await response.body?.cancel();
      tally.retried++;
      await Bun.sleep(100);
      continue;
    }
    if (response.status >= 500) tally.serverErrors++;
    const text = await response.text();
    let body: Answer["body"] = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    return { status: response.status, body, api };
  }
  throw new Error(`no API answered ${path}`);
}

/** What a live stream saw: each record's last state, and how often it had to reconnect. */
export interface Watch {
  name: string;
  states: Map<string, string>;
  reconnects: number;
  resets: number;
  stop(): Promise<void>;
}

/**
 * The records list's live stream of `token` on `apis[first]`, kept open across API restarts: on its end
 * it reconnects (the same API first, else the next) with `Last-Event-ID`, as an EventSource does.
 */
export function watch(apis: string[], first: number, path: string, token: string, name: string): Watch {
  const states = new Map<string, string>();
  const abort = new AbortController();
  let lastId = "";
  const result: Watch = {
    name,
    states,
    reconnects: 0,
    resets: 0,
    async stop() {
      abort.abort();
      await loop.catch(() => {});
    },
  };
  const loop = (async () => {
    for (let attempt = 0; !abort.signal.aborted; attempt++) {
      const api = apis[(first + Math.floor(attempt / 2)) % apis.length];
      try {
        const headers: Record<string, string> = { authorization: `Bearer ${token}` };
        if (lastId) headers["last-event-id"] = lastId;
        const response = await fetch(`${api}/api/v1${path}`, { headers, signal: abort.signal });
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        attempt = -1;
        const decoder = new TextDecoder();
        let buffer = "";
        for await (const chunk of response.body as ReadableStream<Uint8Array>) {
          const parsed = parseSse(buffer + decoder.decode(chunk, { stream: true }));
          buffer = parsed.rest;
          if (parsed.lastId) lastId = parsed.lastId;
          for (const event of parsed.events) {
            if (event.event === "reset") result.resets++;
            const row = event.data as { id?: string; state?: string };
            if (event.event === "record" && row.id && row.state) states.set(row.id, row.state);
          }
        }
      } catch {
        if (abort.signal.aborted) return;
      }
      result.reconnects++;
      await Bun.sleep(200);
    }
  })();
  return result;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
