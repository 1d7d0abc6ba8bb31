import { t } from "elysia";
import { DateTime, Envelope, OutInt, Uuid } from "../../http/schemas";
import { RecordCaseResultSchema } from "../records/records.schemas";

/**
 * Runs (extension, docs/api.md "Runs"): a program judged on the caller's own input or on the problem's
 * samples, with no record.
 */
export const RunSubmit = t.Object(
  {
    language: t.String({ minLength: 1, maxLength: 256 }),
    files: t.Files({ minItems: 1, description: "the program, as for a submission (the same rules and limits)" }),
    input: t.Optional(
      t.String({ description: "the program's stdin (RUNS_INPUT_MAX_BYTES, 64 KiB by default); or samples=true" }),
    ),
    samples: t.Optional(
      t.Union([t.Literal("true"), t.Literal("false")], {
        description: "true: run on the problem's sample and pretest cases instead of an input",
      }),
    ),
  },
  { title: "RunSubmit" },
);
export type RunSubmitInput = typeof RunSubmit.static;

export const RunState = t.Union([t.Literal("queued"), t.Literal("running"), t.Literal("done"), t.Literal("failed")], {
  description: "queued, running, done (results below) or failed (the judge could not run it)",
});

const RunResult = t.Object(
  {
    index: OutInt({ description: "the result's position" }),
    sampleIndex: t.Nullable(OutInt({ description: "samples: the case's index in the problem's config; else null" })),
    verdict: RecordCaseResultSchema,
    stdout: t.String(),
    stderr: t.String({ description: "the judge's message first, if any, then the program's stderr" }),
    timeMs: OutInt(),
    memoryKb: OutInt(),
    exitCode: t.Nullable(OutInt({ description: "null when a signal ended it" })),
    signal: t.Nullable(OutInt({ description: "the signal that ended it, e.g. 9 (killed at a limit), or null" })),
  },
  { title: "RunResult" },
);

export const RunSchema = t.Object(
  {
    id: Uuid,
    problemId: Uuid,
    problemSetId: t.Nullable(Uuid),
    language: t.String(),
    mode: t.Union([t.Literal("input"), t.Literal("samples")]),
    state: RunState,
    compileOutput: t.Nullable(
      t.String({ description: "the compiler's output when it failed, else empty; null until compiled" }),
    ),
    results: t.Array(RunResult),
    createdAt: DateTime,
    judgedAt: t.Nullable(DateTime),
    expiresAt: DateTime,
  },
  { title: "Run" },
);
export type RunView = typeof RunSchema.static;

export const RunParams = t.Object({
  domain: t.String({ minLength: 1, maxLength: 256 }),
  run: t.String({ format: "uuid" }),
});

export const RunResp = Envelope(RunSchema, "RunResp");
