import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../core/errors";
import { identityKey } from "../identity/credentials/names";
import type { DomainAccess } from "../identity/access";
import { User } from "../users/user.entity";
import { DomainUser } from "./domain-user.entity";
import { toUserDetailWithDomainRole } from "./members.service";
import type { UserDetailWithDomainRoleView } from "./members.schemas";

export const CANDIDATE_LIMIT = 10;

/**
 * Users an editor may add to the domain, members of other domains included (Horse's join dropped
 * them). Names match by substring; e-mail and student id only exactly, so the search cannot be used
 * to harvest them. A candidate's e-mail and student id are shown only when the editor already typed
 * them or the candidate is a member here; addresses and IPs never.
 */
export async function searchCandidates(
  em: EntityManager,
  access: DomainAccess,
  text: string,
  ordering: string | undefined,
): Promise<UserDetailWithDomainRoleView[]> {
  const direction = candidateOrder(ordering);
  const needle = text.trim();
  const key = identityKey(needle);
  const pattern = `%${key.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const users = await em.find(
    User,
    {
      isActive: true,
      $or: [
        { usernameLower: { $like: pattern } },
        { realName: { $ilike: pattern } },
        { emailLower: key },
        { studentId: needle },
      ],
    },
    { orderBy: { usernameLower: direction, id: "asc" }, limit: CANDIDATE_LIMIT },
  );
  const memberships = await em.find(DomainUser, { domain: access.domain, user: { $in: users.map((u) => u.id) } });
  const byUser = new Map(memberships.map((m) => [(m.user as unknown as User).id, m]));
  return users.map((user) => {
    const membership = byUser.get(user.id) ?? null;
    const view = toUserDetailWithDomainRole(user, membership, access.domainId);
    const typedExactly = user.emailLower === key || (user.studentId !== "" && user.studentId === needle);
    return {
      ...view,
      email: membership || typedExactly ? view.email : "",
      studentId: membership || typedExactly ? view.studentId : "",
      registerIp: "",
      loginIp: "",
    };
  });
}

function candidateOrder(ordering: string | undefined): "asc" | "desc" {
  const token = (ordering ?? "").trim();
  if (token === "" || token === "username") return "asc";
  if (token === "-username") return "desc";
  throw new BizError("IllegalFieldError", `${token} is not available in ordering fields`);
}
