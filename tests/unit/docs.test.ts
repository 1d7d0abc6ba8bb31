import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT } from "../helpers/import-graph";

// The documentation by reader (README.md the front door, docs/ the rest), held to the code it describes.

const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const glob = (pattern: string) => Array.fromAsync(new Bun.Glob(pattern).scan({ cwd: ROOT }));
const PAGES = ["README.md", ...(await glob("docs/**/*.md"))].sort();

const DOCS = [
  "docs/running-a-course.md",
  "docs/config-reference.md",
  "docs/operations.md",
  "docs/api.md",
  "docs/judge.md",
  "docs/architecture.md",
  "docs/benchmarks.md",
];

/** A page's text outside fenced code blocks, in paragraphs (an inline code span may cross lines, not paragraphs). */
function paragraphs(markdown: string): string[] {
  let fenced = false;
  const lines = markdown.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  });
  return lines.join("\n").split(/\n\s*\n/);
}

const CODE_SPAN = /(`+)([\s\S]*?[^`])\1(?!`)/g;

/** Markdown as GitHub renders it to text: fenced code blocks and inline code spans left out. */
function prose(markdown: string): string {
  return paragraphs(markdown)
    .map((paragraph) => paragraph.replace(CODE_SPAN, ""))
    .join("\n\n");
}

/** Inline code spans outside fenced blocks, a line end inside one read as a space. */
function codeSpans(markdown: string): string[] {
  return paragraphs(markdown).flatMap((paragraph) =>
    [...paragraph.matchAll(CODE_SPAN)].map((match) => match[2].replace(/\s*\n\s*/g, " ").trim()),
  );
}

/**
 * GitHub's anchor for a heading: its text as rendered (links as their text, no backticks), lower-cased,
 * every character that is not a letter, a digit, a space, a hyphen or an underscore removed, each space
 * a hyphen.
 */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** A page's anchors; a repeated heading gets `-1`, `-2`, … as on GitHub. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function linksOf(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
}

describe("the front door", () => {
  test("README.md has at most 300 lines", () => {
    expect(read("README.md").trimEnd().split("\n").length).toBeLessThanOrEqual(300);
  });

  test("docs/ holds a page per reader and purpose, each linked from README.md", () => {
    const readme = linksOf(read("README.md"));
    for (const page of DOCS) {
      expect({ page, exists: existsSync(join(ROOT, page)) }).toEqual({ page, exists: true });
      expect({ page, linked: readme.some((target) => target.split("#")[0] === page) }).toEqual({
        page,
        linked: true,
      });
    }
  });
});

describe("decision records", () => {
  const records = PAGES.filter((page) => page.startsWith("docs/decisions/"));

  test("each is docs/decisions/NNNN-title.md, numbered once each, 0001 to 0004 at least", () => {
    const names = records.map((page) => page.slice("docs/decisions/".length));
    expect(names.filter((name) => !/^\d{4}-[a-z0-9]+(-[a-z0-9]+)*\.md$/.test(name))).toEqual([]);
    const numbers = names.map((name) => name.slice(0, 4));
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(numbers).toEqual(expect.arrayContaining(["0001", "0002", "0003", "0004"]));
  });

  test("each has a title, then Context, Decision and Consequences, in that order", () => {
    for (const page of records) {
      const headings = read(page)
        .split("\n")
        .filter((line) => /^#{1,2}\s/.test(line));
      expect({ page, title: /^# \S/.test(headings[0] ?? "") }).toEqual({ page, title: true });
      expect({ page, sections: headings.filter((h) => h.startsWith("## ")) }).toEqual({
        page,
        sections: ["## Context", "## Decision", "## Consequences"],
      });
    }
  });
});

describe("links between the pages", () => {
  test("anchors are GitHub's: headings lower-cased, punctuation dropped, spaces as hyphens", () => {
    expect(slug("How config.json is judged (and how to add a language)")).toBe(
      "how-configjson-is-judged-and-how-to-add-a-language",
    );
    expect(slug("Code similarity (extension)")).toBe("code-similarity-extension");
    expect(slug("Checkers (special judges)")).toBe("checkers-special-judges");
    expect(slug("The `/work` of a run: bytes, not text")).toBe("the-work-of-a-run-bytes-not-text");
    expect([...anchorsOf("# A\n## Tests\n```\n## Not a heading\n```\n### Tests\n")]).toEqual(["a", "tests", "tests-1"]);
  });

  test("every relative link in README.md and docs/ names a file that exists, and a heading of it", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      for (const target of linksOf(read(page))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http(s), mailto: not fetched
        checked++;
        const [path, anchor] = target.split("#", 2) as [string, string | undefined];
        const file = path === "" ? join(ROOT, page) : resolve(ROOT, dirname(page), decodeURIComponent(path));
        const name = relative(ROOT, file);
        if (name.startsWith("..") || !existsSync(file)) {
          broken.push(`${page}: ${target} (no ${name})`);
        } else if (anchor !== undefined) {
          const found =
            statSync(file).isFile() && anchorsOf(readFileSync(file, "utf8")).has(decodeURIComponent(anchor));
          if (!found) broken.push(`${page}: ${target} (no heading #${anchor} in ${name})`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  test("every repository path a page names in code (src/…, tests/…) exists", () => {
    const ROOTS = /^(src|tests|workers|bench|migrations|docs|\.ci)\/[\w./-]*$/;
    const missing: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      for (const span of codeSpans(read(page))) {
        if (!ROOTS.test(span)) continue;
        checked++;
        if (!existsSync(join(ROOT, span))) missing.push(`${page}: ${span}`);
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });
});

/** What the code reads of its environment: the settings an operator may give. */
async function settingsTheCodeReads(): Promise<Set<string>> {
  const names = new Set<string>();
  const lists = new Map<string, string[]>();
  const NAME = /^[A-Z][A-Z0-9_]*$/;
  for (const file of await glob("{src,workers}/**/*.ts")) {
    const text = read(file);
    // The env reader (src/core/env-reader.ts): every variable whose reader is `new EnvReader(…)` or a
    // parameter of type EnvReader, read by a method (`read.integer("JUDGE_DISK_MB", …)`) or handed with the
    // reader to a helper (`readRate(read, "RATE_SUBMISSIONS_PER_USER", …)`).
    const readers = [...text.matchAll(/(\w+)\s*(?:=\s*new EnvReader\(|:\s*EnvReader\b)/g)].map((m) => m[1]);
    // Names built from a template (`OAUTH_${name}_ID`) take each word the file passes alone to a call
    // (`client("GITHUB")`).
    const words = [...text.matchAll(/\w+\(\s*"([A-Z][A-Z0-9]*)"\s*\)/g)].map((m) => m[1]);
    for (const reader of new Set(readers)) {
      const calls = new RegExp(
        `\\b${reader}\\.(?:optional|string|list|integer|boolean|oneOf|url|optionalUrl)\\(\\s*(["'\`])(.+?)\\1` +
          `|\\w+\\(\\s*${reader}\\s*,\\s*(["'\`])(.+?)\\3`,
        "g",
      );
      for (const match of text.matchAll(calls)) {
        const name = match[2] ?? match[4];
        const expanded = name.includes("${") ? words.map((word) => name.replace(/\$\{[^}]*\}/g, word)) : [name];
        expect({ file, name, expanded: expanded.length > 0 }).toEqual({ file, name, expanded: true });
        for (const each of expanded) if (NAME.test(each)) names.add(each);
      }
    }
    // Direct reads: `process.env.NAME`, `env.NAME`, `env["NAME"]`.
    for (const match of text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b|\benv\[\s*["']([A-Z][A-Z0-9_]*)["']\s*\]/g))
      names.add(match[1] ?? match[2]);
    // The allow-lists of what a child of `bun run start` is given (child-env.ts).
    for (const match of text.matchAll(/export const (\w+_VARIABLES)\s*=\s*\[([\s\S]*?)\]/g)) {
      const items = [...match[2].matchAll(/"([A-Z][A-Z0-9_]*)"/g)].map((item) => item[1]);
      lists.set(match[1], items);
      for (const item of items) names.add(item);
    }
  }
  expect([...lists.keys()]).toEqual(
    expect.arrayContaining(["MACHINE_VARIABLES", "SERVER_WORKER_VARIABLES", "JUDGE_VARIABLES"]),
  );
  // The machine's own variables (PATH, HOME, LANG, …) are passed on to children but are nobody's setting.
  for (const name of lists.get("MACHINE_VARIABLES") ?? []) names.delete(name);
  return names;
}

/** Variables our own code sets for its own children, not settings: each must be set somewhere in src/. */
const INTERNAL = {
  SUPERVISOR_PID: "set by `bun run start` for its workers, which stop when it is gone",
  JOJ_SELF_CHECK_CANARY: "the judge's self-check canary, set and removed around the probe",
};

/** Read by the API, the workers and the judge like LOG_LEVEL (the logger's format). */
const ANNOUNCED = ["LOG_FORMAT"];

function settingsTable(): Set<string> {
  const page = read("docs/operations.md");
  const section = /^## Settings\n([\s\S]*?)(?=^## )/m.exec(page)?.[1] ?? "";
  const names = new Set<string>();
  for (const row of section.split("\n").filter((line) => /^\|/.test(line) && !/^\|[\s:|-]+\|$/.test(line))) {
    const first = row.split("|")[1] ?? "";
    for (const match of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(match[1]);
  }
  return names;
}

describe("the settings table of docs/operations.md", () => {
  test("the code's variables are found: the env reader's, direct reads, templates and the allow-lists", async () => {
    const found = await settingsTheCodeReads();
    expect([...found]).toEqual(
      expect.arrayContaining([
        "JUDGE_DISK_MB", // read.integer in judge-settings.ts
        "RATE_LOGIN_FAILURES_PER_IP", // readRate(read, …) in config.ts
        "OAUTH_JACCOUNT_SECRET", // read.optional(`OAUTH_${name}_SECRET`) in oauth-settings.ts
        "EMBEDDED_POSTGRES_PORT", // process.env in start.ts
        "AWS_SESSION_TOKEN", // SERVER_WORKER_VARIABLES only
      ]),
    );
    expect(found.has("PATH")).toBe(false);
  });

  test("names every variable the code reads, with LOG_FORMAT", async () => {
    const table = settingsTable();
    const wanted = new Set([...(await settingsTheCodeReads()), ...ANNOUNCED]);
    for (const name of Object.keys(INTERNAL)) wanted.delete(name);
    expect([...wanted].filter((name) => !table.has(name)).sort()).toEqual([]);
  });

  test("names nothing the code does not read", async () => {
    const code = new Set([...(await settingsTheCodeReads()), ...ANNOUNCED]);
    const table = settingsTable();
    expect(table.size).toBeGreaterThan(50);
    expect([...table].filter((name) => !code.has(name) || name in INTERNAL).sort()).toEqual([]);
  });

  test("the variables left out are set by our own code for its own children", async () => {
    const sources = await Promise.all((await glob("src/**/*.ts")).map(read));
    for (const name of Object.keys(INTERNAL)) {
      const set = sources.some((text) => new RegExp(`\\b${name}\\s*(:|=(?!=))`).test(text));
      expect({ name, set }).toEqual({ name, set: true });
    }
  });
});
