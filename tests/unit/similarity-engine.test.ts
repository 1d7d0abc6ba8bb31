import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { File, FingerprintIndex, Region, TokenizedFile } from "@dodona/dolos-core";
import type Parser from "web-tree-sitter";
import { analyse, grammarOf, type Source } from "../../src/modules/similarity/similarity-engine";
import { parserFor } from "../../src/modules/similarity/similarity-fingerprints";

// The similarity engine on real code (tests/fixtures/similarity: our own solutions to one problem, and a
// disguised copy of one of them) in C, C++, Python and Java.
const dir = join(import.meta.dir, "../fixtures/similarity");
const read = (name: string) => readFileSync(join(dir, name), "utf8");
const source = (name: string, text = read(name)): Source => ({ key: name, text, grammar: grammarOf(name)! });
const OPTIONS = { minSimilarity: 0, maxPairs: 100 };

const LANGUAGES: [string, string[]][] = [
  ["C", ["original.c", "copy.c", "other1.c", "other2.c"]],
  ["C++", ["original.cpp", "copy.cpp", "other1.cpp", "other2.cpp"]],
  ["Python", ["original.py", "copy.py", "other1.py", "other2.py"]],
  ["Java", ["Original.java", "Copy.java", "Other1.java", "Other2.java"]],
];

describe("a disguised copy ranks first", () => {
  test.each(LANGUAGES)("%s: renamed, reordered and commented, it is still the top pair by far", async (_, names) => {
    const pairs = await analyse(
      names.map((name) => source(name)),
      OPTIONS,
    );
    expect(pairs).toHaveLength(6);
    const [top, next] = pairs;
    expect([top.left, top.right].sort()).toEqual([names[0], names[1]].sort());
    expect(top.similarity).toBeGreaterThanOrEqual(0.6);
    expect(top.similarity - next.similarity).toBeGreaterThanOrEqual(0.2);
    // Sorted, highest first, and each with the lines both files share.
    expect(pairs.map((p) => p.similarity)).toEqual([...pairs.map((p) => p.similarity)].sort((a, b) => b - a));
    expect(top.fragments.length).toBeGreaterThan(0);
    for (const fragment of top.fragments) {
      expect(fragment.left[0]).toBeGreaterThanOrEqual(1);
      expect(fragment.left[1]).toBeGreaterThanOrEqual(fragment.left[0]);
    }
  });
});

// Starter code every student got: a reader and a printer around a gap for their own solution.
const STARTER = `import sys


def read_tokens():
    """Reads every whitespace-separated token of the input."""
    data = sys.stdin.read()
    tokens = []
    for part in data.split():
        part = part.strip()
        if part:
            tokens.append(part)
    return tokens


def write_answer(distinct, word, count):
    """Prints the answer in the required format."""
    out = []
    out.append(str(distinct))
    if word is not None:
        out.append(word + " " + str(count))
    sys.stdout.write("\\n".join(out) + "\\n")


`;

describe("starter code", () => {
  test("shared by everyone, it makes independent solutions look alike until it is given as the template", async () => {
    const files = [source("a.py", STARTER + read("other1.py")), source("b.py", STARTER + read("other2.py"))];
    const [without] = await analyse(files, OPTIONS);
    const [withTemplate] = await analyse(files, { ...OPTIONS, template: STARTER });
    expect(without.similarity).toBeGreaterThan(0.5);
    expect(withTemplate.similarity).toBeLessThan(0.3);
    // The copy still stands out with the template given.
    const copies = await analyse(
      [source("c.py", STARTER + read("original.py")), source("d.py", STARTER + read("copy.py")), ...files],
      { ...OPTIONS, template: STARTER },
    );
    expect([copies[0].left, copies[0].right].sort()).toEqual(["c.py", "d.py"]);
    expect(copies[0].similarity).toBeGreaterThanOrEqual(0.6);
  });
});

