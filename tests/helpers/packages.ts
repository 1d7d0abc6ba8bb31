import type { Cast } from "./domain-factories";
import { finalRecord } from "./judging";
import { submission, submit } from "./records";
import type { TestApp } from "./spawn-app";

// Problem packages through the API, as a teacher uploads them (docs/problem-packages.md).

export type Envelope = { errorCode: string; errorMsg: string; data: any };

/** POST …/problem_packages with the file as it is (a zip, or an FPS .xml), and any form fields. */
export async function uploadPackage(
  t: TestApp,
  cast: Cast,
  file: { bytes: Uint8Array | string; name: string },
  token = cast.admin.token,
  fields: Record<string, string> = {},
): Promise<{ status: number; body: Envelope }> {
  const form = new FormData();
  form.append("file", new Blob([file.bytes]), file.name);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const response = await t.app.handle(
    new Request(`http://localhost/api/v1/domains/${cast.domain.id}/problem_packages`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  return { status: response.status, body: (await response.json()) as Envelope };
}

/** The package's verification once nothing is being judged (or the wait is over). */
export async function verificationOf(t: TestApp, cast: Cast, problem: string, waitMs = 180_000) {
  const path = `/domains/${cast.domain.id}/problems/${problem}/package/verification`;
  let view = (await t.api.get(path, { token: cast.admin.token })).body.data;
  for (const until = Date.now() + waitMs; view.pending > 0 && Date.now() < until; await Bun.sleep(250))
    view = (await t.api.get(path, { token: cast.admin.token })).body.data;
  return view;
}

/** A student's submission judged, read back as staff (the secret cases' messages are blanked for students). */
export async function judgedRecord(
  t: TestApp,
  cast: Cast,
  problem: string,
  program: { language: string; file: string; source: string },
): Promise<{ state: string; score: number; cases: { state: string; stderr: string }[] }> {
  const path = `/domains/${cast.domain.id}/problems/${problem}`;
  const files = { [program.file]: program.source };
  const record = (await submit(t, cast.member.token, path, submission(program.language, files))).body.data;
  await finalRecord(t, record.id, 180_000);
  return (await t.api.get(`/domains/${cast.domain.id}/records/${record.id}`, { token: cast.admin.token })).body.data;
}
