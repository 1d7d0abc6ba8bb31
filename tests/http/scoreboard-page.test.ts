import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { Page } from "playwright-core";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { addMembership, makeCast, makeDomain, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submit } from "../helpers/records";
import { chromiumFor, noChromium, type OpenedPage } from "../helpers/chromium";

// The scoreboard as a page for a projector: its headers and policy, the board embedded so no name can break out,
// who may read it, and in a real Chromium an ICPC contest drawn from the board, redrawn live as a student's
// record is judged over the judge protocol, frozen and sealed boards, a homework board with a late penalty.
let t: TestApp;
let browser: ReturnType<typeof chromiumFor>;
let cast: Cast;
let judger: TestUser;
let problems: string[];
/** An ICPC contest that started three hours ago, and a homework set (best score) with a late penalty. */
let contest: string;
let homework: string;
const people: Record<string, TestUser> = {};
const HOSTILE = "</script><img src=x onerror=alert(1)>";
const TITLES = ["Two Sum", "Balanced Brackets", "Shortest Path", "Matrix Chain Multiplication"];
const HOMEWORK_TITLE = `Lab 2: <i>vectors</i> & "pointers"`;
const domain = () => `/domains/${cast.domain.id}`;
const pagePath = (set: string) => `/api/v1${domain()}/problem_sets/${set}/scoreboard.html`;
const sql = (text: string, values: unknown[]) => t.orm.em.fork().execute(text, values);

/** A judger's claim and report over the judge protocol: no judge runs. */
async function report(id: string, state: "accepted" | "rejected", score = state === "accepted" ? 100 : 0) {
  const { task_id } = await recordRow(t, id);
  const claim = await t.api.post(`${domain()}/records/${id}/judge/claim`, { taskId: task_id }, { token: judger.token });
  expect(claim.body.errorCode).toBe("Success");
  const judged = await t.api.put(`${domain()}/records/${id}/judge`, { state, score }, { token: judger.token });
  expect(judged.body.errorCode).toBe("Success");
}

/** A submission through the set, as `who`; `minutesAgo` dates it back (the contest's minute it was sent). */
async function sent(set: string, who: TestUser, problem: number, minutesAgo?: number): Promise<string> {
  const path = `${domain()}/problem_sets/${set}/problems/${problems[problem]}/submit`;
  const id = (await submit(t, who.token, path)).body.data.id as string;
  if (minutesAgo !== undefined)
    await sql("update records set created_at = now() - make_interval(mins => ?), updated_at = now() where id = ?", [
      minutesAgo,
      id,
    ]);
  return id;
}

const judged = async (set: string, who: string, problem: number, state: "accepted" | "rejected", minute: number) =>
  report(await sent(set, people[who], problem, 180 - minute), state);

async function newSet(title: string, rule: string, windowSql: string): Promise<string> {
  const set = (await t.api.post(`${domain()}/problem_sets`, { title }, { token: cast.admin.token })).body.data.id;
  for (const problem of problems)
    await t.api.post(`${domain()}/problem_sets/${set}/problems`, { problem }, { token: cast.admin.token });
  // The set API takes best and last only while its ICPC/IOI/OI fields are being added: the rule is written here.
  await sql(`update problem_sets set scoreboard_rule = ?, ${windowSql} where id = ?`, [rule, set]);
  return set;
}

