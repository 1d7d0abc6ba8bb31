import type { Worker } from "bullmq";
import { expect } from "bun:test";
import { randomUUID } from "node:crypto";
import { createQueueWorker } from "../../workers/run-worker";
import type { RecordJudgePayload } from "../../src/jobs/catalogue";
import type { TestApp } from "./spawn-app";
import type { Cast } from "./domain-factories";
import { Problem } from "../../src/modules/problems/problem.entity";
import { storeBlob } from "../../src/modules/problem-configs/blobs.service";
import { commitVersion } from "../../src/modules/problem-configs/versions.service";
import { languageNames, serializeConfigJson, validateConfigJson } from "../../src/core/config-model/config-json";

/** A config.json with one language and `cases` cases of the given categories (default: public `pretest`). */
export function configWith(languages: string[], categories: string[] = ["pretest", "pretest"]) {
  return {
    languages: languages.map((name) => ({ name, cases: categories.map((category) => ({ category, score: 10 })) })),
  };
}

/** The data files configWith's cases read (Horse's default names), for a version that holds them. */
export const CASE_DATA = { "case.in": "1 2\n", "case.out": "3\n" };

/**
 * A config version of the problem holding `config` and `files`, made as an archive upload makes it, without
 * the configs worker (the tests that use it have none): checked as an upload checks it, so a config naming a
 * file the version lacks is refused here as there.
 */
export async function configVersion(
  t: TestApp,
  problemId: string,
  config: object,
  files: Record<string, string> = CASE_DATA,
): Promise<void> {
  const em = t.orm.em.fork();
  const problem = await em.findOneOrFail(Problem, { id: problemId });
  const checked = validateConfigJson(structuredClone(config), { archiveFiles: [...Object.keys(files), "config.json"] });
  const tree = [];
  for (const [path, text] of Object.entries({ ...files, "config.json": serializeConfigJson(checked) }))
    tree.push({
      path,
      ...(await storeBlob(em, t.store, typeof text === "string" ? new TextEncoder().encode(text) : text)),
    });
  await commitVersion(em, { problem, committer: null, tree, languages: languageNames(checked) });
}

/** A problem of the cast's domain with a config and its data, made by its owner. */
export async function judgeableProblem(
  t: TestApp,
  cast: Cast,
  options: { languages?: string[]; categories?: string[]; body?: object } = {},
): Promise<string> {
  const created = await t.api.post(
    `/domains/${cast.domain.id}/problems`,
    { title: `P ${randomUUID().slice(0, 6)}`, ...options.body },
    { token: cast.owner.token },
  );
  expect(created.body.errorCode).toBe("Success");
  const id = created.body.data.id as string;
  await configVersion(t, id, configWith(options.languages ?? ["c"], options.categories));
  return id;
}

export function submission(
  language: string,
  files: Record<string, string> = { "main.c": "int main(){return 0;}" },
): FormData {
  const form = new FormData();
  form.set("language", language);
  for (const [name, content] of Object.entries(files)) form.append("files", new File([content], name));
  return form;
}

export async function submit(t: TestApp, token: string, path: string, form: FormData = submission("c")) {
  return t.api.post(path, undefined, { token, multipart: form });
}

export async function recordRow(t: TestApp, id: string) {
  const [row] = await t.orm.em.fork().execute<
    {
      state: string;
      task_id: string | null;
      judger_id: string | null;
      attempts: number;
      score: number;
      time_ms: number;
      memory_kb: number;
      cases: unknown[];
      late: boolean;
    }[]
  >("select state, task_id, judger_id, attempts, score, time_ms, memory_kb, cases, late from records where id = ?", [
    id,
  ]);
  return row;
}

/**
 * A judger that takes `record.judge` jobs from the app's real judge queue and speaks the judge
 * protocol over HTTP, scripted by the test (no program is run: that is the judge worker's business).
 */
export async function scriptedJudger(
  t: TestApp,
  script: (job: RecordJudgePayload) => Promise<unknown>,
  concurrency = 4,
): Promise<Worker> {
  const worker = createQueueWorker(
    "judge",
    // A run's job reaches the same script, marked as one (its calls are under /runs).
    { "record.judge": (payload) => script(payload), "run.judge": (payload) => script({ ...payload, kind: "run" }) },
    { config: t.config, orm: t.orm, logger: t.logger, store: t.store, jobs: t.jobs },
    concurrency,
  );
  await worker.waitUntilReady();
  return worker;
}

/** The happy judger: claims, reads the case count from the config it downloads, reports every case accepted, then the record. */
export function acceptEverything(t: TestApp, token: string) {
  return async (job: RecordJudgePayload) => {
    const base = `/domains/${job.domainId}/records/${job.recordId}`;
    const claim = await t.api.post(`${base}/judge/claim`, { taskId: job.taskId }, { token });
    if (claim.body.errorCode !== "Success") return { refused: claim.body.errorMsg };
    const configFile = claim.body.data.configFiles.find((f: { path: string }) => f.path === "config.json");
    const config = JSON.parse(
      new TextDecoder().decode((await t.api.get(configFile.url, { token, binary: true })).body),
    );
    const cases = config.languages.find((l: { name: string }) => l.name === claim.body.data.language).cases;
    await t.api.put(`${base}/judge`, { state: "running" }, { token });
    for (const [i, c] of cases.entries()) {
      await t.api.put(
        `${base}/cases/${i}/judge`,
        { state: "accepted", score: c.score, timeMs: 5, memoryKb: 1000 + i, stdout: `out ${i}`, stderr: "" },
        { token },
      );
    }
    await t.api.put(`${base}/judge`, { state: "accepted" }, { token });
    return { judged: true };
  };
}
