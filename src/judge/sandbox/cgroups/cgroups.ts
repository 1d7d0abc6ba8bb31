import { join } from "node:path";
import { CgroupUnavailable, read, type CgroupHost } from "./cgroup-common";
import { openV1, V1_CONTROLLERS, type V1Dirs } from "./cgroup-v1";
import { openV2, V2_CONTROLLERS } from "./cgroup-v2";

/**
 * Resource accounting from outside the sandbox. Every run (a compile, a case) happens in a cgroup that
 * the judge creates and reads on the host: the memory limit covers every process and thread of the
 * run and the tmpfs pages it writes, the peak and the CPU time are the whole group's, a pids limit
 * bounds forks, and an OOM kill is seen as such. Only the program's own process tree is in the group:
 * the runner's child joins it just before exec, through descriptors the judge opened as root, so the
 * sandbox's own set-up costs neither time nor memory. cgroup v2 and v1 (hybrid hosts) are supported.
 */

export {
  CgroupDirty,
  CgroupUnavailable,
  closeFds,
  type CgroupHost,
  type RunAccount,
  type RunCgroup,
} from "./cgroup-common";
export { openV2 } from "./cgroup-v2";

/** The mount points of cgroup hierarchies, from /proc/self/mountinfo. */
export function parseMounts(mountinfo: string): {
  v2: { root: string; at: string } | null;
  v1: Map<string, { root: string; at: string }>;
} {
  const v1 = new Map<string, { root: string; at: string }>();
  let v2: { root: string; at: string } | null = null;
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const fields = left.split(" ");
    const [type, , options = ""] = right.split(" ");
    const mount = { root: fields[3], at: fields[4] };
    if (type === "cgroup2") v2 ??= mount;
    else if (type === "cgroup") for (const option of options.split(",")) if (!v1.has(option)) v1.set(option, mount);
  }
  return { v2, v1 };
}

/** This process's cgroup path in each hierarchy, from /proc/self/cgroup ("" is the v2 one). */
export function parseOwnGroups(text: string): Map<string, string> {
  const groups = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    if (match[2] === "") groups.set("", match[3]);
    for (const controller of match[2].split(",")) if (controller) groups.set(controller, match[3]);
  }
  return groups;
}

/** The directory of a group path inside a mount whose root may itself be a sub-group (containers). */
const dirOf = (mount: { root: string; at: string }, group: string) =>
  join(mount.at, mount.root !== "/" && group.startsWith(mount.root) ? group.slice(mount.root.length) : group);

/** Finds usable cgroups (v2 first, else v1) or says what to enable; never a weaker mode. */
export function detectCgroups(
  name = "joj-judge",
  proc = { mountinfo: read("/proc/self/mountinfo"), cgroup: read("/proc/self/cgroup") },
): CgroupHost {
  const { v2, v1 } = parseMounts(proc.mountinfo);
  const own = parseOwnGroups(proc.cgroup);
  const problems: string[] = [];
  if (v2 && own.has("")) {
    const dir = dirOf(v2, own.get("")!);
    const available = read(join(dir, "cgroup.controllers")).trim().split(/\s+/);
    const missing = V2_CONTROLLERS.filter((c) => !available.includes(c));
    if (missing.length === 0) return openV2(dir, name);
    problems.push(`cgroup v2 at ${v2.at} lacks the ${missing.join(", ")} controller(s) in ${dir}`);
  }
  const missing = V1_CONTROLLERS.filter((c) => !v1.has(c) || !own.has(c));
  if (missing.length === 0)
    return openV1(
      Object.fromEntries(V1_CONTROLLERS.map((c) => [c, join(dirOf(v1.get(c)!, own.get(c)!), name)])) as V1Dirs,
    );
  problems.push(`cgroup v1 has no ${missing.join(", ")} hierarchy`);
  throw new CgroupUnavailable(
    `the judge needs cgroups to measure and limit programs (${problems.join("; ")}). Enable cgroup v2 with the ` +
      `memory, ` +
      "pids and cpu controllers (the default of current systemd hosts), or mount the v1 memory, pids and cpuacct " +
      "hierarchies; in Docker run the judge privileged (compose.yaml does). The judge refuses to run without them.",
  );
}
