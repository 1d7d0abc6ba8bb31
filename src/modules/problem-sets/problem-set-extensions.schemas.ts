import { t } from "elysia";
import { DateTime, Envelope, ListOf, TimestampInput, Uuid } from "../../http/schemas";
import { SetParams } from "./problem-sets.schemas";

export const ExtensionParams = t.Object({
  ...SetParams.properties,
  user: t.String({ minLength: 1, maxLength: 256, description: "a member's id or username" }),
});

/** A whole extension (PUT): an absent or null time keeps the set's; at least one must be given. */
export const ProblemSetExtensionPut = t.Object(
  {
    dueAt: t.Optional(t.Nullable(TimestampInput)),
    lockAt: t.Optional(t.Nullable(TimestampInput)),
  },
  { title: "ProblemSetExtensionPut" },
);
export type ProblemSetExtensionPutInput = typeof ProblemSetExtensionPut.static;

export const ProblemSetExtensionSchema = t.Object(
  {
    userId: Uuid,
    username: t.String(),
    // The student's own times as granted (null: the set's), not the effective window.
    dueAt: t.Nullable(DateTime),
    lockAt: t.Nullable(DateTime),
    grantedById: t.Nullable(Uuid),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { title: "ProblemSetExtension" },
);
export type ProblemSetExtensionView = typeof ProblemSetExtensionSchema.static;

export const ProblemSetExtensionResp = Envelope(ProblemSetExtensionSchema, "ProblemSetExtensionResp");
export const ProblemSetExtensionListResp = Envelope(
  ListOf(ProblemSetExtensionSchema, "ProblemSetExtensionList"),
  "ProblemSetExtensionListResp",
);
