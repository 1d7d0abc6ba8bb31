import { t } from "elysia";
import { Envelope, Uuid } from "../../../http/schemas";

/** The next task for a judger over HTTP (extension): long-poll, then claim it with Horse's claim route. */
export const NextTaskBody = t.Object(
  {
    waitSeconds: t.Optional(
      t.Integer({ minimum: 0, maximum: 30, default: 25, description: "how long to wait for a task (long poll)" }),
    ),
  },
  { title: "JudgeNextTask" },
);
export const JudgeTaskSchema = t.Object(
  {
    recordId: Uuid,
    domainId: Uuid,
    taskId: Uuid,
    language: t.String(),
    kind: t.Optional(
      t.Literal("run", { description: 'a run (docs/api.md "Runs"): its calls are under /runs/{recordId}' }),
    ),
  },
  {
    title: "JudgeTask",
    description:
      "claim it with POST /domains/{domainId}/records/{recordId}/judge/claim {taskId} (a run's: /runs/{recordId}/…)",
  },
);
export const JudgeTaskResp = Envelope(JudgeTaskSchema, "JudgeTaskResp");
