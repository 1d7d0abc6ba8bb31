import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { addMembership, makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { readStream } from "../helpers/sse";
import type { AuditEventView } from "../../src/modules/audit/audit.schemas";
import type { ClarificationView } from "../../src/modules/clarifications/clarifications.schemas";

// A set's clarifications: questions, answers to the asker or to all, announcements; who reads what, live too.
let t: TestApp;
let cast: Cast;
let other: Cast;
let alice: TestUser;
let bob: TestUser;
let setId: string;
let problemA: string;
let elsewhere: { setId: string; problem: string; otherDomainSet: string; otherDomainProblem: string };
const BURST = 20;
beforeAll(async () => {
  // The question limit on, with a refill too slow to matter within a test: a burst of BURST questions per user.
  t = await spawnApp({ RATE_CLARIFICATIONS_PER_USER: `0.0001,${BURST}` });
  [cast, other] = await Promise.all([makeCast(t), makeCast(t)]);
  const tag = randomUUID().slice(0, 6);
  alice = await createUser(t, { username: `clar-alice-${tag}` });
  bob = await createUser(t, { username: `clar-bob-${tag}` });
  await addMembership(t, cast.domain, alice, "user");
  await addMembership(t, cast.domain, bob, "user");
  problemA = await makeProblem(cast);
  setId = await makeSet(cast, problemA);
  const second = await makeProblem(cast);
  const otherProblem = await makeProblem(other);
  elsewhere = {
    problem: second,
    setId: await makeSet(cast, second),
    otherDomainProblem: otherProblem,
    otherDomainSet: await makeSet(other, otherProblem),
  };
});
afterAll(() => t.close());

async function makeProblem(where: Cast): Promise<string> {
  const body = { title: `P ${randomUUID().slice(0, 6)}` };
  const created = await t.api.post(`/domains/${where.domain.id}/problems`, body, { token: where.owner.token });
  expect(created.body.errorCode).toBe("Success");
  return created.body.data.id;
}

async function makeSet(where: Cast, problem: string): Promise<string> {
  const sets = `/domains/${where.domain.id}/problem_sets`;
  const created = await t.api.post(sets, { title: "Contest", scoreboardRule: "icpc" }, { token: where.owner.token });
  expect(created.body.errorCode).toBe("Success");
  const id = created.body.data.id as string;
  const added = await t.api.post(`${sets}/${id}/problems`, { problem }, { token: where.owner.token });
  expect(added.body.errorCode).toBe("Success");
  return id;
}

const clarifications = (set = setId, domain = cast.domain.id) =>
  `/domains/${domain}/problem_sets/${set}/clarifications`;

async function ask(user: TestUser, text: string, problem?: string): Promise<ClarificationView> {
  const asked = await t.api.post(clarifications(), { text, problem }, { token: user.token });
  expect(asked.body.errorCode).toBe("Success");
  return asked.body.data;
}

async function answer(question: string, text: string, open: boolean): Promise<ClarificationView> {
  const path = `${clarifications()}/${question}/answer`;
  const answered = await t.api.post(path, { text, public: open }, { token: cast.admin.token });
  expect(answered.body.errorCode).toBe("Success");
  return answered.body.data;
}

async function announce(text: string): Promise<ClarificationView> {
  const made = await t.api.post(`${clarifications()}/announcements`, { text }, { token: cast.admin.token });
  expect(made.body.errorCode).toBe("Success");
  return made.body.data;
}

async function listOf(user: TestUser, set = setId): Promise<ClarificationView[]> {
  const listed = await t.api.get(`${clarifications(set)}?limit=500`, { token: user.token });
  expect(listed.body.errorCode).toBe("Success");
  expect(listed.body.data.count).toBe(listed.body.data.results.length);
  return listed.body.data.results;
}

const ids = (views: ClarificationView[]) => views.map((view) => view.id).sort();

describe("who may ask, answer and announce", () => {
  test("no token is 401; a guest may not read or ask; a student may not answer or announce", async () => {
    const question = await ask(alice, "Who may answer me?");
    const calls = {
      list: (token?: string) => t.api.get(clarifications(), { token }),
      ask: (token?: string) => t.api.post(clarifications(), { text: "?" }, { token }),
      answer: (token?: string) => t.api.post(`${clarifications()}/${question.id}/answer`, { text: "!" }, { token }),
      announce: (token?: string) => t.api.post(`${clarifications()}/announcements`, { text: "!" }, { token }),
    };
    for (const call of Object.values(calls)) {
      expect((await call()).status).toBe(401);
      expect((await call(cast.outsider.token)).body.errorCode).toBe("DomainNotFoundError");
    }
    expect((await calls.list(cast.guest.token)).body).toEqual({ detail: "problem_set view Permission Denied." });
    expect((await calls.ask(cast.guest.token)).body).toEqual({ detail: "problem submit Permission Denied." });
    for (const call of [calls.answer, calls.announce]) {
      const refused = await call(bob.token);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: "problem_set clarify Permission Denied." });
    }
    // Nothing was answered or announced.
    expect((await listOf(cast.admin)).filter((view) => view.kind !== "question")).toEqual([]);
  });
});

