import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { baseProperties } from "../../db/base-properties";
import { User } from "../users/user.entity";
import { Domain } from "../domains/domain.entity";

/**
 * An assignment or contest: an ordered list of the domain's problems with a time window
 * (unlockAt → dueAt → lockAt, all optional, all instants). The domain cannot be deleted while it
 * holds problem sets.
 */
export const ProblemSet = defineEntity({
  name: "ProblemSet",
  tableName: "problem_sets",
  uniques: [{ name: "problem_sets_domain_url_unique", properties: ["domain", "url"] }],
  properties: {
    ...baseProperties,
    domain: () => p.manyToOne(Domain).deleteRule("restrict"),
    url: p.string().length(256),
    title: p.string().length(256),
    content: p.text().default(""),
    hidden: p.boolean().default(false),
    scoreboardHidden: p.boolean().default(false),
    /**
     * How the scoreboard counts (docs/contests.md): best or last score per problem (homework), icpc (solved,
     * then penalty), ioi (the best of each subtask, summed), oi (the last submission, hidden until the end).
     */
    scoreboardRule: p.string().length(8).default("best"),
    /** icpc: minutes added per rejected submission before the first accepted one. */
    penaltyMinutes: p.integer().default(20),
    /** icpc: the verdicts that cost a penalty; null: every rejection but a compile error or a judge failure. */
    penaltyVerdicts: p.json<string[]>().nullable(),
    /** From this instant, others' results are hidden on the board from those who do not manage sets. */
    freezeAt: p.datetime().nullable(),
    /** When staff unfroze the board (it is live again for everyone), or null. */
    unfrozenAt: p.datetime().nullable(),
    /**
     * When staff declared the results final (the Contest API's `finalized`), or null: after the end, while the
     * board may still be frozen, so the resolver can reveal it at the ceremony. A rejudge clears it.
     */
    finalizedAt: p.datetime().nullable(),
    /** Late steps: from `after` past the due time, a score is multiplied by `factor` (the latest step that applies). */
    latePenalty: p.json<{ after: string; factor: number }[]>().defaultRaw("'[]'::jsonb"),
    /** Whether its students may run their programs on their own input or the samples (docs/api.md "Runs"). */
    runsAllowed: p.boolean().default(true),
    /** The scoreboard CSV shows each problem's stage deductions (docs/config-reference.md "Stages"). */
    gradeStages: p.boolean().default(false),
    unlockAt: p.datetime().nullable(),
    dueAt: p.datetime().nullable(),
    lockAt: p.datetime().nullable(),
    numSubmit: p.integer().default(0),
    numAccept: p.integer().default(0),
    owner: () => p.manyToOne(User).nullable().deleteRule("set null").index("problem_sets_owner_index"),
  },
});

export type ProblemSet = InferEntity<typeof ProblemSet>;
