/**
 * The keyword scan on a thread of its own, so that scanKeywordsBounded can terminate it when an author's
 * regular expression backtracks past its time. One message in, one answer out.
 */
import { type KeywordHit, type KeywordRule, scanKeywords } from "./keyword-scan";

declare const self: Worker;

self.addEventListener("message", (event: MessageEvent) => {
  const { files, rules } = event.data as { files: { path: string; text: string }[]; rules: KeywordRule[] };
  let answer: { hits: KeywordHit[] } | { error: string };
  try {
    answer = { hits: scanKeywords(files, rules) };
  } catch (error) {
    answer = { error: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage(answer);
});
