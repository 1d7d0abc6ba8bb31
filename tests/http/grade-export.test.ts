import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { addMembership, makeCast, type Cast } from "../helpers/domain-factories";
import { createUser, type TestUser } from "../helpers/factories";
import { judgeableProblem, recordRow, submit } from "../helpers/records";

let t: TestApp;
let cast: Cast;
let judger: TestUser;
let students: TestUser[];
let problems: string[];
let set: string;
const domain = () => `/domains/${cast.domain.id}`;

/** Who is who in the grade book: student ids that sort numerically, names in three scripts, a hostile one. */
const PEOPLE = [
  { username: "张伟", studentId: "520030910002", realName: "张伟" },
  { username: "Yvonne O'Connor-Price", studentId: "520030910010", realName: 'Yvonne "Vonnie", O\'Connor' },
  { username: '=HYPERLINK("http://evil.example","x")', studentId: "520030910001", realName: "-2+3" },
  { username: "欧阳娜娜", studentId: "", realName: "欧阳娜娜" },
];

async function judged(student: TestUser, problem: string, score: number) {
  const id = (await submit(t, student.token, `${domain()}/problem_sets/${set}/problems/${problem}/submit`)).body.data
    .id;
  const { task_id } = await recordRow(t, id);
  await t.api.post(`${domain()}/records/${id}/judge/claim`, { taskId: task_id }, { token: judger.token });
  await t.api.put(
    `${domain()}/records/${id}/judge`,
    { state: score === 100 ? "accepted" : "rejected", score },
    { token: judger.token },
  );
}

beforeAll(async () => {
  t = await spawnApp();
  cast = await makeCast(t);
  judger = await createUser(t, { role: "judger" });
  students = [];
  for (const person of PEOPLE) {
    const student = await createUser(t, { username: person.username });
    await t.orm.em
      .fork()
      .execute("update users set student_id = ?, real_name = ? where id = ?", [
        person.studentId,
        person.realName,
        student.user.id,
      ]);
    await addMembership(t, cast.domain, student, "user");
    students.push(student);
  }
  problems = [
    await judgeableProblem(t, cast, { body: { title: "两数之和" } }),
    await judgeableProblem(t, cast, { body: { title: "Sorting, fast" } }),
  ];
  set = (await t.api.post(`${domain()}/problem_sets`, { title: "作业 1 / HW1" }, { token: cast.admin.token })).body.data
    .id;
  for (const p of problems)
    await t.api.post(`${domain()}/problem_sets/${set}/problems`, { problem: p }, { token: cast.admin.token });
  // 张伟: 100 then 40 on the first (best 100), 30 on the second. After the due date: O'Connor 70 on the first,
  // the hostile name 100 on the second, both late.
  // The admin tries the set before the students: staff's record, on the board, not in the students' grade book.
  await judged(cast.admin, problems[0], 100);
  await judged(students[0], problems[0], 100);
  await judged(students[0], problems[0], 40);
  await judged(students[0], problems[1], 30);
  // Due now: what came before is on time, what comes after is late (the board reads lateness from the times).
  await t.orm.em.fork().execute("update problem_sets set due_at = now() where id = ?", [set]);
  await judged(students[1], problems[0], 70);
  await judged(students[2], problems[1], 100);
});
afterAll(async () => {
  await t?.close();
});

const csvPath = () => `/api/v1${domain()}/problem_sets/${set}/scoreboard.csv`;
const downloadWith = (query: string, token: string) =>
  t.app.handle(new Request(`http://localhost${csvPath()}${query}`, { headers: { authorization: `Bearer ${token}` } }));
