import { afterAll, beforeAll } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { authorizationMatrix, type Caller, type Operation } from "../helpers/authorization-matrix";
import { judgeableProblem, recordRow, submission, submit } from "../helpers/records";

/**
 * Who gets what on every submission, record and judge operation of a hidden domain: no token, a
 * non-member, a guest-role member, a member (submits, reads own records), a domain admin (all record
 * flags, record.judge and record.rejudge included) and the site root. The records acted on are the owner's.
 */
const CALLERS: Caller[] = ["anonymous", "outsider", "guest", "member", "admin", "siteRoot"];

let t: TestApp;
let cast: Cast;
let problem: string;
let set: string;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t, { hidden: true });
  problem = await judgeableProblem(t, cast);
  set = (await t.api.post(`/domains/${cast.domain.id}/problem_sets`, { title: "S" }, { token: cast.owner.token })).body
    .data.id;
  await t.api.post(`/domains/${cast.domain.id}/problem_sets/${set}/problems`, { problem }, { token: cast.owner.token });
});
afterAll(() => t.close());

const domain = (c: Cast) => `/domains/${c.domain.id}`;
/** A fresh record of the owner's, and its current task id. */
let current = { id: "", taskId: "" };
async function ownersRecord() {
  const id = (await submit(t, cast.owner.token, `${domain(cast)}/problems/${problem}`)).body.data.id as string;
  current = { id, taskId: (await recordRow(t, id)).task_id! };
  return current;
}

const OPERATIONS: Operation[] = [
  {
    name: "POST submit",
    method: "POST",
    path: (c) => `${domain(c)}/problems/${problem}`,
    multipart: () => submission("c"),
    expect: [401, "NF", 403, "OK", "OK", "OK"],
  },
  {
    name: "POST submit in set",
    method: "POST",
    path: (c) => `${domain(c)}/problem_sets/${set}/problems/${problem}/submit`,
    multipart: () => submission("c"),
    expect: [401, "NF", 403, "OK", "OK", "OK"],
  },
  {
    name: "GET records",
    method: "GET",
    path: (c) => `${domain(c)}/records`,
    expect: [401, "NF", "OK", "OK", "OK", "OK"],
  },
  {
    name: "GET record (another's)",
    method: "GET",
    path: async (c) => `${domain(c)}/records/${(await ownersRecord()).id}`,
    expect: [401, "NF", 403, 403, "OK", "OK"],
  },
  {
    name: "GET record code (another's)",
    method: "GET",
    path: async (c) => `${domain(c)}/records/${(await ownersRecord()).id}/code`,
    expect: [401, "NF", 403, 403, "OK", "OK"],
  },
  {
    name: "POST judge/claim",
    method: "POST",
    body: async () => ({ taskId: (await ownersRecord()).taskId }),
    path: (c) => `${domain(c)}/records/${current.id}/judge/claim`,
    expect: [401, "NF", 403, 403, "OK", "OK"],
  },
  {
    name: "PUT judge (unclaimed)",
    method: "PUT",
    body: async () => {
      await ownersRecord();
      return { state: "accepted" };
    },
    path: (c) => `${domain(c)}/records/${current.id}/judge`,
    expect: [401, "NF", 403, 403, "Error", "Error"],
  },
  {
    name: "PUT case judge (unclaimed)",
    method: "PUT",
    body: async () => {
      await ownersRecord();
      return { state: "accepted" };
    },
    path: (c) => `${domain(c)}/records/${current.id}/cases/0/judge`,
    expect: [401, "NF", 403, 403, "Error", "Error"],
  },
  {
    name: "GET judge/config (unclaimed)",
    method: "GET",
    path: async (c) => `${domain(c)}/records/${(await ownersRecord()).id}/judge/config`,
    expect: [401, "NF", 403, 403, "Error", "Error"],
  },
  {
    name: "POST record rejudge",
    method: "POST",
    body: () => ({}),
    path: async (c) => `${domain(c)}/records/${(await ownersRecord()).id}/rejudge`,
    expect: [401, "NF", 403, 403, "OK", "OK"],
  },
  {
    name: "POST problem rejudge",
    method: "POST",
    body: () => ({ state: "failed" }),
    path: (c) => `${domain(c)}/problems/${problem}/rejudge`,
    expect: [401, "NF", 403, 403, "OK", "OK"],
  },
  {
    name: "GET scoreboard",
    method: "GET",
    path: (c) => `${domain(c)}/problem_sets/${set}/scoreboard`,
    expect: [401, "NF", 403, "OK", "OK", "OK"],
  },
];

authorizationMatrix(
  () => t,
  () => cast,
  CALLERS,
  OPERATIONS,
);
