import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { deflateSync } from "node:zlib";
import { isFps, readFps } from "../../src/modules/problem-packages/fps/fps-package";
import { MAX_IMAGE_BYTES } from "../../src/modules/problem-packages/fps/fps-statement";

// FPS files built here as HUSTOJ's exporter writes them: a DOCTYPE, every value in CDATA (a `]]>` split into
// two sections), tests named, images as base64 before the description, solutions and templates per language.

const utf8 = (text: string) => new TextEncoder().encode(text);
const decoded = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const cdata = (text: string) => `<![CDATA[${text.replaceAll("]]>", "]]]]><![CDATA[>")}]]>`;
const el = (name: string, text: string, attrs = "") => `<${name}${attrs}>${cdata(text)}</${name}>`;
const fps = (...items: string[]) =>
  '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE fps PUBLIC ' +
  '"-//freeproblemset//An opensource XML standard for Algorithm Contest Problem Set//EN" ' +
  '"http://hustoj.com/fps.current.dtd" >\n<fps version="1.6" url="https://github.com/zhblue/freeproblemset/">\n' +
  `<generator name="HUSTOJ" url="https://github.com/zhblue/hustoj/" />\n${items.join("\n")}\n</fps>\n`;
const item = (...parts: string[]) => `<item>\n${parts.join("\n")}\n</item>`;
const upload = (xml: string | Uint8Array, extra: Record<string, string> = {}) =>
  new Map<string, Uint8Array>([
    ["export-1000-1002.xml", typeof xml === "string" ? utf8(xml) : xml],
    ...Object.entries(extra).map(([path, text]) => [path, utf8(text)] as [string, Uint8Array]),
  ]);
const refusal = (xml: string | Uint8Array, extra?: Record<string, string>) => {
  try {
    readFps(upload(xml, extra));
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("not refused");
};
const test1 = el("test_input", "1 2\n") + el("test_output", "3\n");

/** A PNG of our own: a width × height picture in one colour, its chunks' CRCs and its zlib stream real. */
function png(width: number, height: number, rgb: number[]): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(utf8(type), 4);
    out.set(data, 8);
    view.setUint32(8 + data.length, Bun.hash.crc32(out.subarray(4, 8 + data.length)));
    return out;
  };
  const header = new Uint8Array(13);
  new DataView(header.buffer).setUint32(0, width);
  new DataView(header.buffer).setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8);
  const row = [0, ...Array.from({ length: width }, () => rgb).flat()];
  const pixels = new Uint8Array(Array.from({ length: height }, () => row).flat());
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header)];
  parts.push(chunk("IDAT", new Uint8Array(deflateSync(pixels))), chunk("IEND", new Uint8Array()));
  return new Uint8Array(parts.flatMap((part) => [...part]));
}
const PICTURE = png(3, 2, [200, 30, 30]);
const PICTURE_SRC = "http://oj.example.edu.cn/upload/image/20240301/20240301101500_12345.png";
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

const SUM = item(
  el("title", "两数之和"),
  el("url", "http://oj.example.edu.cn/problem.php?id=1000"),
  el("time_limit", "1", ' unit="s"'),
  el("memory_limit", "128", ' unit="mb"'),
  `<img><src>${cdata(PICTURE_SRC)}</src><base64>${cdata(base64(PICTURE))}</base64></img>`,
  el("description", `<p>输入两个整数 $a_i$ 和 <b>b</b>，输出它们的和。</p><p><img src="${PICTURE_SRC}" alt="" /></p>`),
  el("input", "<p>一行两个整数 a, b（0 &lt;= a, b &lt;= 10<sup>9</sup>）。</p>"),
  el("output", "<span class='md'>- 一个整数\n- 末尾换行 ]]> 无妨</span>"),
  el("sample_input", "1 2\n") + el("sample_output", "3\n"),
  el("sample_input", "007 0\n") + el("sample_output", "7\n"),
  el("test_input", "2 3\r\n", ' name="b"') + el("test_input", "  1000000000 1000000000  \n", ' name="a"'),
  el("test_output", "2000000000\n", ' name="a"') + el("test_output", "5\r\n", ' name="b"'),
  el("hint", ""),
  el("source", "程序设计基础 第一周"),
  el(
    "solution",
    '#include <stdio.h>\nint main(){long long a,b;scanf("%lld%lld",&a,&b);printf("%lld\\n",a+b);}',
    ' language="C"',
  ),
  el("template", "#include <stdio.h>\nint main() {\n}\n", ' language="C"'),
  el(
    "solution",
    "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<'\\n';}",
    ' language="C++"',
  ),
  el("solution", "print(sum(map(int, input().split())))\n", ' language="Python"'),
  el("solution", "var a, b: int64;\nbegin readln(a, b); writeln(a + b); end.\n", ' language="Pascal"'),
);
const FLOAT_SPJ = `#include <stdio.h>
#include <math.h>
/* HUSTOJ's order: spj input answer output; exit 0 accepted. */
int main(int argc, char *argv[]) {
  FILE *answer = fopen(argv[2], "r"), *output = fopen(argv[3], "r");
  double want, got;
  while (fscanf(answer, "%lf", &want) == 1)
    if (fscanf(output, "%lf", &got) != 1 || fabs(got - want) > 1e-6 * fmax(1.0, fabs(want))) return 1;
  return 0;
}
`;
const CIRCLE = item(
  el("title", "圆的面积"),
  el("time_limit", "500", ' unit="ms"'),
  el("memory_limit", "65537", ' unit="kb"'),
  el("description", "<p>给定半径 r，输出圆的面积，误差不超过 10<sup>-6</sup>。</p>"),
  el("sample_input", "1\n") + el("sample_output", "3.14159265\n"),
  el("test_input", "2\n") + el("test_output", "12.5663706\n") + el("test_input", "0.5\n"),
  el("spj", FLOAT_SPJ, ' language="C"'),
);