describe("a contest's clarifications, as each reader sees them", () => {
  test("a private answer reaches its asker alone; a public one and an announcement reach all, unnamed", async () => {
    const sorted = await ask(alice, "Is the input sorted?", problemA);
    const general = await ask(bob, "May we use a calculator?");
    expect(sorted).toMatchObject({ kind: "question", problemId: problemA, public: false, answered: false });
    expect(sorted).toMatchObject({ userId: alice.user.id, username: alice.user.username, question: null });
    expect(ids(await listOf(alice))).toContain(sorted.id);
    expect(ids(await listOf(alice))).not.toContain(general.id);

    const privately = await answer(sorted.id, "Read the statement again.", false);
    expect(privately).toMatchObject({ kind: "answer", replyToId: sorted.id, public: false, problemId: problemA });
    expect(privately.question).toBe("Is the input sorted?");
    const openly = await answer(general.id, "No calculators.", true);
    const news = await announce("The contest is extended by ten minutes.");
    expect(news).toMatchObject({ kind: "announcement", public: true, replyToId: null, userId: null });

    const staff = await listOf(cast.admin);
    expect(ids(staff)).toEqual(expect.arrayContaining([sorted.id, general.id, privately.id, openly.id, news.id]));
    expect(staff.find((view) => view.id === sorted.id)).toMatchObject({ answered: true, userId: alice.user.id });
    const byAlice = await listOf(alice);
    const aliceSees = ids(byAlice);
    expect(aliceSees).toEqual(expect.arrayContaining([sorted.id, privately.id, openly.id, news.id]));
    expect(aliceSees).not.toContain(general.id);
    // The public answer shows bob's question to alice, without his name.
    expect(byAlice.find((view) => view.id === openly.id)).toMatchObject({
      question: "May we use a calculator?",
      userId: null,
      username: null,
    });
    expect(byAlice.find((view) => view.id === privately.id)).toMatchObject({ userId: alice.user.id });
    const bobSees = ids(await listOf(bob));
    expect(bobSees).toEqual(expect.arrayContaining([general.id, openly.id, news.id]));
    expect(bobSees).not.toContain(sorted.id);
    expect(bobSees).not.toContain(privately.id);

    // One message by id: bob's own and the public ones; alice's question and private answer do not exist to him.
    const one = (id: string) => t.api.get(`${clarifications()}/${id}`, { token: bob.token });
    expect((await one(openly.id)).body.data).toMatchObject({ id: openly.id, username: bob.user.username });
    for (const hidden of [sorted.id, privately.id]) {
      expect((await one(hidden)).body).toMatchObject({ errorCode: "Error", data: null });
    }
  });

  test("the list pages like Horse's lists: count, offset and limit, newest first", async () => {
    const first = await announce("First.");
    const second = await announce("Second.");
    const page = await t.api.get(`${clarifications()}?limit=2`, { token: bob.token });
    expect(page.body.data.results.map((view: ClarificationView) => view.id)).toEqual([second.id, first.id]);
    expect(page.body.data.count).toBe((await listOf(bob)).length);
    const next = await t.api.get(`${clarifications()}?limit=1&offset=1`, { token: bob.token });
    expect(next.body.data.results[0].id).toBe(first.id);
  });

  test("answers and announcements are audited without their text; questions are not", async () => {
    const question = await ask(bob, "A question the log must not quote.");
    const reply = await answer(question.id, "An answer the log must not quote.", true);
    const news = await announce("An announcement.");
    const query = "limit=500&ordering=created_at";
    const response = await t.api.get(`/domains/${cast.domain.id}/audit?${query}`, { token: cast.owner.token });
    const events = (response.body.data.results as AuditEventView[]).filter((event) => event.targetId === setId);
    const answered = events.find((event) => event.changes.clarificationId?.after === reply.id);
    expect(answered).toMatchObject({ action: "problem_set.clarification_answer", actorId: cast.admin.user.id });
    expect(answered!.changes).toMatchObject({
      replyToId: { after: question.id },
      userId: { after: bob.user.id },
      public: { after: true },
      text: { after: "[redacted]" },
    });
    const announced = events.find((event) => event.changes.clarificationId?.after === news.id);
    expect(announced).toMatchObject({ action: "problem_set.clarification_announce" });
    expect(JSON.stringify(events)).not.toContain("must not quote");
    expect(events.some((event) => event.changes.clarificationId?.after === question.id)).toBe(false);
  });
});

