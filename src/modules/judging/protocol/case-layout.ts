import type { EntityManager } from "@mikro-orm/postgresql";
import type { BlobStore } from "../../../storage/blob-store";
import { ProblemConfig } from "../../problem-configs/problem-config.entity";
import { readConfigJson } from "../../problem-configs/configs.service";
import { resolveLanguages } from "../../../core/config-model/config-json";
import { BoundedMap } from "../../../runtime/bounded-map";
import { parseTime } from "../../../core/config-model/limits";

/** Case categories whose output every viewer of the record may read (the rest need `record.detail`). */
export const PUBLIC_CASE_CATEGORIES = new Set(["sample", "pretest"]);

export interface CaseLayout {
  /** One category per case of the record's language, in order. */
  categories: string[];
  /** Each case's CPU time limit, in ms (the Contest API's time limit). */
  timesMs: number[];
  /** The most a record can score: every subtask, and every case in none (the Contest API's max_score). */
  maxScore: number;
}

// Config versions are immutable, so a layout never goes stale; the bound keeps memory flat.
const cache = new BoundedMap<string, CaseLayout>(2000);

/**
 * The cases a record's pinned config version defines for its language, or null when the version is
 * gone (deleted problem, collected version) or no longer lists the language.
 */
export async function caseLayout(
  em: EntityManager,
  store: BlobStore,
  configId: string | null,
  language: string,
): Promise<CaseLayout | null> {
  if (!configId) return null;
  const key = `${configId}\0${language}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const version = await em.findOne(ProblemConfig, { id: configId });
  if (!version) return null;
  const resolved = resolveLanguages(await readConfigJson(em, store, version)).find((l) => l.name === language);
  if (!resolved) return null;
  const grouped = new Set(resolved.subtasks.flatMap((subtask) => subtask.cases));
  const layout = {
    categories: resolved.cases.map((c) => c.category),
    timesMs: resolved.cases.map((c) => parseTime(c.time)),
    maxScore:
      resolved.subtasks.reduce((sum, subtask) => sum + subtask.score, 0) +
      resolved.cases.reduce((sum, c, i) => sum + (grouped.has(i) ? 0 : c.score), 0),
  };

  cache.set(key, layout);
  return layout;
}
