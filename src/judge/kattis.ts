import { chown, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Limits, RunResult } from "./sandbox";
import type { OutputVerdict, StagedFile } from "./steps";
import { takeFile } from "./steps";
import { escapeOutput } from "./text";
import { howItBroke } from "./verdict";

/**
 * The Kattis problem format's output validators (README "Checkers", `"protocol": "kattis"`): called
 * `executeArgs… input judge_answer feedback_dir flags… < program_output`, or as an interactive problem's
 * interactor with the program on its stdin and stdout; exit 42 accepts, 43 rejects, and the message is
 * what it wrote to `feedback_dir/judgemessage.txt` (else its stderr). Anything else is its failure.
 */
export const KATTIS_EXIT = { accepted: 42, wrongAnswer: 43 } as const;
/** The feedback directory, beside the validator's other files. */
export const FEEDBACK_DIR = "feedback";
const MESSAGE_CHARS = 1024;

/** An empty feedback directory under `dir`, the slot uid's to write in. */
export async function feedbackDir(dir: string, under: string, uid: number): Promise<string> {
  const path = join(dir, under, FEEDBACK_DIR);
  await mkdir(path, { recursive: true });
  await chown(path, uid, uid);
  return `${under ? `${under}/` : ""}${FEEDBACK_DIR}/`;
}

/** What the validator left in its feedback directory's judgemessage.txt, if anything. */
export async function judgeMessage(dir: string, feedback: string): Promise<Uint8Array | null> {
  const file: StagedFile | null = await takeFile(dir, `${feedback}judgemessage.txt`);
  return file?.bytes?.length ? file.bytes : null;
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
