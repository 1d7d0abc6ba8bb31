import type { TestApp } from "./spawn-app";

/**
 * A live NDJSON stream of the app (the Contest API's event feed), read in the background into `lines`
 * (keep-alive blank lines skipped). `until` waits, bounded, for the lines so far to satisfy `done`; `find`
 * waits for one line to match and answers it (null when none came in time).
 */
export async function readNdjson(t: TestApp, path: string, token: string) {
  const abort = new AbortController();
  const response = await t.app.handle(
    new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal }),
  );
  const lines: any[] = [];
  const decoder = new TextDecoder();
  let text = "";
  void (async () => {
    try {
      for await (const chunk of response.body as ReadableStream<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n")) {
          if (nl > 0) lines.push(JSON.parse(text.slice(0, nl)));
          text = text.slice(nl + 1);
        }
      }
    } catch {
      // closed by the test
    }
  })();
  const until = async (done: (lines: any[]) => boolean, ms = 10_000) => {
    for (const deadline = Date.now() + ms; !done(lines) && Date.now() < deadline; ) await Bun.sleep(20);
    return done(lines);
  };
  const find = async (found: (line: any) => boolean, ms = 10_000) =>
    (await until((all) => all.some(found), ms)) ? lines.find(found) : null;
  return { status: response.status, lines, until, find, close: () => abort.abort() };
}
