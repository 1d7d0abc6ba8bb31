import { realpathSync } from "node:fs";
import { join } from "node:path";

/**
 * What a sandboxed program can run: the one answer `bun run setup` and the judge both ask for (setup
 * installs Debian's toolchain when the sandbox lacks one, whatever the host's own PATH holds; the judge
 * refuses a preset it lacks). The sandbox binds the host's /usr read-only and nothing of /root, /opt or
 * /home, so a command counts only when it resolves, links followed, to a file under /usr (a rustup
 * `rustc` in /root/.cargo/bin, or a link to it in /usr/local/bin, does not).
 */

/** The sandbox's PATH (bwrapArgv sets it), in its order. */
export const SANDBOX_PATH = ["/usr/local/bin", "/usr/bin", "/bin"];
/** What of the host the sandbox sees, as the prefixes of what a command may resolve to. */
const VISIBLE = ["/usr/"];

/** Where the sandbox would run `command` from, as the host's resolved path, or null when it cannot. */
export function sandboxCommand(
  command: string,
  where: { dirs: readonly string[]; visible: readonly string[] } = { dirs: SANDBOX_PATH, visible: VISIBLE },
): string | null {
  for (const dir of where.dirs) {
    let real: string;
    try {
      real = realpathSync(join(dir, command));
    } catch {
      continue;
    }
    if (where.visible.some((prefix) => real.startsWith(prefix))) return real;
  }
  return null;
}

export const sandboxHas = (command: string) => sandboxCommand(command) !== null;
