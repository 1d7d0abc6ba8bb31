/** config.json's time and memory strings, read the one way both the judge and the API read them. */

/** "1s", "1.5s", "500ms" → milliseconds. */
export function parseTime(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(text.trim());
  if (!match) throw new Error(`unreadable time "${text}"`);
  return Math.max(1, Math.round(Number(match[1]) * (match[2] === "s" ? 1000 : 1)));
}

/** "64m", "256MB", "512k", "1g", "1048576" (bytes) → KiB. */
export function parseMemory(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([kmg])?b?$/i.exec(text.trim());
  if (!match) throw new Error(`unreadable memory "${text}"`);
  const unit = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(match[2] ?? "").toLowerCase() as "" | "k" | "m" | "g"];
  return Math.max(1, Math.ceil((Number(match[1]) * unit) / 1024));
}
