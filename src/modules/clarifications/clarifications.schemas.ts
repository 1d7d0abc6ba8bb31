import { t } from "elysia";
import { DateTime, Envelope, ListOf, PaginationQuery, Uuid } from "../../http/schemas";
import { SetParams } from "../problem-sets/problem-sets.schemas";
import { CLARIFICATION_KINDS } from "./clarification.entity";

/** The most a question, an answer or an announcement may say (a page of text; a statement goes in the problem). */
export const CLARIFICATION_TEXT_MAX = 4000;

const Text = t.String({
  minLength: 1,
  maxLength: CLARIFICATION_TEXT_MAX,
  description: `1 to ${CLARIFICATION_TEXT_MAX} characters, not only spaces`,
});
const ProblemRef = t.String({ minLength: 1, maxLength: 256, description: "a problem of the set: its id or url" });

export const ClarificationParams = t.Object({ ...SetParams.properties, clarification: Uuid });

export const ClarificationListQuery = t.Object(PaginationQuery);

/** A participant's question, about the set or one of its problems. */
export const ClarificationAsk = t.Object(
  { text: Text, problem: t.Optional(t.Nullable(ProblemRef)) },
  { title: "ClarificationAsk" },
);
export type ClarificationAskInput = typeof ClarificationAsk.static;

/** The jury's answer: to the asker alone, or (public) to everyone, the question shown with it. */
export const ClarificationAnswer = t.Object(
  { text: Text, public: t.Optional(t.Boolean({ default: false })) },
  { title: "ClarificationAnswer" },
);
export type ClarificationAnswerInput = typeof ClarificationAnswer.static;

/** An announcement to everyone who may see the set. */
export const ClarificationAnnounce = t.Object(
  { text: Text, problem: t.Optional(t.Nullable(ProblemRef)) },
  { title: "ClarificationAnnounce" },
);
export type ClarificationAnnounceInput = typeof ClarificationAnnounce.static;

export const ClarificationSchema = t.Object(
  {
    id: Uuid,
    problemSetId: Uuid,
    problemId: t.Nullable(Uuid),
    kind: t.UnionEnum(CLARIFICATION_KINDS),
    text: t.String(),
    /** An answer to all or an announcement; a question and a private answer are not. */
    public: t.Boolean(),
    /** An answer's question. */
    replyToId: t.Nullable(Uuid),
    /** An answer's question's text: what it answers, shown with it (to all, for a public answer). */
    question: t.Nullable(t.String()),
    /** Who asked (a question's author, an answer's asker): shown to the asker and to staff only, else null. */
    userId: t.Nullable(Uuid),
    username: t.Nullable(t.String()),
    /** A question: whether the jury has answered it. */
    answered: t.Boolean(),
    createdAt: DateTime,
  },
  { title: "Clarification" },
);
export type ClarificationView = typeof ClarificationSchema.static;

export const ClarificationResp = Envelope(ClarificationSchema, "ClarificationResp");
export const ClarificationListResp = Envelope(
  ListOf(ClarificationSchema, "ClarificationList"),
  "ClarificationListResp",
);
