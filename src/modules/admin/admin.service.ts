import type { EntityManager } from "@mikro-orm/postgresql";
import type { TokenCodec, TokenLifetimes } from "../identity/credentials/tokens";
import type { ListPage, ListQuery } from "../../db/listing";
import { isoTime } from "../../http/schemas";
import { createAccount, startSession } from "../identity/sessions/auth.service";
import { createAccessKey } from "../identity/credentials/access-keys.service";
import { listUsers, toUserView } from "../users/users.service";
import type { JudgerPresence } from "../../runtime/judger-presence";
import type { JudgerCreateInput, JudgerDetailView } from "./admin.schemas";
import { audit, type AuditActor } from "../audit/audit.service";

/**
 * A judger account (site role `judger`) and its access key in one transaction: either both exist
 * afterwards or neither (Horse left half-created judgers when its storage call failed).
 */
export function createJudgerAccount(em: EntityManager, input: JudgerCreateInput, ip: string) {
  return em.transactional(async (tx) => {
    const user = await createAccount(tx, { ...input, role: "judger", ip });
    return { user, key: await createAccessKey(tx, user) };
  });
}

/**
 * `POST /admin/judgers`: the account, its key, and a session for it. The audit event (never the
 * password or the key's secret) is written in the account's transaction.
 */
export async function createJudger(
  em: EntityManager,
  codec: TokenCodec,
  lifetimes: TokenLifetimes,
  input: JudgerCreateInput,
  actor: AuditActor & { ip: string },
) {
  const { user, key } = await em.transactional(async (tx) => {
    const made = await createJudgerAccount(tx, input, actor.ip);
    audit(tx, actor, {
      action: "judger.create",
      target: { type: "user", id: made.user.id },
      after: { username: made.user.username, email: made.user.email },
    });
    return made;
  });
  const tokens = await startSession(codec, user, lifetimes);
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    tokenType: tokens.tokenType,
    accessKeyId: key.keyId,
    secretAccessKey: key.secret,
  };
}

export async function listJudgers(
  em: EntityManager,
  presence: JudgerPresence,
  aliveSeconds: number,
  query: ListQuery,
): Promise<ListPage<JudgerDetailView>> {
  const page = await listUsers(em, query, { role: "judger" });
  const seen = await presence.lastSeen(page.results.map((u) => u.id));
  const now = Date.now();
  const results = page.results.map((user) => {
    const lastSeen = seen.get(user.id) ?? null;
    return {
      ...toUserView(user),
      createdAt: isoTime(user.createdAt),
      updatedAt: isoTime(user.updatedAt),
      isAlive: lastSeen !== null && now - lastSeen.getTime() <= aliveSeconds * 1000,
      lastSeenAt: isoTime(lastSeen),
    };
  });
  return { count: page.count, results };
}