beforeAll(async () => {
  t = await spawnApp();
  browser = chromiumFor(t);
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
  for (const username of ["张伟", "Chloé Dupré", "Nguyễn Thị Phương", "Björn Ødegård", "Mary-Kate Capp", HOSTILE]) {
    people[username] = await createUser(t, { username, email: `${crypto.randomUUID()}@example.edu` });
    await addMembership(t, cast.domain, people[username], "user");
  }
  problems = [];
  for (const title of TITLES) problems.push(await judgeableProblem(t, cast, { body: { title } }));
  contest = await newSet("Programming Contest 3", "icpc", "unlock_at = now() - interval '3 hours'");
  // Minutes into the contest: 张伟 first on A, Chloé first on B, Phương first on C, Björn first on D.
  await judged(contest, "张伟", 0, "accepted", 12);
  await judged(contest, "张伟", 1, "rejected", 30);
  await judged(contest, "张伟", 1, "accepted", 45);
  await judged(contest, "张伟", 2, "accepted", 140);
  await judged(contest, "Chloé Dupré", 0, "accepted", 18);
  await judged(contest, "Chloé Dupré", 1, "accepted", 38);
  await judged(contest, "Chloé Dupré", 3, "rejected", 70);
  await judged(contest, "Chloé Dupré", 3, "rejected", 88);
  await judged(contest, "Nguyễn Thị Phương", 0, "accepted", 25);
  await judged(contest, "Nguyễn Thị Phương", 2, "accepted", 95);
  await judged(contest, "Björn Ødegård", 0, "rejected", 20);
  await judged(contest, "Björn Ødegård", 0, "accepted", 52);
  await judged(contest, "Björn Ødegård", 3, "accepted", 170);
  await judged(contest, "Mary-Kate Capp", 1, "rejected", 60);
  // Björn's B at 176: not judged yet.
  await sent(contest, people["Björn Ødegård"], 1, 4);
  homework = await newSet(HOMEWORK_TITLE, "best", "due_at = now() - interval '1 hour'");
  await sql(`update problem_sets set late_penalty = '[{"after":"0h","factor":0.5}]' where id = ?`, [homework]);
  await report(await sent(homework, people.张伟, 0, 120), "accepted");
  await report(await sent(homework, people[HOSTILE], 0), "rejected", 80);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const fetchPage = (set: string, token?: string) =>
  t.app.handle(
    new Request(`http://localhost${pagePath(set)}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }),
  );

/** The inline style, the inline script and the embedded board of a page, as the browser reads them. */
async function partsOf(html: string) {
  const parts = { style: "", script: "", data: "", scripts: 0 };
  const into = (key: "style" | "script" | "data") => ({
    text: (chunk: { text: string }) => {
      parts[key] += chunk.text;
    },
  });
  await new HTMLRewriter()
    .on("style", into("style"))
    .on("script", { element: () => void parts.scripts++ })
    .on("script:not([type])", into("script"))
    .on("script#board-data", into("data"))
    .transform(new Response(html))
    .text();
  return parts;
}

describe("GET …/problem_sets/{set}/scoreboard.html", () => {
  test("anonymous callers, guests and a student of another domain are refused; no board leaves", async () => {
    expect((await fetchPage(contest)).status).toBe(401);
    const elsewhere = await createUser(t);
    await addMembership(t, await makeDomain(t, cast.owner), elsewhere, "user");
    for (const who of [cast.guest, elsewhere]) {
      const response = await fetchPage(contest, who.token);
      const body = await response.text();
      const refused = response.status === 403 || JSON.parse(body).errorCode === "DomainNotFoundError";
      expect(refused).toBe(true);
      expect(body).not.toContain("张伟");
    }
  });

  test("a hidden board is refused to a student, as the JSON board is, and shown to staff", async () => {
    await t.api.patch(`${domain()}/problem_sets/${homework}`, { scoreboardHidden: true }, { token: cast.admin.token });
    try {
      const refused = await fetchPage(homework, people.张伟.token);
      expect(refused.headers.get("content-type")).not.toContain("text/html");
      expect(((await refused.json()) as { errorCode: string }).errorCode).toBe("ScoreboardHiddenBadRequestError");
      expect((await fetchPage(homework, cast.admin.token)).status).toBe(200);
    } finally {
      await t.api.patch(
        `${domain()}/problem_sets/${homework}`,
        { scoreboardHidden: false },
        { token: cast.admin.token },
      );
    }
    expect((await fetchPage(homework, people.张伟.token)).status).toBe(200);
  });

  test("HTML in UTF-8, never sniffed or cached, under a policy naming exactly the page's own script and style", async () => {
    const response = await fetchPage(contest, cast.admin.token);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const html = await response.text();
    const { style, script, data, scripts } = await partsOf(html);
    expect(scripts).toBe(2);
    const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
    expect(response.headers.get("content-security-policy")).toBe(
      `default-src 'none'; script-src ${hash(script)}; style-src ${hash(style)}; connect-src 'self'; ` +
        "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    // Nothing from outside, and no inline handler or style attribute the policy would have to allow. The board's
    // JSON holds the hostile name, on the board without a record (the next test: it cannot break out).
    expect(html.replace(data, "")).not.toMatch(/\s(src|href|style|on\w+)=/);
  });

  test("the board rides as JSON no name can break out of, and the title is text", async () => {
    const html = await (await fetchPage(homework, cast.admin.token)).text();
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toContain("<img");
    expect(html).toContain("<h1>Lab 2: &lt;i&gt;vectors&lt;/i&gt; &amp; &quot;pointers&quot;</h1>");
    const board = JSON.parse((await partsOf(html)).data);
    expect(board).toEqual(
      (await t.api.get(`${domain()}/problem_sets/${homework}/scoreboard`, { token: cast.admin.token })).body.data,
    );
    expect(board.rows.map((row: { username: string }) => row.username)).toContain(HOSTILE);
  });
});

/** Opens a board as `who`, once its record stream is open. */
async function openBoard(who: TestUser, set: string): Promise<OpenedPage> {
  const opened = await browser.openAs(who, pagePath(set));
  await opened.page.locator("#state.live").waitFor({ timeout: 10_000 });
  return opened;
}

/** Every request the page made: itself, the JSON board, the record stream of its set. Nothing else, anywhere. */
function expectOnlyOwnRequests(opened: OpenedPage, set: string) {
  const allowed = new Set([
    `${browser.origin}${pagePath(set)}`,
    `${browser.origin}/api/v1${domain()}/problem_sets/${set}/scoreboard`,
    `${browser.origin}/api/v1${domain()}/records/events?problemSet=${set}`,
  ]);
  expect(opened.requests.filter((url) => !allowed.has(url))).toEqual([]);
  expect(opened.errors).toEqual([]);
}

const cellsOf = (page: Page) =>
  page.locator("#rows tr").evaluateAll((rows) =>
    rows.map((row) => ({
      text: [...row.querySelectorAll("td")].map((td) => td.textContent),
      kinds: [...row.querySelectorAll("td.cell")].map((td) => td.className.replace(/^cell ?/, "")),
    })),
  );

describe("the page in a real browser", () => {
  test.skipIf(noChromium)(
    "an ICPC contest: ranked as the JSON board, first solves marked, nothing fetched elsewhere, no error",
    async () => {
      const board = (await t.api.get(`${domain()}/problem_sets/${contest}/scoreboard`, { token: cast.admin.token }))
        .body.data;
      const opened = await openBoard(cast.admin, contest);
      try {
        const { page } = opened;
        expect(await page.locator("h1").textContent()).toBe("Programming Contest 3");
        expect(await page.locator("#rule").textContent()).toBe("ICPC");
        expect(await page.locator("#banner").isHidden()).toBe(true);
        const heads = await page.locator("#head th").allTextContents();
        expect(heads).toEqual(["#", "Name", "Solved", "Penalty", ...TITLES.map((title, i) => "ABCD"[i] + title)]);
        const rows = await cellsOf(page);
        expect(rows.map((row) => row.text.slice(0, 4))).toEqual(
          board.rows.map((row: Record<string, unknown>) =>
            [row.rank, row.username, row.solved, row.penalty].map(String),
          ),
        );
        expect(rows.map((row) => row.text[1])).toEqual([
          "张伟",
          "Chloé Dupré",
          "Nguyễn Thị Phương",
          "Björn Ødegård",
          // Nothing solved, tied, by name (as the board compares them; the cast member's name is drawn at random):
          // the students who never submitted have their rows.
          ...[HOSTILE, "Mary-Kate Capp", cast.member.user.username].sort((a, b) => a.localeCompare(b)),
        ]);
        // 张伟: A first in one try at minute 12, B solved at minute 45 in two tries (the row's penalty adds 20), C at 140.
        expect(rows[0].text.slice(4)).toEqual(["1 try12 min", "2 tries45 min", "1 try140 min", ""]);
        expect(rows[0].kinds).toEqual(["solved first", "solved", "solved", ""]);
        const firsts = rows.flatMap((row, r) =>
          row.kinds.flatMap((kind, p) => (kind.includes("first") ? [[r, p]] : [])),
        );
        expect(firsts).toEqual([
          [0, 0],
          [1, 1],
          [2, 2],
          [3, 3],
        ]);
        expect(rows[1].kinds[3]).toBe("tried");
        expect([rows[3].kinds[1], rows[3].text[5]]).toEqual(["pending", "1 try1 pending"]);
        expect(await page.locator("td.first").first().getAttribute("title")).toBe("first to solve");
        expectOnlyOwnRequests(opened, contest);
      } finally {
        await opened.context.close();
      }
    },
    60_000,
  );

  test.skipIf(noChromium)(
    "a student's record sent through the set shows as pending, then as solved when judged, with no reload",
    async () => {
      const opened = await openBoard(cast.admin, contest);
      try {
        const { page } = opened;
        await page.evaluate(() => Object.assign(globalThis, { stayed: true }));
        const row = page.locator(`#rows tr[data-user="${people["Mary-Kate Capp"].user.id}"]`);
        expect(await row.locator("td.cell").nth(1).getAttribute("class")).toBe("cell tried");
        const id = await sent(contest, people["Mary-Kate Capp"], 1);
        await row.locator("td.cell.pending").waitFor({ timeout: 10_000 });
        expect(await row.locator("td.cell").nth(1).textContent()).toBe("2 tries1 pending");
        await report(id, "accepted");
        await row.locator("td.cell.solved").waitFor({ timeout: 10_000 });
        expect(await row.locator("td.solved-count").textContent()).toBe("1");
        expect(await row.locator("td.cell").nth(1).textContent()).toMatch(/^2 tries\d+ min$/);
        expect(await page.evaluate(() => (globalThis as { stayed?: boolean }).stayed)).toBe(true);
        expect(await page.locator("#state").textContent()).toBe("live");
        expectOnlyOwnRequests(opened, contest);
        // One fetch per burst, not one per event: the submission and the judge's reports were two bursts here.
        const fetches = opened.requests.filter((url) => url.endsWith(`/problem_sets/${contest}/scoreboard`));
        expect(fetches.length).toBeGreaterThanOrEqual(2);
        expect(fetches.length).toBeLessThanOrEqual(4);
      } finally {
        await opened.context.close();
      }
    },
    60_000,
  );

  test.skipIf(noChromium)(
    "to a student, a frozen board says since when and hides later results; an OI set before its end is sealed",
    async () => {
      await sql("update problem_sets set freeze_at = unlock_at + interval '100 minutes' where id = ?", [contest]);
      const frozen = await openBoard(cast.member, contest);
      try {
        const banner = frozen.page.locator("#banner.frozen");
        expect(await banner.isVisible()).toBe(true);
        expect(await banner.textContent()).toStartWith("The board is frozen since ");
        const board = (await t.api.get(`${domain()}/problem_sets/${contest}/scoreboard`, { token: cast.member.token }))
          .body.data;
        expect(await banner.getAttribute("data-freeze-at")).toBe(board.freezeAt);
        // 张伟's C at minute 140 is after the freeze: one pending try, no longer solved.
        const zhang = frozen.page.locator(`#rows tr[data-user="${people.张伟.user.id}"]`);
        expect(await zhang.locator("td.cell").nth(2).getAttribute("class")).toBe("cell pending");
        expect(await zhang.locator("td.solved-count").textContent()).toBe("2");
        expectOnlyOwnRequests(frozen, contest);
      } finally {
        await frozen.context.close();
        await sql("update problem_sets set freeze_at = null where id = ?", [contest]);
      }
      const oi = await newSet("Provincial OI, day 1", "oi", "due_at = now() + interval '1 day'");
      await report(await sent(oi, cast.member, 0), "accepted");
      const sealed = await openBoard(cast.member, oi);
      try {
        expect(await sealed.page.locator("#banner.sealed").isVisible()).toBe(true);
        expect(await sealed.page.locator("#head th").allTextContents()).toContain("Total");
        // Their own row (every student has one, all tied at nothing while sealed).
        const own = sealed.page.locator(`#rows tr[data-user="${cast.member.user.id}"] td.cell`);
        expect(await own.evaluateAll((tds) => tds.map((td) => td.className.replace(/^cell ?/, "")))).toEqual([
          "pending",
          "",
          "",
          "",
        ]);
        expectOnlyOwnRequests(sealed, oi);
      } finally {
        await sealed.context.close();
      }
    },
    60_000,
  );

  test.skipIf(noChromium)(
    "a homework board: scores with the raw score beside a late one, totals; a hostile name is only text",
    async () => {
      const opened = await openBoard(cast.admin, homework);
      try {
        const rows = await cellsOf(opened.page);
        expect(await opened.page.locator("#head th").allTextContents()).toEqual([
          "#",
          "Name",
          ...TITLES.map((title, i) => "ABCD"[i] + title),
          "Total",
        ]);
        expect(rows.slice(0, 2).map((row) => row.text)).toEqual([
          ["1", "张伟", "100", "", "", "", "100"],
          ["2", HOSTILE, "40raw 80", "", "", "", "40"],
        ]);
        expect(rows.slice(0, 2).map((row) => row.kinds[0])).toEqual(["solved", "partial late"]);
        // The students who never submitted follow, tied, with no score.
        expect(rows.slice(2).map((row) => [row.text[0], row.text.at(-1)])).toEqual(rows.slice(2).map(() => ["3", "0"]));
        expect(await opened.page.locator("img").count()).toBe(0);
        expectOnlyOwnRequests(opened, homework);
      } finally {
        await opened.context.close();
      }
    },
    60_000,
  );
});
