import { extname } from "node:path";
import { text } from "./package-model";

/**
 * The preset a package's submission is judged in (docs/problem-packages.md "Verification"), or why none judges
 * it faithfully: its declared language (Kattis's submissions.yaml `language`, FPS's `language` attribute), else
 * its extension as the Kattis languages table reads it, and then its first line: a file whose `#!` names
 * another interpreter (`#!/usr/bin/env python2` in a .py) is not judged in the wrong one.
 */

/** Extensions as the Kattis languages table gives them, for the languages we have presets of. */
const BY_EXTENSION: Record<string, string> = {
  ".c": "c",
  ".cc": "cpp",
  ".cpp": "cpp",
  ".cxx": "cpp",
  ".c++": "cpp",
  ".C": "cpp",
  ".py": "python3",
  ".py3": "python3",
  ".java": "java",
  ".go": "go",
  ".rs": "rust",
  ".js": "javascript",
};

/** Language names of the formats (Kattis codes, FPS and Hydro names), lower-cased, and our preset for each. */
const BY_NAME: Record<string, string> = {
  c: "c",
  clang: "c",
  cpp: "cpp",
  "c++": "cpp",
  "clang++": "cpp",
  cc: "cpp",
  python3: "python3",
  python: "python3",
  py: "python3",
  py3: "python3",
  java: "java",
  go: "go",
  golang: "go",
  rust: "rust",
  rs: "rust",
  javascript: "javascript",
  js: "javascript",
  nodejs: "javascript",
};

/** Interpreters a preset's files may name on their first line. */
const INTERPRETERS: Record<string, RegExp> = {
  python3: /^(python3(\.\d+)?|python|pypy3)$/,
  javascript: /^(node|nodejs)$/,
};

export type LanguageChoice = { language: string; skipped: null } | { language: null; skipped: string };

const skip = (skipped: string): LanguageChoice => ({ language: null, skipped });

/**
 * The preset for a submission of `paths` (one file; a folder of several is not judged), among `languages`
 * (the problem's), with the language the package declares for it, if any.
 */
export function languageOf(
  paths: string[],
  files: Map<string, Uint8Array>,
  languages: readonly string[],
  declared?: string | null,
): LanguageChoice {
  if (paths.length !== 1) return skip(`a program of ${paths.length} files: a submission here is judged as one file`);
  const [path] = paths;
  const extension = extname(path);
  const language = declared
    ? (BY_NAME[declared.toLowerCase()] ?? null)
    : (BY_EXTENSION[extension] ?? BY_EXTENSION[extension.toLowerCase()] ?? null);
  if (!language)
    return skip(
      declared
        ? `declared ${declared}, which no language preset here runs`
        : `no language preset runs ${extension ? `${extension} files` : "a file without an extension"}`,
    );
  if (!languages.includes(language)) return skip(`the problem's config has no ${language} language`);
  const firstLine = text(files.get(path)?.subarray(0, 256)).split("\n")[0];
  if (firstLine.startsWith("#!")) {
    const words = firstLine.slice(2).trim().split(/\s+/);
    const program = (words[0]?.endsWith("/env") ? words.find((w, i) => i > 0 && !w.startsWith("-")) : words[0]) ?? "";
    const interpreter = program.split("/").at(-1) ?? "";
    const allowed = INTERPRETERS[language];
    if (!allowed?.test(interpreter))
      return skip(`its first line declares ${interpreter || "an interpreter"} (${firstLine.trim()}), not ${language}`);
  }
  return { language, skipped: null };
}
