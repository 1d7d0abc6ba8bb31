import { p } from "@mikro-orm/core";
import { randomUUID } from "node:crypto";

/**
 * Columns every table has (Horse's common columns): a server-generated UUID and timestamptz
 * created/updated stamps. Spread into each entity's properties.
 */
/** The id and the creation stamp alone: for rows never updated (the audit log). */
export const createdProperties = {
  id: p
    .uuid()
    .primary()
    .onCreate(() => randomUUID()),
  createdAt: p
    .datetime()
    .defaultRaw("now()")
    .onCreate(() => new Date()),
};

export const baseProperties = {
  ...createdProperties,
  updatedAt: p
    .datetime()
    .defaultRaw("now()")
    .onCreate(() => new Date())
    .onUpdate(() => new Date()),
};
