import type { EntityManager } from "@mikro-orm/postgresql";
import type { PackageRead } from "../../jobs/catalogue";
import type { DomainAccess } from "../identity/access";
import { commitVersion } from "../problem-configs/versions.service";
import { createProblem } from "../problems/problems.service";
import type { Problem } from "../problems/problem.entity";

/**
 * A package becomes a problem (docs/running-a-course.md "Problem packages"): the problem and its first config
 * version in one transaction, from what the `package.read` job read, so a refusal at any step leaves nothing.
 */
export async function createFromPackage(
  em: EntityManager,
  access: DomainAccess,
  read: PackageRead,
  input: { url?: string; hidden?: boolean },
): Promise<Problem> {
  return em.transactional(async (tx) => {
    const problem = await createProblem(tx, access, {
      url: input.url,
      title: read.title,
      content: read.content,
      hidden: input.hidden ?? false,
    });
    await commitVersion(tx, {
      problem,
      committer: access.user,
      tree: read.tree,
      languages: read.languages,
      message: `imported from a ${read.format === "kattis" ? "Kattis" : "Polygon"} package`,
      audited: { action: "problem_config.upload_archive", ip: access.ip },
    });
    return problem;
  });
}