describe("which uploads are FPS", () => {
  test("one .xml file whose root is <fps>, after a BOM, a declaration, a DOCTYPE and comments", () => {
    expect(isFps(upload(fps(SUM)))).toBe(true);
    expect(isFps(upload(`<!-- exported --><fps version="1.2"><item/></fps>`))).toBe(true);
    expect(isFps(upload('<?xml version="1.0"?><problem revision="3"/>'))).toBe(false);
    expect(isFps(new Map([...upload(fps(SUM)), ["other.xml", utf8("<fps/>")]]))).toBe(false);
    expect(isFps(new Map([["problem.yaml", utf8("name: x")]]))).toBe(false);
  });
});

describe("an FPS file of several items", () => {
  const [sum, circle] = readFps(upload(fps(SUM, CIRCLE)));

  test("becomes one problem per item, in order, with its own files", () => {
    expect([sum.title, circle.title]).toEqual(["两数之和", "圆的面积"]);
    expect(sum.format).toBe("fps");
    expect(sum.statements).toEqual([{ path: "export-1000-1002.xml", language: null }]);
    expect([...circle.files.keys()].sort()).toEqual([
      "data/1.in",
      "data/1.out",
      "data/2.in",
      "data/sample1.in",
      "data/sample1.out",
      "spj/spj.c",
    ]);
  });

  test("limits in s and ms, MB and KB (rounded up to a whole MB)", () => {
    expect([sum.timeMs, sum.memoryMb, circle.timeMs, circle.memoryMb]).toEqual([1000, 128, 500, 65]);
  });

  test("the statement: its sections as Markdown, Chinese intact, samples fenced, the image linked as written", () => {
    expect(sum.content).toBe(
      [
        "## Description",
        `输入两个整数 $a_i$ 和 **b**，输出它们的和。\n\n![](${PICTURE_SRC})`,
        "## Input",
        "一行两个整数 a, b（0 <= a, b <= 10<sup>9</sup>）。",
        "## Output",
        "- 一个整数\n- 末尾换行 ]]> 无妨",
        "## Sample Input 1\n\n```\n1 2\n```\n\n## Sample Output 1\n\n```\n3\n```",
        "## Sample Input 2\n\n```\n007 0\n```\n\n## Sample Output 2\n\n```\n7\n```",
        "## Source",
        "程序设计基础 第一周",
      ].join("\n\n"),
    );
    expect(circle.content).not.toContain("## Hint");
    expect(sum.attachments).toEqual([{ path: "statement/20240301101500_12345.png", name: PICTURE_SRC }]);
    expect(sum.files.get("statement/20240301101500_12345.png")).toEqual(PICTURE);
  });

  test("samples are pretests and tests secret, paired by name, their text as written (XML reads \\r\\n as \\n)", () => {
    expect(sum.cases).toEqual([
      { input: "data/sample1.in", answer: "data/sample1.out", category: "pretest", group: null },
      { input: "data/sample2.in", answer: "data/sample2.out", category: "pretest", group: null },
      { input: "data/1.in", answer: "data/1.out", category: "secret", group: null },
      { input: "data/2.in", answer: "data/2.out", category: "secret", group: null },
    ]);
    expect(
      [1, 2].map((n) => [decoded(sum.files.get(`data/${n}.in`)), decoded(sum.files.get(`data/${n}.out`))]),
    ).toEqual([
      ["2 3\n", "5\n"],
      ["  1000000000 1000000000  \n", "2000000000\n"],
    ]);
    expect(decoded(sum.files.get("data/sample2.in"))).toBe("007 0\n");
    expect(sum.compare).toEqual({ compare: "whitespace" });
    expect(sum.checker).toBeNull();
  });

  test("a special judge is a checker of HUSTOJ's protocol, and a test may then go without an output", () => {
    expect(circle.checker).toEqual({
      files: ["spj/spj.c"],
      compileArgs: ["gcc", "-O2", "-std=gnu11", "-o", "checker", "spj/spj.c", "-lm"],
      executeArgs: ["./checker"],
      protocol: "hustoj",
    });
    expect(decoded(circle.files.get("spj/spj.c"))).toBe(FLOAT_SPJ);
    expect(circle.compare).toBeNull();
    expect(circle.cases.slice(1).map((c) => c.answer)).toEqual(["data/1.out", null]);
  });

  test("solutions must be accepted, judged in their language; Pascal is skipped with the reason", () => {
    expect(sum.submissions.map((s) => [s.path, s.language, s.skipped])).toEqual([
      ["solutions/1.c", "c", null],
      ["solutions/2.cpp", "cpp", null],
      ["solutions/3.py", "python3", null],
      ["solutions/4.pas", null, "declared Pascal, which no language preset here runs"],
    ]);
    expect(sum.submissions[1]).toMatchObject({
      files: ["solutions/2.cpp"],
      expected: "solution",
      rules: [{ permitted: ["accepted"], required: [], source: '<solution language="C++">' }],
    });
    expect(decoded(sum.files.get("solutions/3.py"))).toBe("print(sum(map(int, input().split())))\n");
  });

  test("notes say what is left out or assumed", () => {
    expect(sum.notes).toContain('item 1 "两数之和": <template> code not imported');
    expect(sum.notes).toContain('item 1 "两数之和": <source> kept in the statement');
    expect(sum.notes.some((note) => note.includes("HUSTOJ's presentation error is accepted"))).toBe(true);
  });
});