describe("hostile input", () => {
  test("a text too long, empty, blank or holding a NUL is a 422 at the field, and nothing is stored", async () => {
    const before = (await listOf(cast.admin)).length;
    const question = (await listOf(cast.admin)).find((view) => view.kind === "question")!;
    const refusals = [
      { path: clarifications(), body: { text: "x".repeat(4001) } },
      { path: clarifications(), body: { text: "" } },
      { path: clarifications(), body: { text: " \n\t " } },
      { path: `${clarifications()}/announcements`, body: { text: "   " } },
      { path: `${clarifications()}/${question.id}/answer`, body: { text: "y".repeat(4001) } },
      // PostgreSQL cannot store a NUL: refused at the field, never a 500.
      { path: clarifications(), body: { text: "Is n ≤ 10⁵?\u0000 DROP" } },
      { path: `${clarifications()}/announcements`, body: { text: "Zoë's note\u0000" } },
    ];
    for (const { path, body } of refusals) {
      const refused = await t.api.post(path, body, { token: cast.admin.token });
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(["body", "text"]);
    }
    expect(await t.api.post(clarifications(), { text: "x".repeat(4000) }, { token: alice.token })).toMatchObject({
      status: 200,
      body: { errorCode: "Success" },
    });
    expect((await listOf(cast.admin)).length).toBe(before + 1);
  });

  test("a problem of another set or domain, another domain's set, or a non-question is refused", async () => {
    const before = (await listOf(cast.admin)).length;
    const post = (path: string, body: object, user = alice) => t.api.post(path, body, { token: user.token });
    for (const problem of [elsewhere.problem, elsewhere.otherDomainProblem, randomUUID()]) {
      expect((await post(clarifications(), { text: "?", problem })).body.errorCode).toBe("ProblemNotFoundError");
      const announced = await post(`${clarifications()}/announcements`, { text: "!", problem }, cast.admin);
      expect(announced.body.errorCode).toBe("ProblemNotFoundError");
    }
    const foreignSet = clarifications(elsewhere.otherDomainSet);
    expect((await post(foreignSet, { text: "?" })).body.errorCode).toBe("ProblemSetNotFoundError");
    expect((await t.api.get(foreignSet, { token: alice.token })).body.errorCode).toBe("ProblemSetNotFoundError");
    // A question of another set, answered through this one; an answer answered; an id of nothing.
    const elsewhereQuestion = await t.api.post(clarifications(elsewhere.setId), { text: "?" }, { token: bob.token });
    const reply = await answer((await ask(bob, "Twice?")).id, "Once.", false);
    for (const target of [elsewhereQuestion.body.data.id, reply.id, randomUUID()]) {
      const refused = await post(`${clarifications()}/${target}/answer`, { text: "!" }, cast.admin);
      expect(refused.body.errorCode).toBe("Error");
    }
    expect((await listOf(cast.admin)).length).toBe(before + 2);
    const notUuid = await post(`${clarifications()}/not-a-uuid/answer`, { text: "!" }, cast.admin);
    expect(notUuid.status).toBe(422);
    expect(notUuid.body.detail[0].loc).toEqual(["path", "clarification"]);
  });
});

