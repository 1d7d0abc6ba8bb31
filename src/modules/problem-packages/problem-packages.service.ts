import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import type { PackageProblemRead, PackageRead } from "../../jobs/catalogue";
import { encodeStrictly } from "../../http/respond";
import type { DomainAccess } from "../identity/access";
import { commitVersion } from "../problem-configs/versions.service";
import { createProblem } from "../problems/problems.service";
import type { Problem } from "../problems/problem.entity";
import { PackageVerification, ProblemAttachment } from "./package-verification.entity";

/**
 * A package becomes problems (docs/problem-packages.md): each problem, its first config version, the files it
 * shows solvers and its import record (notes, the submissions to verify) in one transaction, from what the
 * `package.read` job read, so a refusal at any step leaves nothing, for every problem of the file.
 */

const FORMAT_NAMES = { kattis: "Kattis", polygon: "Polygon", fps: "FPS", hydro: "Hydro" } as const;

export interface ImportedProblem {
  problem: Problem;
  read: PackageProblemRead;
  verification: PackageVerification;
}

export async function createFromPackage(
  em: EntityManager,
  access: DomainAccess,
  read: PackageRead,
  input: { url?: string; hidden?: boolean },
): Promise<ImportedProblem[]> {
  if (input.url && read.problems.length > 1)
    throw new BizError("Error", `url names one problem, and this package holds ${read.problems.length}`);
  return em.transactional(async (tx) => {
    const imported: ImportedProblem[] = [];
    // Each problem in an entity manager of its own, inside the one transaction: a flush then looks at this
    // problem's rows alone, not at every problem made before it (a 500-item FPS file took 50 s to create,
    // its flushes growing with the identity map, before).
    for (const one of read.problems) imported.push(await createOne(tx.fork({ keepTransactionContext: true }), one));
    return imported;
  });

  async function createOne(tx: EntityManager, one: PackageProblemRead): Promise<ImportedProblem> {
    const problem = await createProblem(tx, access, {
      url: input.url,
      title: one.title,
      content: one.content,
      hidden: input.hidden ?? false,
    });
    await commitVersion(tx, {
      problem,
      committer: access.user,
      tree: one.tree,
      languages: one.languages,
      message: `imported from a ${FORMAT_NAMES[read.format]} package`,
      audited: { action: "problem_config.upload_archive", ip: access.ip },
    });
    for (const { name, digest, size } of one.attachments) tx.create(ProblemAttachment, { problem, name, digest, size });
    // The statement links its images by their names in the package: now they have an address.
    problem.content = linkAttachments(one.content, one.attachments, `${access.domainId}/problems/${problem.id}`);
    const verification = tx.create(PackageVerification, {
      problem,
      format: read.format,
      notes: one.notes,
      fullScore: one.fullScore,
      casePaths: one.casePaths,
      submissions: one.submissions.map((s) => ({ ...s, record: null })),
    });
    await tx.flush();
    return { problem, read: one, verification };
  }
}

/**
 * Where an attachment is served (problem-packages.routes.ts), below /api/v1/domains/: each segment of its
 * name encoded strictly, so the url also survives being written into the statement's Markdown and HTML.
 */
export const attachmentPath = (under: string, name: string) =>
  `/api/v1/domains/${under}/attachments/${name.split("/").map(encodeStrictly).join("/")}`;

/**
 * The statement's links to attachments by name (Markdown `](name)`, HTML `src="name"` and `href="name"`,
 * `./name`, Hydro's `file://name`, URL-encoded or not) as links to where they are served; other links as
 * they are.
 */
export function linkAttachments(
  content: string,
  attachments: { name: string; link?: string }[],
  under: string,
): string {
  if (attachments.length === 0) return content;
  const served = new Map(attachments.map((a) => [a.link ?? a.name, a.name]));
  const lookup = (name: string) => served.get(name) ?? served.get(`file://${name}`);
  const target = (link: string) => {
    let name = link.replace(/^(\.\/|file:\/\/)/, "");
    const exact = lookup(link) ?? lookup(name);
    if (exact) return attachmentPath(under, exact);
    try {
      name = decodeURI(name);
    } catch {
      // A malformed %-escape: not a name of ours.
    }
    // Hydro's `file://x.pdf?noDisposition=1`: the name before its query.
    const found = lookup(name) ?? lookup(name.split("?")[0]);
    return found ? attachmentPath(under, found) : link;
  };
  return content
    .replace(/(\]\(\s*<)([^>\n]+)(?=>)/g, (_, before: string, link: string) => before + target(link))
    .replace(/(\]\(\s*)([^)\s<>]+)/g, (_, before: string, link: string) => before + target(link))
    .replace(
      /(\b(?:src|href)\s*=\s*)(["'])([^"']*)\2/gi,
      (_, before, quote, link) => before + quote + target(link) + quote,
    );
}
