import { randomUUID } from "node:crypto";
import { benchApp, fmt, perSecond, report, timed } from "./harness";
import { submission } from "../tests/helpers/records";

/**
 * Submissions ingested per second through the API (multipart parse, auth, blob store, one
 * transaction with the record and counters, BullMQ enqueue), against the floor of a bare INSERT of
 * the same record row at the same concurrency.
 *   bun bench/submissions.ts            (TOTAL=2000 CONCURRENCY=16)
 */
const TOTAL = Number(process.env.TOTAL ?? 2000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);

const { t, cast, problem } = await benchApp();
try {
  const em = () => t.orm.em.fork();
  const [{ config_id }] = await em().execute<{ config_id: string }[]>(
    "select id as config_id from problem_configs where problem_id = ? order by version desc limit 1",
    [problem],
  );
  const floorMs = await timed(TOTAL, CONCURRENCY, () =>
    em().execute(
      `insert into records (id, domain_id, problem_id, config_id, committer_id, language, state, task_id, commit_id)
     values (?, ?, ?, ?, ?, 'c', 'queueing', ?, ?)`,
      [randomUUID(), cast.domain.id, problem, config_id, cast.member.user.id, randomUUID(), "0".repeat(64)],
    ),
  );
  await em().execute("delete from records");
  // The same row plus the counter increment, in one transaction: every submission to one problem
  // takes that problem's row lock until its commit is durable.
  const counterMs = await timed(TOTAL, CONCURRENCY, () =>
    em().transactional(async (tx) => {
      await tx.execute(
        `insert into records (id, domain_id, problem_id, config_id, committer_id, language, state, task_id, commit_id)
       values (?, ?, ?, ?, ?, 'c', 'queueing', ?, ?)`,
        [randomUUID(), cast.domain.id, problem, config_id, cast.member.user.id, randomUUID(), "0".repeat(64)],
      );
      await tx.execute("update problems set num_submit = num_submit + 1 where id = ?", [problem]);
    }),
  );
  await em().execute("delete from records");
  await em().execute("update problems set num_submit = 0 where id = ?", [problem]);
  const path = `/domains/${cast.domain.id}/problems/${problem}`;
  let failures = 0;
  const apiMs = await timed(TOTAL, CONCURRENCY, async (i) => {
    const form = submission("c", { "main.c": `int main(){return ${i};} // ${randomUUID()}` });
    const response = await t.api.post(path, undefined, { token: cast.member.token, multipart: form });
    if (response.body?.errorCode !== "Success") failures++;
  });
  const [{ records, jobs }] = [
    {
      records: (await em().execute<{ n: number }[]>("select count(*)::int as n from records"))[0].n,
      jobs: await t.jobs.queues.judge.count(),
    },
  ];
  const floor = perSecond(TOTAL, floorMs);
  const counter = perSecond(TOTAL, counterMs);
  const api = perSecond(TOTAL, apiMs);
  report(`Submission ingest: ${TOTAL} submissions, ${CONCURRENCY} in flight`, [
    ["floor: bare INSERT of the record row", `${fmt(floor)} /s`],
    ["floor: INSERT + counter UPDATE, one transaction", `${fmt(counter)} /s`],
    ["API: record + file blob + counters + enqueue", `${fmt(api)} /s`],
    ["API cost vs bare INSERT", `${fmt(floor / api)}x`],
    ["API cost vs INSERT + counter", `${fmt(counter / api)}x`],
    ["check: records saved / jobs queued / failures", `${records} / ${jobs} / ${failures}`],
  ]);
  if (records !== TOTAL || jobs !== TOTAL || failures > 0) process.exitCode = 1;
} finally {
  await t.close();
}
