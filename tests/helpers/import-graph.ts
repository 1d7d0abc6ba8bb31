import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The project's import graph as TypeScript sees it, type imports included: every `import … from`,
 * `export … from` and `import("…")` of a file, resolved to files of the repository or named as packages.
 */
export const ROOT = resolve(import.meta.dir, "../..");
const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^import\s+["']([^"']+)["']/gm;

export interface Imports {
  files: string[];
  packages: string[];
}

const cache = new Map<string, Imports>();

/** A file's direct imports: repository files (relative to the root) and package names. */
export function importsOf(file: string): Imports {
  const known = cache.get(file);
  if (known) return known;
  const text = readFileSync(join(ROOT, file), "utf8");
  const found: Imports = { files: [], packages: [] };
  for (const match of text.matchAll(SPECIFIER)) {
    const spec = match[1] ?? match[2] ?? match[3];
    if (spec.startsWith(".")) {
      const base = resolve(ROOT, dirname(file), spec);
      const target = [base, `${base}.ts`, join(base, "index.ts")].find((p) => existsSync(p) && !p.endsWith("/"));
      if (target && /\.(ts|mjs|js)$/.test(target)) found.files.push(relative(ROOT, target));
    } else if (!spec.startsWith("node:") && spec !== "bun" && spec !== "bun:test") {
      found.packages.push(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);
    }
  }
  cache.set(file, found);
  return found;
}

/** Every file reachable from the entry files, and every package they import. */
export function closureOf(entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const stack = [...entries];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const { files: next, packages: used } = importsOf(file);
    for (const name of used) packages.add(name);
    stack.push(...next);
  }
  return { files, packages };
}

/** The import cycles among `files` (Tarjan's strongly connected components of more than one file, or a self-import). */
export function cyclesAmong(files: string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let counter = 0;
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const next of importsOf(file).files) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || importsOf(file).files.includes(file)) cycles.push(component.sort());
    }
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return cycles;
}
