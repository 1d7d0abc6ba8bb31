import type { EntityManager } from "@mikro-orm/postgresql";
import { BizError } from "../../../core/errors";
import { row } from "../../../db/statements";
import { PIN_SQL } from "../judging.sql";
import { BoundedMap } from "../../../runtime/bounded-map";
import { JudgeRecord } from "../../records/record.entity";

/** What the claim and the reports share: the refusal, the record as a judger sees it, and pins. */
export const refused = (message: string) => new BizError("Error", message);

/** The record as a judger's request sees it (with what the credentials show); read, never written here. */
export async function loadForJudging(em: EntityManager, domainId: string, id: string): Promise<JudgeRecord> {
  const record = await em.findOne(
    JudgeRecord,
    { id, domain: domainId },
    { populate: ["config", "problem"], refresh: true },
  );
  if (!record) throw new BizError("RecordNotFoundError", "record not found");
  return record;
}

/** Pinned config version and language of records judged here, for checking a case index without a read. */
const pins = new BoundedMap<string, { configId: string | null; language: string }>(10_000);

export function pin(id: string, configId: string | null, language: string) {
  pins.set(id, { configId, language });
}

/** The record's pinned version and language: remembered from its claim, else read (`fresh`: read again). */
export async function pinOf(em: EntityManager, domainId: string, id: string, fresh = false) {
  const known = fresh ? undefined : pins.get(id);
  if (known) return known;
  const found = await row<{ config_id: string | null; language: string }>(em, PIN_SQL, [id, domainId]);
  if (found) pin(id, found.config_id, found.language);
  return found ? pins.get(id)! : null;
}
