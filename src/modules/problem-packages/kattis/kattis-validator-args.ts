import type { PackageCase } from "../model/package-model";

type Yaml = Record<string, unknown>;
/** A settings file of the package as a mapping ({} when absent). */
type YamlFile = (path: string) => Yaml;

/**
 * The output validator's arguments, as each version of the format gives them:
 * - 2025-09: `output_validator_args` (a list) in `test_group.yaml` of data/sample, data/secret or a group;
 * - 2023-07-draft: `output_validator_flags` (one string; a later draft's `output_validator_args`, a string or a
 *   list) in `testdata.yaml` of data/ or any folder below it, inherited from the nearest folder that sets it;
 * - legacy: problem.yaml's `validator_flags`, when no settings file gives any (our own exports write both, the
 *   same flags: adding one to the other would double them).
 * The config has one set for every case: the first secret case's, with a note when other cases would get others.
 */
export function validatorArgs(yamlFile: YamlFile, yaml: Yaml, cases: PackageCase[], notes: string[]): string[] {
  const found = new Map<string, { from: string | null; args: string[] }>();
  for (const { input } of cases) {
    const dir = input.split("/").slice(0, -1).join("/");
    if (!found.has(dir)) found.set(dir, nearestArgs(yamlFile, dir));
  }
  const secret = cases.find((c) => c.category === "secret") ?? cases[0];
  const chosen = secret ? found.get(secret.input.split("/").slice(0, -1).join("/"))! : { from: null, args: [] };
  const others = [...found.values()].filter((set) => JSON.stringify(set.args) !== JSON.stringify(chosen.args));
  if (others.length > 0)
    notes.push(
      `the output validator's arguments differ between test data folders (${describe(others[0])}): ` +
        `${describe(chosen)} are used for every case`,
    );
  inputValidatorArgs(yamlFile, found, notes);
  if (chosen.from) return chosen.args;
  return String(yaml.validator_flags ?? (yaml.validation as Yaml | undefined)?.flags ?? "")
    .split(/\s+/)
    .filter(Boolean);
}

const describe = ({ from, args }: { from: string | null; args: string[] }) =>
  `${from ?? "none"}: ${JSON.stringify(args)}`;

/** Each folder from `dir` up to data/, nearest first. */
function foldersUp(dir: string): string[] {
  const parts = dir.split("/");
  return parts.map((_, i) => parts.slice(0, parts.length - i).join("/")).filter((d) => d.startsWith("data"));
}

/** The arguments set nearest to the folder's cases, and the file that sets them (null: none does). */
function nearestArgs(yamlFile: YamlFile, dir: string): { from: string | null; args: string[] } {
  for (const folder of foldersUp(dir))
    for (const name of ["test_group.yaml", "testdata.yaml"]) {
      const path = `${folder}/${name}`;
      const settings = yamlFile(path);
      for (const key of ["output_validator_args", "output_validator_flags"]) {
        const args = argsOf(settings[key]);
        if (args) return { from: `${path} ${key}`, args };
      }
    }
  return { from: null, args: [] };
}

/** A list, or one string of space-separated flags (legacy's map form gives its `flags`); null when not set. */
function argsOf(value: unknown): string[] | null {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === "string") return value.split(/\s+/).filter(Boolean);
  if (value && typeof value === "object" && "flags" in value) return argsOf((value as Yaml).flags);
  return null;
}

/** Input validators are kept in the package, not run here: flags given for them are said to do nothing. */
function inputValidatorArgs(yamlFile: YamlFile, found: Map<string, unknown>, notes: string[]) {
  const folders = new Set([...found.keys()].flatMap(foldersUp));
  for (const folder of [...folders].sort())
    for (const name of ["test_group.yaml", "testdata.yaml"])
      for (const key of ["input_validator_args", "input_validator_flags"])
        if (yamlFile(`${folder}/${name}`)[key] !== undefined)
          notes.push(`${folder}/${name}: ${key} kept in the file; input validators are not run here`);
}
