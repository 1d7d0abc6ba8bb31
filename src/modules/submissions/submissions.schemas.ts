import { t } from "elysia";

/** Submission: Horse's `ProblemSolutionSubmit` (the file names are the paths inside the submission). */
export const ProblemSolutionSubmit = t.Object(
  { language: t.String({ minLength: 1, maxLength: 256 }), files: t.Files({ minItems: 1 }) },
  { title: "ProblemSolutionSubmit" },
);
export type SubmissionInput = typeof ProblemSolutionSubmit.static;
