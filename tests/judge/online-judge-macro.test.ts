import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnApp, type TestApp } from "../helpers/spawn-app";
import { makeCast, type Cast } from "../helpers/domain-factories";
import { submit, submission } from "../helpers/records";
import { finalRecord, judgeEnv, judgerKey, listen, problemWithData, startJudge } from "../helpers/judging";

// Solutions written for HUSTOJ, Codeforces or Hydro read in.txt on the author's machine and stdin on a judge,
// telling the two apart by ONLINE_JUDGE: -DONLINE_JUDGE for C and C++, the JVM's system property for Java, and
// the environment variable for Python (as DOMjudge sets it). Each is judged here as it was written.
const UID_BASE = 76_000;
let t: TestApp;
let cast: Cast;
let judge: Awaited<ReturnType<typeof startJudge>>;
let problem: string;

const DATA = { "data/1.in": "20 22\n", "data/1.out": "42\n" };
const config = {
  languageDefault: {
    cases: [{ executeInputFile: "data/1.in", executeOutputFile: "data/1.out" }],
    caseDefault: { time: "3s", memory: "256m", score: 100 },
  },
  languages: ["c", "cpp", "java", "python3"].map((name) => ({ name, preset: name })),
};

beforeAll(async () => {
  t = await spawnApp({}, { configsWorker: true });
  cast = await makeCast(t);
  judge = await startJudge(judgeEnv(t, listen(t), await judgerKey(t, cast), UID_BASE));
  problem = await problemWithData(t, cast, config, DATA);
}, 60_000);
afterAll(async () => {
  await judge?.stop();
  await t.app.stop(true);
  await t.close();
});

async function judged(language: string, file: string, source: string) {
  const form = submission(language, { [file]: source });
  const path = `/domains/${cast.domain.id}/problems/${problem}`;
  const record = (await submit(t, cast.member.token, path, form)).body.data;
  await finalRecord(t, record.id, 120_000);
  return (await t.api.get(`/domains/${cast.domain.id}/records/${record.id}`, { token: cast.member.token })).body.data;
}

// Off a judge, the program reads in.txt: here there is none, so a program that still opened it would read nothing.
const HUSTOJ_C = `#include <stdio.h>
int main(void) {
#ifndef ONLINE_JUDGE
  freopen("in.txt", "r", stdin);
  freopen("out.txt", "w", stdout);
#endif
  int a, b;
  if (scanf("%d %d", &a, &b) != 2) return 1;
  printf("%d\\n", a + b);
  return 0;
}
`;
const HUSTOJ_CPP = `#include <cstdio>
#include <iostream>
int main() {
#ifndef ONLINE_JUDGE
  freopen("in.txt", "r", stdin);
  freopen("out.txt", "w", stdout);
#endif
  int a, b;
  if (!(std::cin >> a >> b)) return 1;
  std::cout << a + b << '\\n';
}
`;
const CODEFORCES_JAVA = `import java.io.*;
import java.util.*;
public class Main {
  public static void main(String[] args) throws IOException {
    if (System.getProperty("ONLINE_JUDGE") == null) System.setIn(new FileInputStream("in.txt"));
    Scanner in = new Scanner(System.in);
    System.out.println(in.nextInt() + in.nextInt());
  }
}
`;
const DOMJUDGE_PYTHON = `import os, sys
if not os.environ.get("ONLINE_JUDGE"):
    sys.stdin = open("in.txt")
a, b = map(int, sys.stdin.readline().split())
print(a + b)
`;

describe("ONLINE_JUDGE is defined where each language's judges define it", () => {
  const programs = [
    ["c", "main.c", HUSTOJ_C],
    ["cpp", "main.cpp", HUSTOJ_CPP],
    ["java", "Main.java", CODEFORCES_JAVA],
    ["python3", "main.py", DOMJUDGE_PYTHON],
  ] as const;
  for (const [language, file, source] of programs)
    test(`a ${language} solution that reads in.txt unless ONLINE_JUDGE is accepted`, async () => {
      const record = await judged(language, file, source);
      expect(record.cases.map((c: { state: string }) => c.state)).toEqual(["accepted"]);
      expect(record.state).toBe("accepted");
    }, 150_000);
});
