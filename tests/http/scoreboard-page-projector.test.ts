import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { addMembership, makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem } from "../helpers/records";
import { chromiumFor, noChromium } from "../helpers/chromium";
import { BOARD_FIGURES, cjkFamilies, platformFonts, type BoardFigures } from "../helpers/board-figures";
import { BOARD_HOLD_MS, BOARD_PAGE_MS } from "../../src/modules/scoreboard/scoreboard-page-script";

// The scoreboard page as a contest projector shows it, from the back of the room: 40 teams (Chinese, accented
// and long names), eight problems, a board frozen an hour before the end and shown to the room by staff
// (?view=public), so that it has every kind of cell: first to solve, solved, tried and pending.
let t: TestApp;
let browser: ReturnType<typeof chromiumFor>;
let cast: Cast;
let contest: string;
const teams: TestUser[] = [];
/** Where the screenshots go, each run's over the last's: to look at, not compared. */
const shots = join(tmpdir(), "joj-board-page");
mkdirSync(shots, { recursive: true });
const TITLES = ["Two Sum", "Balanced Brackets", "Shortest Path", "Matrix Chain Multiplication", "Segment Tree"];
const MORE_TITLES = ["字符串匹配", "Dynamic Connectivity", "Geometry: Convex Hull"];
/** Forty teams as a hall has them: Chinese, accented and long names, other scripts. */
const NAMES = [
  "张伟|Chloé Dupré|欧阳娜娜|Nguyễn Thị Phương|Björn Ødegård|上海交通大学 ACM 一队|Mary-Kate Capp",
  "Pablo Diego José Francisco de Paula Juan Nepomuceno Cipriano|李小龙|Zhāng Qīngyǔ|Łukasz Przybylski|Ψυχή Παπαδοπούλου",
  "Сергей Пчёлкин|Yvonne O'Connor-Price|王芳|François-Xavier Lefèvre|刘洋|Søren Kierkegaard Jørgensen|陈静",
  "Ana Beatriz dos Santos Magalhães|Đặng Văn Lâm|杨帆|İlkay Gündoğan|赵磊|Mikołaj Wróblewski|黄晓明|Ayşe Yılmaz",
  "Þórunn Guðmundsdóttir|周杰|Raúl Peña|Kim Min-jun|孙悟空与猪八戒的算法小队|José|Ελένη|Qiyu_Pan|吴敏|Chris|peter|徐丽娟",
  "Zoë Saldaña-Nazario",
].flatMap((line) => line.split("|"));
/** The contest's length and its freeze, in minutes from its start. */
const LENGTH = 300;
const FREEZE = 240;
const domain = () => `/domains/${cast.domain.id}`;
const pagePath = () => `/api/v1${domain()}/problem_sets/${contest}/scoreboard.html?view=public`;
const sql = (text: string, values: unknown[]) => t.orm.em.fork().execute(text, values);

/**
 * Team i's records: the stronger teams first, each solving its problems after a deterministic number of
 * rejections, trying the next two without success, and some solving after the freeze (pending to the room).
 */
function recordsOf(team: number, problems: string[]) {
  const records: { committer: string; problem: string; state: string; minute: number }[] = [];
  const solves = Math.max(0, problems.length - Math.floor(team / 5));
  const committer = teams[team].user.id;
  for (const [p, problem] of problems.entries()) {
    const rejections = (team + p) % 3;
    // Later problems later, weaker teams later, and a spread that gives first solves to several teams.
    const minute = Math.min(LENGTH - 5, 8 + p * 31 + ((team * 5 + p * 13) % 17) + team * 2);
    const tried = p < solves + 2;
    for (let r = 0; tried && r < rejections; r++)
      records.push({ committer, problem, state: "rejected", minute: minute - 4 * (rejections - r) });
    if (p < solves) records.push({ committer, problem, state: "accepted", minute });
  }
  // A submission still in the queue.
  if (team === 12) records.push({ committer, problem: problems[6], state: "queueing", minute: LENGTH - 2 });
  return records;
}

