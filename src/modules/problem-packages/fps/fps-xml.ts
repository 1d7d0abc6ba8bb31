import { XMLParser } from "fast-xml-parser";
import { refuse } from "../model/package-model";

/**
 * Reading an FPS file's XML (docs/problem-packages.md "FPS"): its encoding as declared (UTF-8 by default), a
 * root `<fps>`, no declared entities, and a tree in which every element but the root is a list, in order,
 * its text kept as written (test data: no trimming, no numbers made of "007"), but for line ends, which XML reads
 * as \n (libxml2, with which HUSTOJ imports its own exports, does the same).
 */

/**
 * What may stand before the root element: a declaration, comments, processing instructions, a DOCTYPE. Each
 * part's body may not run past its own end (`-->`, `?>`, `]>`), so a hostile prolog cannot make it backtrack.
 */
const PROLOG = new RegExp(
  String.raw`^\s*(?:(?:<!--(?:(?!-->)[\s\S])*-->|<\?(?:(?!\?>)[\s\S])*\?>|` +
    String.raw`<!DOCTYPE\b[^[>]*(?:\[(?:(?!\]\s*>)[\s\S])*\]\s*)?>)\s*)*<fps[\s/>]`,
);

export type Node = Record<string, unknown>;
export const list = (value: unknown): unknown[] => (value === undefined ? [] : [value].flat());
export const first = (item: Node, tag: string): unknown => list(item[tag])[0];
export const textOf = (node: unknown): string =>
  typeof node === "string" ? node : node && typeof node === "object" ? String((node as Node)["#text"] ?? "") : "";
export const attrOf = (node: unknown, name: string): string | null => {
  const value = node && typeof node === "object" ? (node as Node)[name] : undefined;
  return typeof value === "string" ? value : null;
};

/** Child elements are lists (attributes are strings): HTML written as XML rather than as text in CDATA. */
export const holdsElements = (node: unknown) =>
  !!node && typeof node === "object" && Object.values(node).some(Array.isArray);
export const encoder = new TextEncoder();

/** Whether the bytes open like an FPS file: its declaration, comments, a DOCTYPE, then `<fps>`. */
export const opensAsFps = (bytes: Uint8Array) => PROLOG.test(asciiHead(bytes));

/** The file's start, enough to see its declaration and root element whatever its encoding (ASCII-compatible). */
const asciiHead = (bytes: Uint8Array) =>
  new TextDecoder("latin1").decode(bytes.subarray(0, 65536)).replace(/^\u00ef\u00bb\u00bf/, "");

/** The `<fps>` element of a well-formed file, or a refusal that says what is wrong. */
export function parseFps(path: string, bytes: Uint8Array): Node {
  const xml = decodeXml(path, bytes);
  const prolog = PROLOG.exec(xml.slice(0, 65536));
  if (!prolog) throw refuse(`${path}: its root element is not <fps>`);
  // No exporter declares entities; a document that does is an entity-expansion ("billion laughs") attack.
  if (/<!ENTITY/i.test(prolog[0])) throw refuse(`${path} declares entities (<!ENTITY> in its DOCTYPE): remove them`);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    parseTagValue: false,
    parseAttributeValue: false,
    // Test data is kept byte for byte: "007" stays a string and its spaces and line ends stay.
    trimValues: false,
    htmlEntities: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    isArray: (_name, jpath, _leaf, attribute) => !attribute && jpath !== "fps",
  });
  let parsed: Node;
  try {
    parsed = parser.parse(xml, true) as Node;
  } catch (error) {
    throw refuse(`${path} is not well-formed XML (${error instanceof Error ? error.message : error})`);
  }
  const root = parsed.fps;
  if (root === undefined) throw refuse(`${path}: its root element is not <fps>`);
  return typeof root === "object" && root !== null ? (root as Node) : {};
}

/** UTF-8 unless the declaration names another encoding (old Chinese exports say GBK); never a guess. */
function decodeXml(path: string, bytes: Uint8Array): string {
  const declared = /^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(asciiHead(bytes))?.[1];
  const label = declared && !/^utf-?8$/i.test(declared) ? declared : "utf-8";
  let decoder: TextDecoder;
  try {
    // Any label the runtime knows (gbk, gb18030, big5, …); an unknown one throws.
    decoder = new TextDecoder(label as ConstructorParameters<typeof TextDecoder>[0], { fatal: true });
  } catch {
    throw refuse(`${path} declares encoding="${declared}", which cannot be read here: save it as UTF-8`);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    const hint = declared ? "" : ` (a file in another encoding says so: <?xml version="1.0" encoding="GBK"?>)`;
    throw refuse(`${path} is not valid ${label} text${hint}`);
  }
}
