import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { ProblemSet } from "../../src/modules/problem-sets/problem-set.entity";

let t: TestApp;
let cast: Cast;
beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
});
afterAll(() => t.close());

const sets = () => `/domains/${cast.domain.id}/problem_sets`;
const hour = 3_600_000;

async function problem(body: Record<string, unknown> = {}): Promise<string> {
  return (await t.api.post(`/domains/${cast.domain.id}/problems`, { title: "P", ...body }, { token: cast.owner.token }))
    .body.data.id;
}
async function makeSet(body: Record<string, unknown> = {}) {
  const response = await t.api.post(sets(), { title: "Homework", ...body }, { token: cast.admin.token });
  expect(response.body.errorCode).toBe("Success");
  return response.body.data as { id: string; url: string };
}
const order = async (setId: string, token = cast.admin.token) =>
  (await t.api.get(`${sets()}/${setId}/problems`, { token })).body.data.results.map((p: { id: string }) => p.id);

describe("problem sets", () => {
  test("create needs problemSet.create; times in any accepted form come back as ISO with an offset", async () => {
    expect((await t.api.post(sets(), { title: "x" }, { token: cast.member.token })).body).toEqual({
      detail: "problem_set create Permission Denied.",
    });
    const created = await t.api.post(
      sets(),
      { url: "hw1", title: "HW1", dueAt: Date.UTC(2031, 0, 1), lockAt: "2031-01-02T08:00:00+08:00" },
      { token: cast.admin.token },
    );
    expect(created.body.data).toMatchObject({
      url: "hw1",
      title: "HW1",
      dueAt: "2031-01-01T00:00:00.000+00:00",
      lockAt: "2031-01-02T00:00:00.000+00:00",
      unlockAt: null,
      hidden: false,
      scoreboardHidden: false,
      numSubmit: 0,
      ownerId: cast.admin.user.id,
    });
    expect(
      (
        await t.api.post(
          sets(),
          { title: "bad", dueAt: "2031-01-03T00:00:00Z", lockAt: "2031-01-02T00:00:00Z" },
          { token: cast.admin.token },
        )
      ).status,
    ).toBe(422);
    expect((await t.api.post(sets(), { url: "hw1", title: "dup" }, { token: cast.admin.token })).body.errorCode).toBe(
      "IntegrityError",
    );
  });

  test("naive times are UTC; a date that does not exist is a 422 naming the field, not a roll-over into March", async () => {
    const naive = await makeSet({ dueAt: "2031-03-01T23:59:59.999999" });
    expect((await t.api.get(`${sets()}/${naive.id}`, { token: cast.admin.token })).body.data.dueAt).toBe(
      "2031-03-01T23:59:59.999+00:00",
    );
    for (const [field, value] of [
      ["dueAt", "2026-02-30"],
      ["lockAt", "2026-04-31T12:00:00"],
      ["unlockAt", "2026-11-23T25:00:00Z"],
    ]) {
      const response = await t.api.post(sets(), { title: "bad date", [field]: value }, { token: cast.admin.token });
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(["body", field]);
    }
    const edited = await t.api.patch(`${sets()}/${naive.id}`, { dueAt: "2031-02-29" }, { token: cast.admin.token });
    expect(edited.status).toBe(422);
    expect((await t.api.get(`${sets()}/${naive.id}`, { token: cast.admin.token })).body.data.dueAt).toBe(
      "2031-03-01T23:59:59.999+00:00",
    );
  });

  test("a hidden set is hidden on every route, not only in lists", async () => {
    const hidden = await makeSet({ hidden: true });
    const p = await problem();
    await t.api.post(`${sets()}/${hidden.id}/problems`, { problem: p }, { token: cast.admin.token });
    const list = await t.api.get(sets(), { token: cast.member.token });
    expect(list.body.data.results.map((s: { id: string }) => s.id)).not.toContain(hidden.id);
    for (const path of [
      `${sets()}/${hidden.id}`,
      `${sets()}/${hidden.id}/problems`,
      `${sets()}/${hidden.id}/problems/${p}`,
    ]) {
      expect((await t.api.get(path, { token: cast.member.token })).body.errorCode).toBe("ProblemSetNotFoundError");
    }
    expect((await t.api.get(`${sets()}/${hidden.id}`, { token: cast.admin.token })).body.data.problems).toHaveLength(1);
  });

  test("a hidden problem inside a set is hidden from those without problem.viewHidden", async () => {
    const set = await makeSet();
    const secret = await problem({ hidden: true });
    const shown = await problem();
    await t.api.post(`${sets()}/${set.id}/problems`, { problem: secret }, { token: cast.admin.token });
    await t.api.post(`${sets()}/${set.id}/problems`, { problem: shown }, { token: cast.admin.token });
    expect(await order(set.id, cast.member.token)).toEqual([shown]);
    expect(
      (await t.api.get(`${sets()}/${set.id}/problems/${secret}`, { token: cast.member.token })).body.errorCode,
    ).toBe("ProblemNotFoundError");
    expect(await order(set.id)).toEqual([secret, shown]);
  });

  test("before unlockAt the set is visible but its problems are not, except to managers", async () => {
    const set = await makeSet({ unlockAt: Date.now() + hour });
    const p = await problem();
    await t.api.post(`${sets()}/${set.id}/problems`, { problem: p }, { token: cast.admin.token });
    const seen = await t.api.get(`${sets()}/${set.id}`, { token: cast.member.token });
    expect(seen.body.data.problems).toEqual([]);
    expect(await order(set.id, cast.member.token)).toEqual([]);
    const closed = await t.api.get(`${sets()}/${set.id}/problems/${p}`, { token: cast.member.token });
    expect(closed.body.errorCode).toBe("ProblemNotFoundError");
    expect(closed.body.errorMsg).toContain("opens at");
    expect(await order(set.id)).toEqual([p]);
    await t.orm.em.fork().nativeUpdate(ProblemSet, { id: set.id }, { unlockAt: new Date(Date.now() - 1000) });
    expect(await order(set.id, cast.member.token)).toEqual([p]);
  });

  test("ordering: Horse's insert, move and remove semantics, positions always 0..n-1", async () => {
    const set = await makeSet();
    const [a, b, c, d] = [await problem(), await problem(), await problem(), await problem()];
    await t.api.post(`${sets()}/${set.id}/problems`, { problem: a }, { token: cast.admin.token });
    await t.api.post(`${sets()}/${set.id}/problems`, { problem: b }, { token: cast.admin.token });
    await t.api.post(`${sets()}/${set.id}/problems`, { problem: c, position: 0 }, { token: cast.admin.token });
    await t.api.post(`${sets()}/${set.id}/problems`, { problem: d, position: -1 }, { token: cast.admin.token });
    expect(await order(set.id)).toEqual([c, a, d, b]);
    await t.api.patch(`${sets()}/${set.id}/problems/${c}`, {}, { token: cast.admin.token });
    expect(await order(set.id)).toEqual([a, d, b, c]);
    await t.api.patch(`${sets()}/${set.id}/problems/${b}`, { position: 0 }, { token: cast.admin.token });
    expect(await order(set.id)).toEqual([b, a, d, c]);
    await t.api.delete(`${sets()}/${set.id}/problems/${a}`, { token: cast.admin.token });
    expect(await order(set.id)).toEqual([b, d, c]);
    expect(
      (await t.api.post(`${sets()}/${set.id}/problems`, { problem: b }, { token: cast.admin.token })).body,
    ).toMatchObject({ errorCode: "IntegrityError", errorMsg: "problem already added" });
    expect((await t.api.delete(`${sets()}/${set.id}/problems/${a}`, { token: cast.admin.token })).body).toMatchObject({
      errorCode: "IntegrityError",
      errorMsg: "problem not added",
    });
    expect(
      (await t.api.post(`${sets()}/${set.id}/problems`, { problem: "nope" }, { token: cast.admin.token })).body
        .errorCode,
    ).toBe("ProblemNotFoundError");
    const rows = await t.orm.em
      .fork()
      .getConnection()
      .execute<{ position: number }[]>(
        "select position from problem_set_problems where problem_set_id = ? order by position",
        [set.id],
      );
    expect(rows.map((r) => r.position)).toEqual([0, 1, 2]);
  });

  test("concurrent additions keep every problem, each at one position", async () => {
    const set = await makeSet();
    const ids = await Promise.all(Array.from({ length: 6 }, () => problem()));
    await Promise.all(
      ids.map((id) => t.api.post(`${sets()}/${set.id}/problems`, { problem: id }, { token: cast.admin.token })),
    );
    expect((await order(set.id)).sort()).toEqual([...ids].sort());
  });

  test("PATCH and DELETE need problemSet.edit; a domain with sets cannot be deleted", async () => {
    const set = await makeSet();
    expect((await t.api.patch(`${sets()}/${set.id}`, { title: "x" }, { token: cast.member.token })).status).toBe(403);
    expect(
      (
        await t.api.patch(
          `${sets()}/${set.id}`,
          { title: "Renamed", scoreboardHidden: true },
          { token: cast.admin.token },
        )
      ).body.data,
    ).toMatchObject({ title: "Renamed", scoreboardHidden: true });
    const other = await makeCast(t);
    await t.api.post(`/domains/${other.domain.id}/problem_sets`, { title: "S" }, { token: other.owner.token });
    expect((await t.api.delete(`/domains/${other.domain.id}`, { token: other.owner.token })).body.errorMsg).toContain(
      "problem set(s)",
    );
    expect((await t.api.delete(`${sets()}/${set.id}`, { token: cast.admin.token })).body.errorCode).toBe("Success");
    expect((await t.api.get(`${sets()}/${set.id}`, { token: cast.admin.token })).body.errorCode).toBe(
      "ProblemSetNotFoundError",
    );
  });
});
