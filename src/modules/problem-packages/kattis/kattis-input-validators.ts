import type { InputValidatorInput } from "../../../core/config-model/config-schema";
import { programOf } from "../model/package-model";

/**
 * A Kattis package's input validators: each file or folder of input_format_validators/ (legacy's first name, the
 * one problemtools reads first) or else input_validators/ is one program, run on every test input (exit 42 valid,
 * 43 invalid). Kept in config.json for the export, never run here; one we could not build (a build/run script, a
 * VIVA file, another language) stays among the files with a note, as every input validator did before.
 */
export function kattisInputValidators(files: Map<string, Uint8Array>, notes: string[]): InputValidatorInput[] {
  const paths = [...files.keys()];
  const folder = ["input_format_validators", "input_validators"].find((name) =>
    paths.some((path) => path.startsWith(`${name}/`)),
  );
  if (!folder) return [];
  const entries = new Map<string, string[]>();
  for (const path of paths.filter((p) => p.startsWith(`${folder}/`)).sort()) {
    const name = path.split("/")[1];
    entries.set(name, [...(entries.get(name) ?? []), path]);
  }
  return [...entries].flatMap(([name, sources]): InputValidatorInput[] => {
    const where = `${folder}/${name}`;
    if (sources.length === 1 && sources[0].endsWith(".ctd"))
      return [{ files: sources, executeArgs: ["checktestdata", sources[0]], protocol: "checktestdata" as const }];
    if (sources.some((path) => path === `${where}/build` || path === `${where}/run`)) {
      notes.push(`${where}: a program with build and run scripts, kept among the files (not named in config.json)`);
      return [];
    }
    try {
      const program = programOf(sources, name.replace(/\.[^.]*$/, "").replace(/[^\w.-]/g, "_") || "validator", where);
      return [{ ...program, protocol: "kattis" as const }];
    } catch {
      notes.push(`${where}: no C, C++ or single Python source, kept among the files (not named in config.json)`);
      return [];
    }
  });
}
