import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import { contentDisposition } from "../../http/respond";
import type { BlobStore } from "../../storage/blob-store";
import type { Problem } from "../problems/problem.entity";
import { ProblemAttachment } from "./package-verification.entity";
import { attachmentPath } from "./problem-packages.service";

/**
 * A problem's attachments (docs/problem-packages.md "Statements and attachments"): the images its statement
 * links and the files its package gives solvers, served by name to whoever may see the problem. A served
 * file is never a page of ours: no sniffing, a sandboxing policy (an SVG's script runs nowhere), and only
 * images shown inline.
 */

const INLINE = /^image\/(png|jpeg|gif|webp|svg\+xml)$/;

export const attachmentLinks = (domainId: string, problemId: string, list: { name: string; size: number }[]) =>
  list.map(({ name, size }) => ({ name, size, url: attachmentPath(`${domainId}/problems/${problemId}`, name) }));

export async function storedAttachments(em: EntityManager, domainId: string, problem: Problem) {
  const rows = await em.find(ProblemAttachment, { problem }, { orderBy: { name: "asc" } });
  return attachmentLinks(domainId, problem.id, rows);
}

/**
 * The attachment's name from the path below …/attachments/, as attachmentPath encoded it. Elysia hands a
 * wildcard on undecoded (and Bun's own router never serves one), so it is decoded here, exactly once. A
 * malformed escape or a NUL (which no stored name holds, and PostgreSQL refuses) names nothing.
 */
export function attachmentName(encoded: string): string {
  let name: string | null = null;
  try {
    name = decodeURIComponent(encoded);
  } catch {
    // A malformed %-escape.
  }
  if (name === null || name.includes("\0"))
    throw new BizError("FileDownloadError", `the problem has no attachment ${JSON.stringify(encoded)}`);
  return name;
}

export async function attachmentBody(em: EntityManager, store: BlobStore, problem: Problem, name: string) {
  const found = await em.findOne(ProblemAttachment, { problem, name });
  if (!found) throw new BizError("FileDownloadError", `the problem has no attachment ${JSON.stringify(name)}`);
  const bytes = await store.get(found.digest);
  const type = Bun.file(name).type.split(";")[0] || "application/octet-stream";
  const inline = INLINE.test(type);
  return new Response(bytes, {
    headers: {
      "content-type": inline ? type : "application/octet-stream",
      "content-disposition": contentDisposition(inline ? "inline" : "attachment", name.split("/").at(-1) || "file"),
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      "cache-control": "private, max-age=300",
    },
  });
}
