import type { CaseReport, RecordJudgePayload, StageReport } from "../../core/judge-protocol";
import { Redactor } from "../../core/redact";
import type { Logger } from "../../core/logger";
import type { JudgeSettings } from "../judge-settings";
import { Addresses, Refused, RETRY_WINDOW_MS, Transient, withRetries } from "./retries";

/** A task to claim (from the queue or the API's long poll): the queue's payload. */
export type JudgeTask = RecordJudgePayload;

export interface RemoteFile {
  path: string;
  digest: string;
  size: number;
  url: string;
}

/** The part of the claim answer (Horse's JudgerCredentials plus our links) the judge uses. */
export interface Claim {
  taskId: string;
  language: string;
  leaseExpiresAt: string;
  problemConfigId: string;
  configFiles: RemoteFile[];
  codeFiles: RemoteFile[];
}

export type { CaseReport };

export { isUnreachable, Refused, RETRY_WINDOW_MS, Unreachable } from "./retries";

/** A download's attempt (a test's data may be large). */
const CALL_TIMEOUT_MS = 30_000;

/**
 * The longest one attempt of a JSON call may take: a third of the retry window, and 10 s. A connection the
 * API's restart left open and silent (a pooled keep-alive socket, a proxy that lost its upstream) answers
 * nothing; an attempt as long as the window spent all of it on that socket, and the record was given back
 * although the API had come back within seconds. Cut short, the call has time for fresh connections.
 */
export const attemptTimeoutMs = (retryWindowMs: number) => Math.min(10_000, Math.max(1, Math.floor(retryWindowMs / 3)));

/**
 * Cuts the judge's secrets out of what a program printed before it is sent, and says when it had to; and
 * the judge machine's own directories out of every message (a tool's complaint may name one), quietly.
 */
export interface OutputGuard {
  redactor: Redactor;
  onRedacted(task: JudgeTask, index: number, hits: number): void;
  /** The judge's directories (work, cache), longest first: "[judge]" in what users see. */
  hostPaths?: readonly string[];
}

/** Where a sandboxed program's own paths start: a judge directory that is one of them (or holds one) stays. */
const SANDBOX_ROOTS = ["/work", "/tmp", "/usr", "/proc", "/dev", "/etc", "/.stage"];

/** The judge's directories as a message may name them, longest first (the deepest is cut whole). */
export const hostPathsOf = (settings: Pick<JudgeSettings, "workDir" | "cacheDir">) =>
  [...new Set([settings.workDir, settings.cacheDir])]
    .filter((dir) => !SANDBOX_ROOTS.some((root) => root === dir || root.startsWith(`${dir}/`) || dir === "/"))
    .sort((a, b) => b.length - a.length);

/** A case report as it may leave the judge: no secret of the judge's, no directory of its machine. */
const caseWithoutOutput = (stdout: string): CaseReport => ({
  state: "accepted",
  score: 0,
  timeMs: 0,
  memoryKb: 0,
  returnCode: 0,
  stdout,
  stderr: "",
});

export function guardReport(
  guard: Pick<OutputGuard, "redactor" | "hostPaths">,
  body: CaseReport,
  onRedacted: (hits: number) => void,
): CaseReport {
  const stdout = guard.redactor.redact(body.stdout);
  const stderr = guard.redactor.redact(body.stderr);
  const hits = stdout.hits + stderr.hits;
  if (hits > 0) onRedacted(hits);
  const paths = guard.hostPaths ?? [];
  const unpathed = (text: string) => paths.reduce((out, dir) => out.replaceAll(dir, "[judge]"), text);
  return { ...body, stdout: unpathed(stdout.text), stderr: unpathed(stderr.text) };
}

/** The judge's client of the API, with its secrets cut out of every output it sends. */
export function guardedJudgeApi(settings: JudgeSettings, secrets: readonly string[], logger: Logger): JudgeApi {
  return new JudgeApi(
    settings,
    {
      hostPaths: hostPathsOf(settings),
      redactor: new Redactor(secrets),
      onRedacted: (task, index, hits) =>
        logger.warn("a secret of the judge was cut out of a case's output", {
          recordId: task.recordId,
          case: index,
          hits,
        }),
    },
    settings.apiRetryMs,
  );
}

/**
 * The judge protocol over HTTP, as any judger speaks it: the access key on every call, the envelope's
 * `errorCode` decides, and transient failures (network, 5xx) are retried at the API's other addresses and
 * with back-off (retries.ts).
 */
export class JudgeApi {
  private readonly authorization: string;
  private readonly addresses: Addresses;

  constructor(
    settings: Pick<JudgeSettings, "serverUrls" | "accessKeyId" | "secretAccessKey">,
    private readonly guard?: OutputGuard,
    private readonly retryWindowMs = RETRY_WINDOW_MS,
  ) {
    const credentials = `${settings.accessKeyId}:${settings.secretAccessKey}`;
    this.authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
    this.addresses = new Addresses(settings.serverUrls);
  }