describe("what is compared with what", () => {
  test("languages apart, pairs under minSimilarity and past maxPairs left out, unparseable files skipped", async () => {
    const all = [...LANGUAGES.flatMap(([, names]) => names.map((name) => source(name))), source("empty.c", "")];
    const pairs = await analyse(all, OPTIONS);
    expect(pairs).toHaveLength(24);
    for (const pair of pairs) expect(grammarOf(pair.left)).toBe(grammarOf(pair.right));
    expect(pairs.some((p) => p.left === "empty.c" || p.right === "empty.c")).toBe(false);
    const strong = await analyse(all, { minSimilarity: 0.6, maxPairs: 100 });
    expect(strong.map((p) => p.grammar).sort()).toEqual(["c", "cpp", "java", "python"]);
    const two = await analyse(all, { minSimilarity: 0, maxPairs: 2 });
    expect(two.map((p) => p.similarity)).toEqual(pairs.slice(0, 2).map((p) => p.similarity));
  });

  test("the grammar comes from the file's extension", () => {
    expect(["a.c", "b.CPP", "c.py", "D.java", "e.go", "f.rs", "g.js", "h.txt", "Makefile"].map(grammarOf)).toEqual([
      "c",
      "cpp",
      "python",
      "java",
      "go",
      "rust",
      "javascript",
      null,
      null,
    ]);
  });
});

/** The token stream as Dolos's own tokenizers make one, from tree-sitter's nodes: the reference. */
async function dolosFile(path: string, text: string, grammar: string): Promise<TokenizedFile> {
  const tree = (await parserFor(grammar)).parse(text);
  const tokens: string[] = [];
  const mapping: Region[] = [];
  const regionOf = (node: Parser.SyntaxNode) =>
    new Region(node.startPosition.row, node.startPosition.column, node.endPosition.row, node.endPosition.column);
  const visit = (node: Parser.SyntaxNode) => {
    if (node.type.includes("comment")) return;
    const full = regionOf(node);
    const own =
      Region.firstDiff(full, node.children.map(regionOf)) ??
      new Region(full.startRow, full.startCol, full.startRow, full.startCol);
    tokens.push("(", node.type);
    mapping.push(own, own);
    for (const child of node.children) visit(child);
    tokens.push(")");
    mapping.push(own);
  };
  visit(tree.rootNode);
  tree.delete();
  return new TokenizedFile(new File(path, text), tokens, mapping);
}

describe("the same figures as Dolos", () => {
  test.each(LANGUAGES)(
    "%s: every pair's similarity, overlap, longest run and fragments, with and without starter code",
    async (_, names) => {
      const grammar = grammarOf(names[0])!;
      for (const template of [undefined, STARTER]) {
        const texts = names.map((name) => STARTER + read(name));
        const index = new FingerprintIndex(23, 17);
        const files = await Promise.all(names.map((name, i) => dolosFile(name, texts[i], grammar)));
        for (const file of files) index.addFiles([file]);
        if (template) index.addIgnoredFile(await dolosFile("template", template, grammar));
        const pairs = await analyse(
          names.map((name, i) => source(name, texts[i])),
          { ...OPTIONS, template },
        );
        expect(pairs).toHaveLength(6);
        for (const pair of pairs) {
          const [i, j] = [names.indexOf(pair.left), names.indexOf(pair.right)].sort();
          const dolos = index.getPair(files[i], files[j]);
          const mine = pair.left === names[i] ? pair : { ...pair, fragments: pair.fragments.map(swap) };
          expect(mine.similarity).toBeCloseTo(dolos.similarity, 4);
          expect([mine.overlap, mine.longestFragment]).toEqual([dolos.overlap, dolos.longest]);
          const lines = (r: Region): [number, number] => [r.startRow + 1, r.endRow + 1];
          const expected = dolos
            .buildFragments()
            .map((f) => ({ left: lines(f.leftSelection), right: lines(f.rightSelection) }));
          // Dolos's squash skips some fragments inside another (its sweep meets them too late); ours
          // drops every one: the rest are the same.
          const ours = new Set(mine.fragments.map((f) => JSON.stringify(f)));
          for (const f of expected)
            if (!ours.has(JSON.stringify(f))) expect(mine.fragments.some((g) => inside(f, g))).toBe(true);
          for (const f of ours) expect(expected.map((e) => JSON.stringify(e))).toContain(f);
        }
      }
    },
  );
});

type Lines = { left: [number, number]; right: [number, number] };
const swap = (f: Lines): Lines => ({ left: f.right, right: f.left });
const within = (a: [number, number], b: [number, number]) => b[0] <= a[0] && a[1] <= b[1];
const inside = (f: Lines, g: Lines) => within(f.left, g.left) && within(f.right, g.right);
