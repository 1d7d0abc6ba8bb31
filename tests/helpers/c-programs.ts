import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Compiles a C program on the host into `dir` (its source beside it), as the judge's tests build their plants. */
export async function compileC(dir: string, name: string, source: string): Promise<string> {
  await writeFile(join(dir, `${name}.c`), source);
  const gcc = Bun.spawn(["gcc", "-O1", "-o", join(dir, name), join(dir, `${name}.c`)], { stderr: "pipe" });
  if ((await gcc.exited) !== 0) throw new Error(await new Response(gcc.stderr).text());
  return join(dir, name);
}
