import { randomBytes } from "node:crypto";
import { archiveOf } from "./archive-builders";

// Packages of the size a real contest's export has (many cases, images), built here so that every byte is ours.

export const cdata = (text: string) => `<![CDATA[${text}]]>`;

/** Lines of numbers that look like test data and that deflate cannot shrink much (random digits). */
export function numberLines(bytes: number, seed: string): string {
  const digits = randomBytes(bytes)
    .toString("base64")
    .replace(/[^0-9]/g, "");
  const lines: string[] = [];
  for (let at = 0, size = 0; size < bytes; at = (at + 9) % Math.max(1, digits.length - 9)) {
    const line = `${seed.length}${digits.slice(at, at + 9)} ${digits.slice(at + 3, at + 12)}`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

/** A PNG-looking image of random bytes, as an FPS <img> carries it (base64) or a Hydro export (a file). */
export const image = (bytes: number) => Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), randomBytes(bytes)]);

export interface FpsItemOptions {
  title: string;
  tests?: { input: string; output: string }[];
  images?: { src: string; data: Buffer }[];
  description?: string;
  extra?: string;
}

/** One `<item>` as HUSTOJ's export writes it. */
export function fpsItem(options: FpsItemOptions): string {
  const tests = options.tests ?? [{ input: "1 2\n", output: "3\n" }];
  const images = (options.images ?? []).map(
    (img) => `<img><src>${cdata(img.src)}</src><base64>${cdata(img.data.toString("base64"))}</base64></img>`,
  );
  return [
    "<item>",
    `<title>${cdata(options.title)}</title>`,
    `<time_limit unit="s">${cdata("1")}</time_limit>`,
    `<memory_limit unit="mb">${cdata("128")}</memory_limit>`,
    ...images,
    `<description>${cdata(options.description ?? "<p>Add two numbers.</p>")}</description>`,
    `<input>${cdata("<p>Two integers.</p>")}</input>`,
    `<output>${cdata("<p>Their sum.</p>")}</output>`,
    `<sample_input>${cdata("1 2\n")}</sample_input>`,
    `<sample_output>${cdata("3\n")}</sample_output>`,
    ...tests.flatMap((t) => [
      `<test_input>${cdata(t.input)}</test_input>`,
      `<test_output>${cdata(t.output)}</test_output>`,
    ]),
    options.extra ?? "",
    "</item>",
  ].join("\n");
}

export const fpsFile = (items: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<fps version="1.2" url="https://github.com/zhblue/freeproblemset/">\n` +
  `<generator name="HUSTOJ" url="https://github.com/zhblue/hustoj/"/>\n${items.join("\n")}\n</fps>\n`;

/** An FPS file of `count` items of one case each. */
export const manyItemsFps = (count: number) =>
  fpsFile(Array.from({ length: count }, (_, i) => fpsItem({ title: `Sum ${i + 1}`, tests: [sumCase(i)] })));

const sumCase = (i: number) => ({ input: `${i} ${i + 1}\n`, output: `${2 * i + 1}\n` });

/** A Hydro export: a top folder per problem, each with testdata/config.yaml, many cases and its images. */
export async function hydroExport(problems: number, casesEach: number, caseBytes: number): Promise<Buffer> {
  const files: Record<string, string | Buffer> = {};
  for (let p = 1; p <= problems; p++) {
    const root = `${p}/`;
    files[`${root}problem.yaml`] = `title: 第 ${p} 题 Problem ${p}\ntag:\n  - export\n`;
    files[`${root}problem_zh.md`] = `# 第 ${p} 题\n\n![figure](file://figure${p}.png)\n\n计算。\n`;
    files[`${root}additional_file/figure${p}.png`] = image(120 * 1024);
    const cases = Array.from({ length: casesEach }, (_, i) => i + 1);
    files[`${root}testdata/config.yaml`] = `type: default\ntime: 1s\nmemory: 256m\n`;
    for (const i of cases) {
      files[`${root}testdata/${i}.in`] = numberLines(caseBytes, `${p}-${i}`);
      files[`${root}testdata/${i}.out`] = numberLines(caseBytes / 4, `${p}-${i}-out`);
    }
  }
  return archiveOf("zip", files);
}
