import type { EntityManager } from "@mikro-orm/postgresql";
import { posix } from "node:path";
import { parseDocument } from "yaml";
import type { BlobStore } from "../../../storage/blob-store";
import type { ArchiveSource } from "../../problem-configs/archive-writer";
import type { Problem } from "../../problems/problem.entity";
import { ProblemAttachment, type PackageVerification } from "../package-verification.entity";
import { attachmentPath } from "../problem-packages.service";
import type { Exporting } from "./kattis-export-cases";
import { attachmentPlaces, markdownAsLatex, safeName, scriptLanguage, submissionFolder } from "./kattis-export-extras";
import { type KattisVersion, type VersionFacts, versionPath, versionYaml } from "./kattis-export-version";

/**
 * The files an export writes beside the cases (kattis-export.ts): interaction samples, a statement, attachments
 * and submissions for a problem from another format, then every path in the version's layout with its
 * problem.yaml, legacy's LaTeX statements and `.timelimit`, 2023-07-draft's validator flags.
 */

const STATEMENT = /^statement\/problem\.([a-z]{2,3}|[a-z]{2}-[A-Z]{2})\.(md|tex)$/;
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

interface Own {
  problem: Problem;
  imported: PackageVerification | null;
  /** Whether the files are a Kattis package's (imported from one, or a config upload). */
  kattis: boolean;
  interactive: boolean;
  version: KattisVersion;
}

export async function ownFiles(em: EntityManager, store: BlobStore, x: Exporting, own: Own) {
  // An interactive problem's samples may be shown as .interaction files only, with no case of their own.
  for (const [path, entry] of x.tree)
    if (
      own.interactive &&
      /^data\/sample\/[^/]+\.interaction$/.test(path) &&
      !x.tree.has(path.replace(/\.[^.]+$/, ".in"))
    )
      x.copy(path, entry);
  const hasStatement = [...x.out.keys()].some((path) => STATEMENT.test(path));
  if (own.kattis) {
    if (!hasStatement && own.problem.content)
      x.add(`statement/problem.${scriptLanguage(own.problem.content)}.md`, own.problem.content);
    return;
  }
  const rows = await em.find(ProblemAttachment, { problem: own.problem }, { orderBy: { name: "asc" } });
  const under = `${own.problem.domain.id}/problems/${own.problem.id}`;
  const stored = rows.map((row) => ({ name: row.name, digest: row.digest, url: attachmentPath(under, row.name) }));
  const { places, text } = attachmentPlaces(own.problem.content ?? "", stored);
  for (const place of places) x.add(place.path, await store.get(place.digest));
  if (text.trim()) x.add(`statement/problem.${scriptLanguage(text)}.md`, text);
  const taken = new Set<string>();
  for (const submission of own.imported?.submissions ?? []) {
    const folder = submissionFolder(submission.expected, own.version);
    if (!folder || !x.tree.has(submission.path)) continue;
    x.copyFrom(`submissions/${folder}/${safeName(posix.basename(submission.path), taken)}`, submission.path);
  }
}

/** The package in `version`'s layout, sorted by path. */
export async function versionFiles(
  x: Exporting,
  version: KattisVersion,
  facts: VersionFacts,
  validatorName: string,
): Promise<ArchiveSource[]> {
  if (version === "2023-07-draft" && facts.flags.length > 0) {
    // problemtools reads the validator's flags from testdata.yaml (output_validator_flags), inherited by every group.
    const doc = parseDocument((await x.exported("data/testdata.yaml")) ?? "");
    const yaml = doc.errors.length > 0 || !(doc.contents && "set" in doc.contents) ? parseDocument("{}") : doc;
    yaml.set("output_validator_flags", facts.flags.join(" "));
    x.add("data/testdata.yaml", yaml.toString({ lineWidth: 0 }));
  }
  if (version === "legacy") await legacyStatements(x, facts.names);
  const limits = facts.yaml.limits as Record<string, unknown> | undefined;
  if (version === "legacy" && typeof limits?.time_limit === "number") x.add(".timelimit", `${limits.time_limit}\n`);
  x.add("problem.yaml", versionYaml(version, facts));
  const files = [...x.out.values()].map((file) => ({ ...file, path: versionPath(version, file.path, validatorName) }));
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Legacy statements are LaTeX, each naming the problem (\problemname): a Markdown one gets a LaTeX twin (the
 * Markdown stays, which import shows first), a LaTeX one without a name gets it.
 */
async function legacyStatements(x: Exporting, names: Record<string, string>) {
  for (const [path, file] of [...x.out]) {
    const match = STATEMENT.exec(path);
    if (!match) continue;
    const [, language, kind] = match;
    const name = names[language] ?? Object.values(names)[0] ?? "";
    const tex = `statement/problem.${language}.tex`;
    const text = decode(await file.read());
    if (kind === "md" && !x.out.has(tex)) x.add(tex, markdownAsLatex(text, name));
    if (kind === "tex" && !/\\problemname\s*\{/.test(text)) x.add(path, `\\problemname{${name}}\n${text}`);
  }
}
