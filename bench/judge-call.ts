import { benchApp, fmt, report } from "./harness";
import { createUser } from "../tests/helpers/factories";
import { submit } from "../tests/helpers/records";

/**
 * One judge call, profiled alone: a judger reports the same case of a claimed record CALLS times in a row,
 * against the record page read as often, so that the CPU of a call (this process: client and API) can be
 * compared without the queue and the other judgers around it. `bun --cpu-prof bench/judge-call.ts`.
 */
const CALLS = Number(process.env.CALLS ?? 3000);
const { t, cast, problem } = await benchApp({ LOG_LEVEL: "error" });
try {
  const judger = await createUser(t, { role: "judger" });
  const record = (await submit(t, cast.member.token, `/domains/${cast.domain.id}/problems/${problem}`)).body.data
    .id as string;
  const [{ task_id: taskId }] = await t.orm.em
    .fork()
    .execute<{ task_id: string }[]>("select task_id from records where id = ?", [record]);
  const base = `/domains/${cast.domain.id}/records/${record}`;
  const claim = await t.api.post(`${base}/judge/claim`, { taskId }, { token: judger.token });
  if (claim.body.errorCode !== "Success") throw new Error(`claim refused: ${claim.body.errorMsg}`);
  const measure = async (call: () => Promise<{ status: number }>) => {
    for (let i = 0; i < 200; i++) await call();
    const before = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) if ((await call()).status !== 200) throw new Error("refused");
    const cpu = process.cpuUsage(before);
    return { cpu: (cpu.user + cpu.system) / CALLS, wall: ((performance.now() - started) * 1000) / CALLS };
  };
  const caseReport = await measure(() =>
    t.api.put(
      `${base}/cases/0/judge`,
      { state: "accepted", score: 10, timeMs: 1, memoryKb: 1024, taskId },
      { token: judger.token },
    ),
  );
  const page = await measure(() => t.api.get(base, { token: cast.admin.token }));
  report(`One judge call, ${CALLS} in a row (µs per call; CPU of this process: client and API)`, [
    ["PUT …/cases/0/judge", `${fmt(caseReport.cpu)} µs CPU, ${fmt(caseReport.wall)} µs wall`],
    ["GET record (an admin)", `${fmt(page.cpu)} µs CPU, ${fmt(page.wall)} µs wall`],
  ]);
} finally {
  await t.close();
}