  /** A record's protocol paths, or a run's: the same calls under /runs (docs/api.md "Runs"). */
  private recordPath(task: JudgeTask) {
    return `/api/v1/domains/${task.domainId}/${task.kind === "run" ? "runs" : "records"}/${task.recordId}`;
  }

  /** Who the key belongs to: checks at start-up that the API answers and the key works. */
  whoami(): Promise<{ username: string; role: string }> {
    return this.call("GET", "/api/v1/users/me");
  }

  /** The next waiting task, or null after `waitSeconds` without one. */
  nextTask(waitSeconds: number, signal?: AbortSignal): Promise<(JudgeTask & { language: string }) | null> {
    return this.call(
      "POST",
      "/api/v1/judge/next_task",
      { waitSeconds },
      { signal, timeoutMs: (waitSeconds + 15) * 1000 },
    );
  }

  claim(task: JudgeTask): Promise<Claim> {
    return this.call("POST", `${this.recordPath(task)}/judge/claim`, { taskId: task.taskId });
  }

  /** The record's state (with `judgedAt` when final), or no state: the lease renewed, nothing else. */
  report(task: JudgeTask, body: { state?: string; judgedAt?: string; stages?: StageReport[] }): Promise<unknown> {
    const stages = body.stages?.map((stage) => this.guardedStage(task, stage));
    return this.call("PUT", `${this.recordPath(task)}/judge`, {
      ...body,
      ...(stages ? { stages } : {}),
      taskId: task.taskId,
    });
  }

  /** A stage's messages pass the same guard as a case's output (a tool may print a path of this machine). */
  private guardedStage(task: JudgeTask, stage: StageReport): StageReport {
    const guard = this.guard;
    if (!guard) return stage;
    const text = (message: string) =>
      guardReport(guard, caseWithoutOutput(message), (hits) => guard.onRedacted(task, -1, hits)).stdout;
    return {
      ...stage,
      message: text(stage.message),
      comments: stage.comments.map((c) => ({ ...c, message: text(c.message) })),
    };
  }

  /** One case's report (a failure's, say); the cases of a judged record go in batches (reportCases). */
  reportCase(task: JudgeTask, index: number, body: CaseReport): Promise<unknown> {
    const report = this.guarded(task, index, body);
    return this.call("PUT", `${this.recordPath(task)}/cases/${index}/judge`, { ...report, taskId: task.taskId });
  }

  /** Several cases' reports in one request, merged by the server all or none (an extension of ours). */
  reportCases(task: JudgeTask, cases: { index: number; report: CaseReport }[]): Promise<unknown> {
    const batch = cases.map(({ index, report }) => ({ ...this.guarded(task, index, report), index }));
    return this.call("PUT", `${this.recordPath(task)}/cases/judge`, { cases: batch, taskId: task.taskId });
  }

  /** Every case report passes here, so every output the server stores has been through the guard. */
  private guarded(task: JudgeTask, index: number, body: CaseReport): CaseReport {
    return this.guard ? guardReport(this.guard, body, (hits) => this.guard!.onRedacted(task, index, hits)) : body;
  }

  release(task: JudgeTask): Promise<unknown> {
    return this.call("POST", `${this.recordPath(task)}/judge/release`, { taskId: task.taskId });
  }

  /**
   * A file from a claim's links. The links carry the API's public origin; the judge reaches the API at
   * its own server URL (inside a cluster, say), and the key never goes to any other origin.
   */
  async download(file: RemoteFile): Promise<Uint8Array> {
    const link = new URL(file.url);
    return this.withRetries(async (base) => {
      const url = `${base}${link.pathname}${link.search}`;
      const response = await fetch(url, {
        headers: { authorization: this.authorization },
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      if (response.status >= 500) throw new Transient(`${url}: HTTP ${response.status}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (!response.ok || response.headers.get("content-type")?.includes("json"))
        throw new Refused("FileDownloadError", `${file.path}: HTTP ${response.status}`);
      return bytes;
    });
  }

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<T> {
    return this.withRetries(async (base) => {
      const timeout = AbortSignal.timeout(options.timeoutMs ?? attemptTimeoutMs(this.retryWindowMs));
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: this.authorization, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      });
      if (response.status >= 500) throw new Transient(`${method} ${path}: HTTP ${response.status}`);
      const envelope = (await response.json().catch(() => null)) as {
        errorCode?: string;
        errorMsg?: string;
        data?: T;
        detail?: unknown;
      } | null;
      if (response.ok && envelope?.errorCode === "Success") return envelope.data as T;
      throw new Refused(
        envelope?.errorCode ?? `HTTP ${response.status}`,
        envelope?.errorMsg ?? JSON.stringify(envelope?.detail ?? envelope),
      );
    }, options.signal);
  }

  private withRetries<T>(attempt: (base: string) => Promise<T>, signal?: AbortSignal): Promise<T> {
    return withRetries(this.addresses, this.retryWindowMs, attempt, signal);
  }
}
