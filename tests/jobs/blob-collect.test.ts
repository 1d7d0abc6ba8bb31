import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { storeBlob } from "../../src/modules/problem-configs/blobs.service";
import { commitVersion } from "../../src/modules/problem-configs/versions.service";
import { ProblemConfig } from "../../src/modules/problem-configs/problem-config.entity";
import { Problem } from "../../src/modules/problems/problem.entity";
import { User } from "../../src/modules/users/user.entity";
import { Blob } from "../../src/modules/problem-configs/blob.entity";

let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
});
afterAll(() => t.close());

const bytes = (text: string) => new TextEncoder().encode(text);
const collect = (graceSeconds: number) =>
  t.jobs.run("blob.collect", { graceSeconds }, { queue: "configs", timeoutMs: 20_000 });

async function problemWithVersion(files: Record<string, string>) {
  const response = await t.api.post(`/domains/${cast.domain.id}/problems`, { title: "P" }, { token: cast.owner.token });
  const em = t.orm.em.fork();
  const problem = await em.findOneOrFail(Problem, { id: response.body.data.id });
  const tree = [];
  for (const [path, text] of Object.entries(files)) tree.push({ path, ...(await storeBlob(em, t.store, bytes(text))) });
  await commitVersion(em, {
    problem,
    committer: await em.findOneOrFail(User, { id: cast.owner.user.id }),
    tree,
    languages: ["c"],
  });
  return { problem, digests: tree.map((f) => f.digest) };
}

describe("blob.collect", () => {
  test("deletes unreferenced blobs past the grace period and keeps referenced and young ones", async () => {
    const { digests } = await problemWithVersion({ "config.json": "{}", "1.in": "kept" });
    const orphan = await storeBlob(t.orm.em.fork(), t.store, bytes("an upload nobody turned into a version"));
    expect(await collect(3600)).toEqual({ versions: 0, blobs: 0 });
    expect(await t.store.has(orphan.digest)).toBe(true);

    const report = await collect(0);
    expect(report.blobs).toBeGreaterThanOrEqual(1);
    expect(await t.store.has(orphan.digest)).toBe(false);
    expect(await t.orm.em.fork().count(Blob, { digest: orphan.digest })).toBe(0);
    for (const digest of digests) expect(await t.store.has(digest)).toBe(true);
  });

  test("a deleted problem's versions and their blobs go, unless another version shares the blob", async () => {
    const shared = "shared between two problems";
    const gone = await problemWithVersion({
      "config.json": '{"a":1}',
      "only-here.in": "unique bytes",
      "shared.in": shared,
    });
    const kept = await problemWithVersion({ "config.json": '{"b":2}', "shared.in": shared });
    await t.api.delete(`/domains/${cast.domain.id}/problems/${gone.problem.id}`, { token: cast.owner.token });
    const report = await collect(0);
    expect(report.versions).toBe(1);
    expect(await t.orm.em.fork().count(ProblemConfig, { problem: null })).toBe(0);
    expect(await t.store.has(gone.digests[1])).toBe(false); // only-here.in
    expect(await t.store.has(kept.digests[1])).toBe(true); // shared.in, still used
  });
});
