import type { CheckerInput } from "../../../core/config-model/config-schema";
import { attrOf, encoder, first, list, textOf } from "./fps-xml";
import type { Node } from "./fps-xml";
import { LANGUAGES } from "../model/package-config";
import { languageOf } from "../model/package-languages";
import { programOf, refuse } from "../model/package-model";
import type { PackageSubmission } from "../model/package-model";

/**
 * An FPS item's programs (docs/problem-packages.md "FPS"): its special judge, built as our checker, and its
 * solutions, each expected to be accepted and judged in the language its `language` attribute names.
 */

/** HUSTOJ's language names (and the extensions other OJs write instead) and the extension a source gets. */
const EXTENSIONS: Record<string, string> = {
  c: "c",
  clang: "c",
  "c++": "cpp",
  "clang++": "cpp",
  cc: "cpp",
  cpp: "cpp",
  java: "java",
  python: "py",
  python3: "py",
  py: "py",
  pascal: "pas",
  pas: "pas",
  go: "go",
  rust: "rs",
  javascript: "js",
  js: "js",
  ruby: "rb",
  bash: "sh",
  php: "php",
  perl: "pl",
  "c#": "cs",
  lua: "lua",
  fortran: "f95",
};

/**
 * `<tpj>` (HUSTOJ prefers it) or `<spj>`, in C or C++: HUSTOJ's protocol, or testlib's when it includes
 * testlib.h, which FPS does not carry: the upload must bring it beside the .xml file.
 */
export function checkerOf(
  item: Node,
  where: string,
  testlib: Uint8Array | null,
  files: Map<string, Uint8Array>,
  notes: string[],
): CheckerInput | null {
  const [tpj, spj] = [first(item, "tpj"), first(item, "spj")];
  const node = textOf(tpj).trim() ? tpj : textOf(spj).trim() ? spj : null;
  if (node === tpj && textOf(spj).trim()) notes.push(`${where}: <spj> left out: <tpj> judges, as in HUSTOJ`);
  if (node === null) {
    if (spj !== undefined || tpj !== undefined) notes.push(`${where}: an empty <spj> is no special judge`);
    return null;
  }
  const language = (attrOf(node, "language") ?? "").trim();
  if (/^text$/i.test(language))
    throw refuse(`${where} is judged by HUSTOJ's raw text judge (<spj language="Text">), which is not supported`);
  const cpp = /^(c\+\+|clang\+\+|cc|cpp|g\+\+)$/i.test(language);
  if (!cpp && !/^(c|clang|gcc|)$/i.test(language))
    throw refuse(`${where}: a special judge in ${language}: only C and C++ ones are supported`);
  const source = textOf(node);
  const path = `spj/spj.${cpp ? "cc" : "c"}`;
  files.set(path, encoder.encode(source));
  const built = programOf([path], "checker", where);
  if (!/#\s*include\s*[<"]testlib\.h[>"]/.test(source))
    return { ...built, protocol: node === tpj ? "testlib" : "hustoj" };
  if (!testlib)
    throw refuse(
      `${where}: its special judge includes testlib.h, which an FPS file does not carry: ` +
        "upload a zip holding the .xml file and testlib.h",
    );
  files.set("spj/testlib.h", testlib);
  // Beside the source, where its #include "testlib.h" finds it.
  return { ...built, files: [path, "spj/testlib.h"], protocol: "testlib" };
}

/**
 * Each `<solution>` must be accepted, judged as written: HUSTOJ wraps users' submissions in the item's
 * `<prepend>` and `<append>`, never the item's own solutions, which are whole programs.
 */
export function solutionsOf(
  item: Node,
  where: string,
  files: Map<string, Uint8Array>,
  notes: string[],
): PackageSubmission[] {
  const parts = ["prepend", "template", "append"].filter((tag) => list(item[tag]).length > 0);
  if (parts.length > 0) notes.push(`${where}: ${parts.map((tag) => `<${tag}>`).join(", ")} code not imported`);
  return list(item.solution).flatMap((node, i) => {
    const language = (attrOf(node, "language") ?? "").trim();
    const source = textOf(node);
    if (!source.trim()) {
      notes.push(`${where}: solution ${i + 1} (${language || "no language"}) is empty: left out`);
      return [];
    }
    const path = `solutions/${i + 1}.${EXTENSIONS[language.toLowerCase()] ?? "txt"}`;
    files.set(path, encoder.encode(source));
    const rule = { permitted: ["accepted" as const], required: [], source: `<solution language="${language}">` };
    const choice = languageOf([path], files, LANGUAGES, language || null);
    return [{ path, files: [path], expected: "solution", rules: [rule], ...choice }];
  });
}