describe("what an item may leave out or say otherwise", () => {
  test("no unit is seconds and MB; no limits are 1 s and 256 MB, noted; a fraction of a second is kept", () => {
    const [plain, bare, half] = readFps(
      upload(
        fps(
          item(el("title", "A&#44; B"), el("time_limit", "2"), el("memory_limit", "64"), test1),
          item(el("title", "B"), test1),
          item(el("title", "C"), el("time_limit", "0.5", ' unit="s"'), el("memory_limit", "512", ' unit="KB"'), test1),
        ),
      ),
    );
    expect([plain.timeMs, plain.memoryMb, bare.timeMs, bare.memoryMb, half.timeMs, half.memoryMb]).toEqual([
      2000, 64, 1000, 256, 500, 1,
    ]);
    expect(bare.notes).toEqual(expect.arrayContaining(['item 2 "B": no time limit given: 1 s']));
    // HUSTOJ keeps a title's commas as &#44;.
    expect(plain.title).toBe("A, B");
    expect(refusal(fps(item(el("title", "D"), el("time_limit", "1", ' unit="min"'), test1)))).toContain('item 1 "D"');
  });

  test("image names made safe, links kept as written; garbage left out, an image over the limit refused", () => {
    const image = (src: string, bytes = PICTURE) =>
      `<img><src>${cdata(src)}</src><base64>${base64(bytes)}</base64></img>`;
    const [problem] = readFps(
      upload(fps(item(el("title", "图"), image("../../../etc/passwd"), image("/var/www/x y.png"), test1))),
    );
    const garbage = `<img><src>a.png</src><base64>${base64(utf8("not a picture"))}</base64></img>`;
    const [left] = readFps(upload(fps(item(el("title", "坏图"), garbage, test1))));
    expect(left.attachments).toEqual([]);
    expect(left.notes).toContain(
      'item 1 "坏图": the image a.png is not PNG, JPEG, GIF, BMP, WebP or SVG data: not imported',
    );
    expect(problem.attachments).toEqual([
      { path: "statement/passwd.png", name: "../../../etc/passwd" },
      { path: "statement/x_y.png", name: "/var/www/x y.png" },
    ]);
    const huge = `<img><src>big.png</src><base64>${"A".repeat(Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 8)}</base64></img>`;
    expect(refusal(fps(item(el("title", "大图"), huge, test1)))).toContain(
      'item 1 "大图": the image big.png is larger',
    );
  });

  test("a testlib special judge needs testlib.h beside the file; with it, testlib's protocol", () => {
    const spj = el(
      "spj",
      '#include "testlib.h"\nint main(int c, char **v) { registerTestlibCmd(c, v); }',
      ' language="C++"',
    );
    const xml = fps(item(el("title", "T"), test1, spj));
    expect(refusal(xml)).toContain(
      'item 1 "T": its special judge includes testlib.h, which an FPS file does not carry',
    );
    const [problem] = readFps(upload(xml, { "testlib.h": "// the course's own copy\n" }));
    expect(problem.checker).toMatchObject({ files: ["spj/spj.cc", "spj/testlib.h"], protocol: "testlib" });
  });

  test("a solution beside <prepend> and <append> code is judged as written (they wrap users' submissions)", () => {
    const [problem] = readFps(
      upload(
        fps(
          item(
            el("title", "函数"),
            test1,
            el("append", "int main(){}", ' language="C"'),
            el("solution", "int main(){}", ' language="C"'),
          ),
        ),
      ),
    );
    expect(problem.submissions[0]).toMatchObject({ language: "c", path: "solutions/1.c" });
    expect(problem.submissions[0].skipped ?? null).toBeNull();
  });
});