beforeAll(async () => {
  t = await spawnApp();
  browser = chromiumFor(t);
  cast = await makeCast(t);
  for (const username of NAMES) {
    const team = await createUser(t, { username, email: `${crypto.randomUUID()}@example.edu` });
    await addMembership(t, cast.domain, team, "user");
    teams.push(team);
  }
  const problems: string[] = [];
  for (const title of [...TITLES, ...MORE_TITLES]) problems.push(await judgeableProblem(t, cast, { body: { title } }));
  const set = { title: "ICPC Asia Regional, Shanghai Site" };
  contest = (await t.api.post(`${domain()}/problem_sets`, set, { token: cast.admin.token })).body.data.id;
  for (const problem of problems)
    await t.api.post(`${domain()}/problem_sets/${contest}/problems`, { problem }, { token: cast.admin.token });
  await sql(
    `update problem_sets set scoreboard_rule = 'icpc', unlock_at = now() - make_interval(mins => ?),
            freeze_at = now() - make_interval(mins => ?) where id = ?`,
    [LENGTH, LENGTH - FREEZE, contest],
  );
  const records = teams.flatMap((_, i) => recordsOf(i, problems));
  // Made in SQL, not judged one by one: the page draws what the board says, which other tests check.
  await sql(
    `insert into records (id, created_at, updated_at, domain_id, problem_set_id, problem_id, committer_id, state,
                          language, score, judged_at)
     select gen_random_uuid(), s.unlock_at + make_interval(mins => r.minute), now(), s.domain_id, s.id, r.problem,
            r.committer, r.state, 'c', case when r.state = 'accepted' then 100 else 0 end,
            case when r.state <> 'queueing' then now() end
       from problem_sets s, jsonb_to_recordset(?::text::jsonb) as r(committer uuid, problem uuid, state text, minute int)
      where s.id = ?`,
    [JSON.stringify(records), contest],
  );
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/**
 * The room's board at a size, its first page drawn, with a clock the test moves (the page turns itself; no wait
 * for real time): installed, then the page loaded again under it.
 */
async function openBoard(viewport: { width: number; height: number }) {
  const opened = await browser.openAs(cast.admin, pagePath(), viewport);
  await opened.page.clock.install();
  await opened.page.reload();
  await opened.page.locator("#state.live").waitFor({ timeout: 10_000 });
  return opened;
}

const figuresOf = (page: Page) => page.evaluate(BOARD_FIGURES) as Promise<BoardFigures>;

describe("the board on a 1920×1080 projector", () => {
  test.skipIf(noChromium)(
    "fills the screen: the full width, whole rows to the bottom, the next page after a while; no scrolling",
    async () => {
      const opened = await openBoard({ width: 1920, height: 1080 });
      try {
        const { page } = opened;
        await page.screenshot({ path: join(shots, "board-1080p.png") });
        if (process.env.WRITE_SCREENSHOT) {
          mkdirSync(join(import.meta.dir, "../../docs/images"), { recursive: true });
          await page.screenshot({ path: join(import.meta.dir, "../../docs/images/board-1080p.png") });
        }
        const first = await figuresOf(page);
        // The 40 teams, and any member with nothing sent whom the board lists as well.
        expect(first.rows).toBeGreaterThanOrEqual(40);
        expect(first.tableWidth / 1920).toBeGreaterThanOrEqual(0.95);
        // Whole rows down to the last tenth of the screen; no row cut in half at the bottom and no page scroll.
        expect(first.lastWholeRowBottom / 1080).toBeGreaterThanOrEqual(0.9);
        expect(first.cutRows).toBe(0);
        expect(first.documentScrolls).toBe(false);
        expect(first.shown[0]).toBe(0);
        // The page turns by itself: the next page begins with the first row the last one could not show.
        await page.clock.runFor(BOARD_PAGE_MS);
        const second = await figuresOf(page);
        expect(second.shown[0]).toBe(first.shown[1] + 1);
        expect(second.headerVisible).toBe(true);
        // The last page ends with the last row (whole), and the next turn starts from the top again.
        await page.clock.runFor(BOARD_PAGE_MS);
        expect(await figuresOf(page)).toMatchObject({ cutRows: 0, shown: [expect.any(Number), first.rows - 1] });
        await page.clock.runFor(BOARD_PAGE_MS);
        expect((await figuresOf(page)).shown[0]).toBe(0);
        expect(opened.errors).toEqual([]);
      } finally {
        await opened.context.close();
      }
    },
    60_000,
  );

  test.skipIf(noChromium)(
    "every text is 20 px or more, and every text, each kind of cell's among them, has a contrast of 4.5:1",
    async () => {
      const opened = await openBoard({ width: 1920, height: 1080 });
      try {
        const figures = await figuresOf(opened.page);
        expect(figures.smallestText.size).toBeGreaterThanOrEqual(20);
        expect(Object.keys(figures.cells).sort()).toEqual(["first", "pending", "solved", "tried"]);
        for (const contrast of Object.values(figures.cells)) expect(contrast).toBeGreaterThanOrEqual(4.5);
        for (const contrast of Object.values(figures.keys)) expect(contrast).toBeGreaterThanOrEqual(4.5);
        expect(figures.lowestContrast.ratio).toBeGreaterThanOrEqual(4.5);
        // Told apart by more than hue: each kind has a mark of its own beside its colour.
        const marks = Object.values(figures.marks);
        expect(marks.every((mark) => mark !== "" && mark !== "none" && mark !== "normal")).toBe(true);
        expect(new Set(marks).size).toBe(marks.length);
      } finally {
        await opened.context.close();
      }
    },
    60_000,
  );

  test.skipIf(noChromium)("names are set in a stack that asks for a Chinese font before the generic one", async () => {
    const opened = await openBoard({ width: 1920, height: 1080 });
    try {
      const families = (await figuresOf(opened.page)).nameFonts.split(",").map((name) => name.trim().replace(/"/g, ""));
      const cjk = families.findIndex((name) => /CJK SC|Han Sans SC|WenQuanYi|PingFang SC|YaHei/.test(name));
      expect(cjk).toBeGreaterThanOrEqual(0);
      expect(cjk).toBeLessThan(families.indexOf("sans-serif"));
    } finally {
      await opened.context.close();
    }
  });

  // Only where this machine has a Chinese font (fc-list :lang=zh); elsewhere the stack above is what is checked.
  test.skipIf(noChromium || cjkFamilies().length === 0)("a Chinese name is drawn with a Chinese font", async () => {
    const opened = await openBoard({ width: 1920, height: 1080 });
    try {
      const fonts = await platformFonts(opened.page, `#rows tr[data-user="${teams[0].user.id}"] td.name`);
      expect(fonts.length).toBeGreaterThan(0);
      expect(fonts.every((font) => cjkFamilies().includes(font))).toBe(true);
    } finally {
      await opened.context.close();
    }
  });
});

describe("the board on a 1366×768 laptop", () => {
  test.skipIf(noChromium)("still fits the width, shows whole rows, turns its pages, and no text is tiny", async () => {
    const opened = await openBoard({ width: 1366, height: 768 });
    try {
      const { page } = opened;
      await page.screenshot({ path: join(shots, "board-768p.png") });
      const first = await figuresOf(page);
      expect(first.tableWidth).toBeLessThanOrEqual(1366);
      expect(first.overflowsWidth).toBe(false);
      expect(first.documentScrolls).toBe(false);
      expect(first.cutRows).toBe(0);
      expect(first.shown[1] - first.shown[0] + 1).toBeGreaterThanOrEqual(10);
      expect(first.smallestText.size).toBeGreaterThanOrEqual(14);
      await page.clock.runFor(BOARD_PAGE_MS);
      expect((await figuresOf(page)).shown[0]).toBe(first.shown[1] + 1);
    } finally {
      await opened.context.close();
    }
  });

  test.skipIf(noChromium)(
    "a viewer who presses a key holds the page still for a while, then it turns again",
    async () => {
      const opened = await openBoard({ width: 1366, height: 768 });
      try {
        const { page } = opened;
        const first = await figuresOf(page);
        await page.keyboard.press("Shift");
        await page.clock.runFor(BOARD_PAGE_MS);
        expect((await figuresOf(page)).shown).toEqual(first.shown);
        await page.clock.runFor(BOARD_HOLD_MS);
        expect((await figuresOf(page)).shown[0]).toBeGreaterThan(first.shown[0]);
      } finally {
        await opened.context.close();
      }
    },
  );
});
