import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../settings/config";
import type { Logger } from "../core/logger";
import { connectPostgres } from "./database";
import { consoleNotice, judgeBlocker, thisMachine } from "../runtime/judge-tools";
import { createJudgerAccount } from "../modules/admin/admin.service";
import { authenticateAccessKey } from "../modules/identity/credentials/access-keys.service";

interface LocalKey {
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * `bun run start` judges out of the box: the built-in judge gets a judger account of its own, made
 * once and its key kept under DATA_DIR (0600), like the JWT secret. Returns false, with the reason
 * logged and shown on the console, when this machine cannot judge (not root, no bubblewrap, no gcc):
 * records then wait for a judger.
 * A key given in the environment is used as it is.
 * A start-up step of the composition (it connects the ORM over every entity), so it lives here, beside
 * database.ts, and only start.ts imports it.
 */
export async function prepareLocalJudger(config: Config, logger: Logger): Promise<{ judge: boolean; notice?: string }> {
  const blocker = judgeBlocker(thisMachine());
  if (blocker) {
    logger.warn("the judge worker is not started; records wait for a judger", { why: blocker.why, fix: blocker.fix });
    // A log line scrolls past unread: the caller shows this on the console, last, where a new user looks.
    const notice = consoleNotice("Submissions will NOT be judged: the built-in judge cannot start.", [
      `Why: ${blocker.why}.`,
      `Fix: ${blocker.fix}`,
      "Then start again. Until then every submission waits for a judge.",
    ]);
    return { judge: false, notice };
  }
  process.env.JUDGE_SERVER_URL ??= `http://127.0.0.1:${config.port}`;
  if (process.env.JUDGER_ACCESS_KEY_ID) return { judge: true };
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, "judger-key.json");
  const orm = await connectPostgres(config.databaseUrl, { poolMax: 1 });
  try {
    const em = orm.em.fork();
    let key: LocalKey | null = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as LocalKey) : null;
    if (!key || !(await authenticateAccessKey(em, key.accessKeyId, key.secretAccessKey))) {
      const suffix = randomBytes(3).toString("hex");
      const made = await createJudgerAccount(
        em,
        {
          username: `local-judge-${suffix}`,
          email: `local-judge-${suffix}@judges.invalid`,
          password: randomBytes(32).toString("hex"),
        },
        "127.0.0.1",
      );
      key = { accessKeyId: made.key.keyId, secretAccessKey: made.key.secret };
      writeFileSync(file, JSON.stringify(key), { mode: 0o600 });
      logger.info("made a judger account for the built-in judge", { accessKeyId: key.accessKeyId });
    }
    process.env.JUDGER_ACCESS_KEY_ID = key.accessKeyId;
    process.env.JUDGER_SECRET_ACCESS_KEY = key.secretAccessKey;
    return { judge: true };
  } finally {
    await orm.close();
  }
}
