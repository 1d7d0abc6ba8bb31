import type { Limits, RunResult } from "../sandbox/sandbox";
import type { OutputVerdict } from "../run/steps";
import { escapeOutput } from "../outcome/text";
import { howItBroke } from "../outcome/verdict";

/**
 * The Kattis problem format's output validators (docs/config-reference.md "Checkers", `"protocol": "kattis"`): called
 * `executeArgs… input judge_answer feedback_dir flags… < program_output`, or as an interactive problem's
 * interactor with the program on its stdin and stdout; exit 42 accepts, 43 rejects, and the message is
 * what it wrote to `feedback_dir/judgemessage.txt` (else its stderr). Anything else is its failure.
 */
export const KATTIS_EXIT = { accepted: 42, wrongAnswer: 43 } as const;
/** The feedback directory, beside the validator's other files. */
export const FEEDBACK_DIR = "feedback";
const MESSAGE_CHARS = 1024;

/** The feedback directory under `under` in /work (made empty for the run, writable), ending in "/". */
export const feedbackDir = (under: string) => `${under ? `${under}/` : ""}${FEEDBACK_DIR}/`;

/** The file of the feedback directory the judge reads back after the run. */
export const judgeMessagePath = (feedback: string) => `${feedback}judgemessage.txt`;

/** What the validator left in its feedback directory's judgemessage.txt, if anything. */
export function judgeMessage(run: RunResult, feedback: string): Uint8Array | null {
  const file = run.files.get(judgeMessagePath(feedback));
  return file?.bytes.length ? file.bytes : null;
}

/**
 * A checker or interactor that did not give an answer (testlib's or Kattis's), as the case's verdict:
 * the judge's fault, not the program's, with what the validator said.
 */
export const validatorFailure = (who: string, why: string, said: string): OutputVerdict => ({
  state: "system_error",
  ratio: 0,
  message: `${who} failure: ${why}${said ? `\n${said}` : ""}`,
});

/** A Kattis validator's end as a verdict; `who` names it in the message ("checker", "interactor"). */
export function kattisVerdict(run: RunResult, limits: Limits, message: Uint8Array | null, who: string): OutputVerdict {
  const words = message ?? (run.stderr.length > 0 ? run.stderr : run.stdout);
  const said = escapeOutput(words, MESSAGE_CHARS, !message && run.stderrTruncated).trim();
  const failed = (why: string) => validatorFailure(who, why, said);
  const broke = howItBroke(run, limits);
  if (broke) return failed(broke);
  if (run.exitCode === KATTIS_EXIT.accepted) return { state: "accepted", ratio: 1, message: `${who}: ${said}`.trim() };
  if (run.exitCode === KATTIS_EXIT.wrongAnswer)
    return { state: "wrong_answer", ratio: 0, message: `${who}: ${said}`.trim() };
  return failed(`it exited with ${run.exitCode} (a Kattis validator exits with 42 or 43)`);
}
