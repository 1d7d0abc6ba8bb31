import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { User } from "../users/user.entity";
import { Domain } from "../domains/domain.entity";
import { Problem } from "../problems/problem.entity";
import { ProblemSet } from "../problem-sets/problem-set.entity";

/**
 * One message of a set's clarifications (docs/contests.md "Clarifications"): a participant's question, the
 * jury's answer to one, or an announcement. An answer is private to the asker (`recipient`) or public; a
 * question is never public, an announcement always. The Contest API's clarification object is the same message
 * (a question `from_team_id`, a private answer `to_team_id`), so one row per message keeps the two alike.
 */
export const CLARIFICATION_KINDS = ["question", "answer", "announcement"] as const;
export type ClarificationKind = (typeof CLARIFICATION_KINDS)[number];

export const Clarification = defineEntity({
  name: "Clarification",
  tableName: "clarifications",
  indexes: [{ name: "clarifications_set_created_index", properties: ["problemSet", "createdAt"] }],
  properties: {
    ...baseProperties,
    // The domain beside the set, so that every lookup is scoped by both without a join.
    domain: () => p.manyToOne(Domain).deleteRule("cascade").index("clarifications_domain_index"),
    problemSet: () => p.manyToOne(ProblemSet).deleteRule("cascade"),
    /** What it is about; null: the set as a whole (or a problem since deleted). */
    problem: () => p.manyToOne(Problem).nullable().deleteRule("set null").index("clarifications_problem_index"),
    kind: p.string().length(16).$type<ClarificationKind>(),
    /** Who wrote it: the asker of a question, the staff member of an answer or announcement (gone: null). */
    author: () => p.manyToOne(User).nullable().deleteRule("set null").index("clarifications_author_index"),
    /** An answer's question. */
    replyTo: () => p.manyToOne(Clarification).nullable().deleteRule("cascade").index("clarifications_reply_index"),
    /**
     * A private answer's reader: the asker. Visibility is `public`, never the absence of a recipient, so an
     * answer whose asker's account is deleted stays private.
     */
    recipient: () => p.manyToOne(User).nullable().deleteRule("set null").index("clarifications_recipient_index"),
    public: p.boolean().default(false),
    text: p.text(),
  },
});

export type Clarification = InferEntity<typeof Clarification>;
