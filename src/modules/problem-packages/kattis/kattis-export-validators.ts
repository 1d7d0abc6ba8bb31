import { posix } from "node:path";
import type { InputValidatorInput } from "../../../core/config-model/config-schema";
import { clean, type Exporting } from "./kattis-export-cases";
import { safeName } from "./kattis-export-extras";

/**
 * The problem's input validators (config.json inputValidators) in input_validators/, where problemtools runs each
 * on every test input and wants one at least (legacy and 2023-07-draft: "No input format validators found"). A
 * Kattis package's own folder went out with its files already; the others are placed by what they speak: a
 * Kattis program (exit 42/43) as it is, a checktestdata script as a .ctd file, a testlib one (Polygon's: exit 0
 * valid) inside a Python program of ours that builds it and says its answer in Kattis's exit codes.
 */

const KATTIS_FOLDER = /^input_(format_)?validators\//;

export async function writeInputValidators(x: Exporting, validators: InputValidatorInput[], kattis: boolean) {
  const taken = new Set([...x.out.keys()].flatMap((path) => (KATTIS_FOLDER.test(path) ? [path.split("/")[1]] : [])));
  for (const validator of validators) {
    const files = validator.files.map(clean);
    if (kattis && files.every((file) => KATTIS_FOLDER.test(file))) continue;
    const stem = posix.basename(files[0]).replace(/\.[^.]*$/, "") || "validator";
    const protocol = validator.protocol ?? "testlib";
    if (protocol === "checktestdata") x.copyFrom(`input_validators/${safeName(`${stem}.ctd`, taken)}`, files[0]);
    else if (protocol === "testlib")
      x.add(`input_validators/${safeName(`${stem}.py`, taken)}`, await testlibWrapper(x, validator, files));
    else if (files.length === 1) x.copyFrom(`input_validators/${safeName(posix.basename(files[0]), taken)}`, files[0]);
    else {
      const folder = safeName(stem, taken);
      const common = commonFolder(files);
      for (const file of files) x.copyFrom(`input_validators/${folder}/${file.slice(common.length)}`, file);
    }
  }
}

/** The folder every file is in ("" for none), with its slash: a program's files keep their places below it. */
function commonFolder(files: string[]): string {
  let common = posix.dirname(files[0]);
  while (common !== "." && !files.every((file) => file.startsWith(`${common}/`))) common = posix.dirname(common);
  return common === "." ? "" : `${common}/`;
}

/**
 * A Python program that carries the validator's files at their config paths (text as text, anything else in
 * base64), builds them with the config's own command once (cached in the temporary folder by their hash, since
 * problemtools runs it on every input and more), runs it with the input on stdin, and exits 42 for its 0, else 43.
 */
async function testlibWrapper(x: Exporting, validator: InputValidatorInput, files: string[]): Promise<string> {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const entries: string[] = [];
  for (const file of files) {
    const data = await x.bytesOf(file);
    let literal: string;
    try {
      // A JSON string is a Python string literal of the same text.
      literal = JSON.stringify(utf8.decode(data));
    } catch {
      literal = `base64.b64decode("${Buffer.from(data).toString("base64")}")`;
    }
    entries.push(`    ${JSON.stringify(file)}: ${literal},`);
  }
  // Replaced by functions: a replacement string would read a source's "$&" or "$1" as a pattern.
  return WRAPPER.replace("@FILES@", () => entries.join("\n"))
    .replace("@COMPILE@", () => JSON.stringify(validator.compileArgs ?? []))
    .replace("@EXECUTE@", () => JSON.stringify(validator.executeArgs));
}

const WRAPPER = `#!/usr/bin/env python3
# A testlib-style input validator (Polygon's: exit 0 when the input is valid) as Kattis runs one: its files are
# below, built once with their own command and run with the input on stdin; 0 is Kattis's 42, anything else 43.
import base64, hashlib, os, subprocess, sys, tempfile

FILES = {
@FILES@
}
COMPILE = @COMPILE@
EXECUTE = @EXECUTE@


def build():
    digest = hashlib.sha256(repr((sorted(FILES.items()), COMPILE)).encode()).hexdigest()[:20]
    home = os.path.join(tempfile.gettempdir(), "testlib-validator-" + digest)
    if os.path.isdir(home):
        return home
    work = tempfile.mkdtemp(prefix="testlib-validator-")
    for name, data in FILES.items():
        os.makedirs(os.path.dirname(os.path.join(work, name)), exist_ok=True)
        with open(os.path.join(work, name), "wb") as out:
            out.write(data.encode() if isinstance(data, str) else data)
    if COMPILE and subprocess.call(COMPILE, cwd=work, stdout=sys.stderr) != 0:
        sys.exit("the validator does not compile")
    try:
        os.rename(work, home)  # another run may have built it first: then use that one
    except OSError:
        pass
    return home


sys.exit(42 if subprocess.call(EXECUTE, cwd=build()) == 0 else 43)
`;
