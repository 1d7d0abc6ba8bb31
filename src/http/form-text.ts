import { InputError } from "../core/errors";

/**
 * Form bodies decoded as strictly as JSON (input-hygiene.ts): Bun's form parsers turn a byte that is
 * not UTF-8 into U+FFFD, and `URLSearchParams` keeps an undecodable `%FF` as literal text, so a user
 * name or a title would be stored as something the client never sent. Each text field and field name
 * is checked from the raw bytes; a failure is a 422 at ["body", <field>], before anything is stored.
 */
const utf8 = new TextDecoder("utf-8", { fatal: true });

const notText = (field: string | null) =>
  new InputError(field === null ? ["body"] : ["body", field], "the field is not valid UTF-8", "value_error.unicode");

function decodeStrict(bytes: Uint8Array, field: string | null): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw notText(field);
  }
}

/** `+` is a space; `%XY` a byte; the bytes of each name and value must be UTF-8. */
function percentDecode(text: string, field: string | null): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25 && /^[0-9a-f]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === 0x2b) {
      bytes.push(0x20);
    } else {
      bytes.push(...Buffer.from(text[i], "utf8"));
    }
  }
  return decodeStrict(Uint8Array.from(bytes), field);
}

/** An `application/x-www-form-urlencoded` body as fields (a repeated field becomes a list). */
export function parseUrlEncodedStrict(body: Uint8Array): Record<string, string | string[]> {
  const text = decodeStrict(body, null);
  // A Map, then own properties: a field named "__proto__" or "valueOf" is a field like any other.
  const fields = new Map<string, string | string[]>();
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const cut = pair.indexOf("=");
    const name = percentDecode(cut < 0 ? pair : pair.slice(0, cut), null);
    const value = percentDecode(cut < 0 ? "" : pair.slice(cut + 1), name);
    const held = fields.get(name);
    fields.set(name, held === undefined ? value : Array.isArray(held) ? [...held, value] : [held, value]);
  }
  return Object.fromEntries(fields);
}

const CRLF2 = Buffer.from("\r\n\r\n");

/**
 * Checks the text parts of a multipart body (those without a filename) and every part's name from
 * their raw bytes. Files are bytes, not text, and are not looked at. Structure errors are left to the
 * form parser that reads the body afterwards.
 */
export function assertMultipartText(body: Uint8Array, contentType: string): void {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) return;
  const data = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  let at = data.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    const next = data.indexOf(delimiter, start);
    if (next < 0) break;
    const part = data.subarray(start, next);
    const headerEnd = part.indexOf(CRLF2);
    if (headerEnd >= 0) checkPart(part.subarray(0, headerEnd), part.subarray(headerEnd + 4));
    at = next;
  }
}

function checkPart(headerBytes: Buffer, content: Buffer): void {
  const headers = decodeStrict(headerBytes, null);
  const disposition = /content-disposition:[^\r\n]*/i.exec(headers)?.[0] ?? "";
  const name = /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? null;
  if (/\bfilename\*?=/i.test(disposition)) return;
  // The part's content ends with the CRLF that precedes the next delimiter.
  const value = content.subarray(
    0,
    content.length >= 2 && content[content.length - 2] === 0x0d ? content.length - 2 : content.length,
  );
  decodeStrict(value, name);
}