describe("files we cannot honour are refused with the item and the reason", () => {
  test("no item, an item without tests, an output missing or empty without a special judge", () => {
    expect(refusal(fps())).toContain("<fps> holds no <item>");
    expect(refusal(fps(SUM, item(el("title", "空题"), el("description", "x"))))).toContain('item 2 "空题" has no test');
    const remote = item(el("title", "P1000"), el("remote_oj", "LUOGU"), el("remote_id", "P1000"));
    expect(refusal(fps(remote))).toContain("HUSTOJ judges it on LUOGU");
    expect(refusal(fps(item(el("title", "缺"), el("test_input", "1\n"))))).toContain(
      'item 1 "缺": test 1 has no <test_output>',
    );
    expect(refusal(fps(item(el("title", "空"), el("test_input", "1\n"), el("test_output", ""))))).toContain(
      "test 1 has an empty <test_output>",
    );
  });

  test("malformed XML, an entity bomb, interactive and text judges", () => {
    expect(refusal(fps("<item><title>x</title>"))).toContain("is not well-formed XML");
    const lol = '<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">';
    const bomb = `<?xml version="1.0"?><!DOCTYPE fps [<!-- <fps> -->${lol}]><fps><item><title>&b;</title></item></fps>`;
    expect(refusal(bomb)).toContain("declares entities (<!ENTITY> in its DOCTYPE)");
    const interactive = item(el("title", "猜数"), test1, el("interactor", "int main(){}", ' language="C++"'));
    expect(refusal(fps(interactive))).toContain('item 1 "猜数" is interactive');
    expect(refusal(fps(item(el("title", "填空"), test1, '<spj language="Text">text judge</spj>')))).toContain(
      "raw text judge",
    );
  });

  test("a file in GBK is read when it says so, and refused when it does not", () => {
    const gbk = (declaration: string) =>
      new Uint8Array([
        ...utf8(`${declaration}<fps><item><title>`),
        ...[0xc4, 0xe3, 0xba, 0xc3],
        ...utf8("</title><test_input>1</test_input><test_output>1</test_output></item></fps>"),
      ]);
    expect(readFps(upload(gbk('<?xml version="1.0" encoding="GBK"?>')))[0].title).toBe("你好");
    expect(refusal(gbk(""))).toContain("is not valid utf-8 text");
  });
});

describe("text survives CDATA", () => {
  // Characters XML 1.0 allows, and no `&…;` reference: HUSTOJ's titles are HTML text, so those are decoded.
  // An XML parser reads every line end as \n (libxml2, which HUSTOJ imports with, does the same).
  const lines = (text: string) => text.replace(/\r\n?/g, "\n");
  const xmlText = fc
    .string({ unit: "grapheme", minLength: 1, maxLength: 40 })
    .map((s) => [...s].filter((c) => (c >= " " || "\t\n\r".includes(c)) && c !== "\ufffe" && c !== "\uffff").join(""))
    .filter((s) => s.trim() !== "" && !/&(#x?[0-9a-f]+|[a-z]+);/i.test(s));

  test("property: any title comes back trimmed, any sample verbatim in its file and its block", () => {
    fc.assert(
      fc.property(xmlText, xmlText, (title, sample) => {
        const parts = [el("title", title), el("sample_input", sample), el("sample_output", "x"), test1];
        const [problem] = readFps(upload(fps(item(...parts))));
        expect(problem.title).toBe(lines(title).trim());
        expect(problem.content.startsWith("## Sample Input\n\n`")).toBe(true);
        expect(problem.content).toContain(`\n${lines(sample).replace(/\n+$/, "")}\n\``);
        expect(decoded(problem.files.get("data/sample1.in"))).toBe(lines(sample));
      }),
      { numRuns: 200 },
    );
  });

  test("property: plain words of any script in a description come through unchanged", () => {
    const word = fc.string({ unit: "grapheme", minLength: 1, maxLength: 8 }).filter((s) => /^[\p{L}\p{N}]+$/u.test(s));
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), (words) => {
        const text = words.join(" ");
        const [problem] = readFps(upload(fps(item(el("title", "T"), el("description", `<p>${text}</p>`), test1))));
        expect(problem.content).toBe(`## Description\n\n${text}`);
      }),
      { numRuns: 200 },
    );
  });
});
