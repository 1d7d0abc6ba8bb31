import { t } from "elysia";
import { Choice, Envelope, OutInt } from "../../../http/schemas";
import { RECORD_STATES } from "../record-states";

const StateFilter = Choice(RECORD_STATES, { title: "RecordState" });

const ConfigChoice = t.UnionEnum(["latest", "record"], {
  default: "latest",
  description: "pin the problem's latest config version (default) or the one the record was judged with",
});
export type RejudgeConfigChoice = typeof ConfigChoice.static;

/** One record (extension): the body may be left out. */
export const RecordRejudge = t.Object({ config: t.Optional(ConfigChoice) }, { title: "RecordRejudge" });

/** Every record of a problem that matches the filters (extension); no filter: all of them. */
export const ProblemRejudge = t.Object(
  {
    problemSet: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 256,
        description: "only records submitted through this set (id or url)",
      }),
    ),
    state: t.Optional(
      t.Union([StateFilter, t.Array(StateFilter, { minItems: 1, maxItems: 10 })], {
        description: "only records in this state, or in one of these states (e.g. failed)",
      }),
    ),
    language: t.Optional(t.String({ minLength: 1, maxLength: 256, description: "only records in this language" })),
    config: t.Optional(ConfigChoice),
  },
  { title: "ProblemRejudge" },
);
export type ProblemRejudgeInput = typeof ProblemRejudge.static;

export const RejudgeQueued = t.Object(
  {
    queued: OutInt({ description: "records queued to be judged again (at a lower priority than new submissions)" }),
    skipped: OutInt({
      description:
        "matching records left as they were: no config version to pin (the latest lacks their language, or their " +
        "own is gone)",
    }),
  },
  { title: "RejudgeQueued" },
);
export type RejudgeQueuedView = typeof RejudgeQueued.static;
export const RejudgeQueuedResp = Envelope(RejudgeQueued, "RejudgeQueuedResp");