describe("the question limit", () => {
  test(`of ${BURST + 5} questions asked at once by one student, ${BURST} are taken and the rest are 429`, async () => {
    const student = await createUser(t);
    await addMembership(t, cast.domain, student, "user");
    const asked = await Promise.all(
      Array.from({ length: BURST + 5 }, (_, i) =>
        t.api.post(clarifications(), { text: `Question ${i}` }, { token: student.token }),
      ),
    );
    expect(asked.filter((response) => response.status === 200)).toHaveLength(BURST);
    const refused = asked.filter((response) => response.status === 429);
    expect(refused).toHaveLength(5);
    expect(refused[0].headers.get("retry-after")).toBeTruthy();
    expect((await listOf(student)).filter((view) => view.kind === "question")).toHaveLength(BURST);
    // Staff's answers are not counted against anyone.
    expect((await announce("Not limited.")).kind).toBe("announcement");
  });
});

describe("live, on the records list stream", () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((reader) => reader.close()));
  });

  async function streamOf(user: TestUser) {
    const abort = new AbortController();
    const path = `/api/v1/domains/${cast.domain.id}/records/events?problemSet=${setId}`;
    const headers = { authorization: `Bearer ${user.token}` };
    const response = await t.app.handle(new Request(`http://localhost${path}`, { signal: abort.signal, headers }));
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    const reader = readStream(response, abort);
    open.push(reader);
    return reader;
  }

  test("a student's stream has their own private answer and every broadcast, never another's private one", async () => {
    const [aliceStream, bobStream] = [await streamOf(alice), await streamOf(bob)];
    const forAlice = await ask(alice, "Live: is n at most 10^5?");
    const forBob = await ask(bob, "Live: is the graph connected?");
    const toBob = await answer(forBob.id, "Live: yes, for bob only.", false);
    const toAlice = await answer(forAlice.id, "Live: yes, for alice only.", false);
    const toAll = await answer(forBob.id, "Live: yes, for everyone.", true);
    const news = await announce("Live: the last announcement.");
    // This test's messages only: an announcement of the test before may still be on its way when these open.
    const made = new Set([forAlice.id, forBob.id, toBob.id, toAlice.id, toAll.id, news.id]);
    const clarificationIds = (reader: typeof aliceStream) =>
      reader.events
        .filter((e) => e.event === "clarification")
        .map((e) => (e.data as ClarificationView).id)
        .filter((id) => made.has(id));
    // The announcement was the last change: once it is in, every earlier one was read for this stream.
    for (const reader of [aliceStream, bobStream])
      expect(await reader.until((e) => (e.data as ClarificationView).id === news.id)).toBeTruthy();
    expect(clarificationIds(aliceStream)).toEqual([forAlice.id, toAlice.id, toAll.id, news.id]);
    expect(clarificationIds(bobStream)).toEqual([forBob.id, toBob.id, toAll.id, news.id]);
    const broadcast = aliceStream.events.find((e) => (e.data as ClarificationView).id === toAll.id);
    expect(broadcast!.data).toMatchObject({ question: "Live: is the graph connected?", userId: null });
  });

  test("staff's stream has every message", async () => {
    const staffStream = await streamOf(cast.admin);
    const question = await ask(alice, "Live: staff see this?");
    const reply = await answer(question.id, "Live: privately.", false);
    const seen = await staffStream.until((e) => (e.data as ClarificationView).id === reply.id);
    expect(seen!.data).toMatchObject({ replyToId: question.id, userId: alice.user.id });
    expect(staffStream.events.some((e) => (e.data as ClarificationView).id === question.id)).toBe(true);
  });
});