const download = (token?: string) =>
  t.app.handle(
    new Request(`http://localhost${csvPath()}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }),
  );

describe("GET …/problem_sets/{set}/scoreboard.csv", () => {
  test("one row per student by student id, scores with late flags, totals; UTF-8 with a BOM, CRLF, quoted, formulas defused", async () => {
    const response = await download(cast.admin.token);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toContain(
      `filename*=UTF-8''${encodeURIComponent("作业 1 / HW1.csv")}`,
    );
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes.slice(3));
    const lines = text.split("\r\n");
    expect(lines[0]).toBe(
      'student id,real name,username,两数之和,两数之和 (raw),两数之和 (late),"Sorting, fast","Sorting, fast (raw)","Sorting, fast (late)",total',
    );
    expect(lines).toContain(`520030910002,张伟,张伟,100,100,,30,30,,130`);
    expect(lines).toContain(`520030910010,"Yvonne ""Vonnie"", O'Connor",Yvonne O'Connor-Price,70,70,late,,,,70`);
    // A formula in a name is text to the spreadsheet, not a formula.
    expect(lines).toContain(`520030910001,'-2+3,"'=HYPERLINK(""http://evil.example"",""x"")",,,,100,100,late,100`);
    const order = lines
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split(",")[0]);
    // Members with a student id by number, then those without (staff of the cast, the last student).
    expect(order.slice(0, 3)).toEqual(["520030910001", "520030910002", "520030910010"]);
    expect(lines.filter((line) => line.includes("欧阳娜娜"))).toEqual([",欧阳娜娜,欧阳娜娜,,,,,,,0"]);
    // Every student is in the grade book, submitted or not: the four, and the cast's member (role `user`); not
    // the owner, the admin who tested the set, or the guest, who may not submit.
    expect(lines.slice(1).filter(Boolean)).toHaveLength(1 + PEOPLE.length);
    expect(text).toContain(cast.member.user.username);
    for (const staff of [cast.owner, cast.admin, cast.guest]) expect(text).not.toContain(staff.user.username);
  });

  test("staff rows on demand (staff=true): every member, the admin who tested the set with the score", async () => {
    const text = new TextDecoder().decode(
      new Uint8Array(await (await downloadWith("?staff=true", cast.admin.token)).arrayBuffer()).slice(3),
    );
    const rows = text.split("\r\n").filter(Boolean).slice(1);
    expect(rows).toHaveLength(4 + PEOPLE.length);
    expect(rows.find((row) => row.includes(cast.admin.user.username))?.endsWith(",100")).toBe(true);
    // A student asking for staff rows gets the students' board all the same.
    const asked = await (await downloadWith("?staff=true", students[0].token)).text();
    expect(asked).not.toContain(cast.admin.user.username);
    expect((await downloadWith("?staff=sometimes", cast.admin.token)).status).toBe(422);
  });

  test("the scoreboard's permission rule: anonymous 401, guest 403, a hidden board refused to students", async () => {
    expect((await download()).status).toBe(401);
    expect(await (await download(cast.guest.token)).json()).toEqual({ detail: "problem_set view Permission Denied." });
    await t.api.patch(`${domain()}/problem_sets/${set}`, { scoreboardHidden: true }, { token: cast.admin.token });
    try {
      const hidden = (await (await download(students[0].token)).json()) as { errorCode: string };
      expect(hidden.errorCode).toBe("ScoreboardHiddenBadRequestError");
      expect((await download(cast.admin.token)).status).toBe(200);
    } finally {
      await t.api.patch(`${domain()}/problem_sets/${set}`, { scoreboardHidden: false }, { token: cast.admin.token });
    }
  });

  test("a student gets the scoreboard's rows without classmates' student ids and real names", async () => {
    const response = await download(students[0].token);
    expect(response.status).toBe(200);
    const text = new TextDecoder().decode(new Uint8Array(await response.arrayBuffer()).slice(3));
    const rows = text.split("\r\n").filter(Boolean).slice(1);
    // The scoreboard's rows, every student's (the four and the cast's member), none of staff's, and no
    // private column filled in.
    expect(rows).toHaveLength(1 + PEOPLE.length);
    expect(text).not.toContain(cast.admin.user.username);
    for (const row of rows) expect(row.startsWith(",,")).toBe(true);
    for (const person of PEOPLE) if (person.studentId) expect(text).not.toContain(person.studentId);
    expect(text).not.toContain("Vonnie");
    expect(rows.some((row) => row.startsWith(",,张伟,100,100,,30,30,,130"))).toBe(true);
  });

  // LibreOffice is installed by .ci/run; elsewhere the test runs when it is there.
  const soffice = Bun.which("soffice");
  test.skipIf(!soffice && !process.env.CI)(
    "LibreOffice opens the file with the Chinese names intact and the right totals",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "joj-grades-"));
      try {
        writeFileSync(join(dir, "grades.csv"), new Uint8Array(await (await download(cast.admin.token)).arrayBuffer()));
        // Headless LibreOffice shows no import dialog (which reads the BOM), so it is told what the dialog would
        // pick: comma, double quote, UTF-8 (76), from line 1. The BOM must not become part of the first cell.
        const run = Bun.spawnSync(
          [
            soffice ?? "soffice",
            `-env:UserInstallation=file://${dir}/profile`,
            "--headless",
            "--infilter=CSV:44,34,76,1",
            "--convert-to",
            "html",
            "--outdir",
            dir,
            join(dir, "grades.csv"),
          ],
          { timeout: 120_000 },
        );
        expect(run.exitCode).toBe(0);
        const html = readFileSync(join(dir, "grades.html"), "utf8");
        const rows = [...html.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
          [...row[1].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) =>
            decodeHtml(cell[1].replace(/<[^>]+>/g, "").trim()),
          ),
        );
        expect(rows[0]).toEqual([
          "student id",
          "real name",
          "username",
          "两数之和",
          "两数之和 (raw)",
          "两数之和 (late)",
          "Sorting, fast",
          "Sorting, fast (raw)",
          "Sorting, fast (late)",
          "total",
        ]);
        const byName = new Map(rows.slice(1).map((row) => [row[2], row]));
        expect(byName.get("张伟")).toEqual(["520030910002", "张伟", "张伟", "100", "100", "", "30", "30", "", "130"]);
        expect(byName.get("欧阳娜娜")?.[9]).toBe("0");
        expect(byName.get("Yvonne O'Connor-Price")?.slice(1, 6)).toEqual([
          'Yvonne "Vonnie", O\'Connor',
          "Yvonne O'Connor-Price",
          "70",
          "70",
          "late",
        ]);
        // The hostile cells stay text: no formula ran (=-2+3 would show 1, the HYPERLINK a link text "x").
        const hostile = rows.find((row) => row[0] === "520030910001");
        expect(hostile?.slice(1, 3)).toEqual(["'-2+3", '\'=HYPERLINK("http://evil.example","x")']);
        expect(rows).toHaveLength(1 + 1 + PEOPLE.length);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    150_000,
  );
});

function decodeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, "&");
}
