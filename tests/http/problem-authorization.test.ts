import { afterAll, beforeAll, expect } from "bun:test";
import { randomUUID } from "node:crypto";
import { configVersion } from "../helpers/records";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { authorizationMatrix, type Caller, type Operation } from "../helpers/authorization-matrix";

/**
 * Who gets what on every problem and config operation of a hidden domain: no token, a non-member,
 * a member (role user: may view and submit, not see configs or edit), a domain admin (an editor),
 * and the site root.
 */
const CALLERS: Caller[] = ["anonymous", "outsider", "member", "admin", "siteRoot"];
const VIEW: Operation["expect"] = [401, "NF", "OK", "OK", "OK"];
const EDIT: Operation["expect"] = [401, "NF", 403, "OK", "OK"];

let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t, { hidden: true });
});
afterAll(() => t.close());

const problems = (c: Cast) => `/domains/${c.domain.id}/problems`;
const CONFIG = { languages: [{ name: "c", cases: [{}] }] };

/** A fresh problem with one config version (made by the owner, who may do everything). */
async function freshProblem(c: Cast): Promise<string> {
  const created = await t.api.post(problems(c), { title: "P" }, { token: c.owner.token });
  const id = created.body.data.id as string;
  await configVersion(t, id, CONFIG);
  return id;
}
const configs = async (c: Cast) => `${problems(c)}/${await freshProblem(c)}/configs`;

const OPERATIONS: Operation[] = [
  { name: "GET problems", method: "GET", path: problems, expect: VIEW },
  { name: "POST problem", method: "POST", path: problems, body: () => ({ title: "new" }), expect: EDIT },
  { name: "GET problem", method: "GET", path: async (c) => `${problems(c)}/${await freshProblem(c)}`, expect: VIEW },
  {
    name: "PATCH problem",
    method: "PATCH",
    path: async (c) => `${problems(c)}/${await freshProblem(c)}`,
    body: () => ({ title: "renamed" }),
    expect: EDIT,
  },
  {
    name: "DELETE problem",
    method: "DELETE",
    path: async (c) => `${problems(c)}/${await freshProblem(c)}`,
    expect: EDIT,
  },
  {
    name: "POST clone",
    method: "POST",
    path: (c) => `${problems(c)}/clone`,
    body: async () => ({ fromDomain: cast.domain.id, problems: [await freshProblem(cast)] }),
    expect: EDIT,
  },
  { name: "GET configs", method: "GET", path: configs, expect: EDIT },
  {
    name: "POST configs/json",
    method: "POST",
    path: async (c) => `${await configs(c)}/json`,
    body: () => ({ languages: [{ name: `l-${randomUUID()}`, cases: [{}] }] }),
    expect: EDIT,
  },
  {
    name: "GET configs/latest/json",
    method: "GET",
    path: async (c) => `${await configs(c)}/latest/json`,
    expect: EDIT,
  },
  { name: "GET configs/latest/ls", method: "GET", path: async (c) => `${await configs(c)}/latest/ls`, expect: EDIT },
  {
    name: "GET configs/latest/diff",
    method: "GET",
    path: async (c) => `${await configs(c)}/latest/diff`,
    expect: EDIT,
  },
  {
    name: "GET configs/latest (download)",
    method: "GET",
    path: async (c) => `${await configs(c)}/latest`,
    expect: EDIT,
    check: (response) => expect(response.headers.get("content-type")).toBe("application/zip"),
  },
];

authorizationMatrix(
  () => t,
  () => cast,
  CALLERS,
  OPERATIONS,
);
