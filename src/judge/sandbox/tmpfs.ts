/**
 * tmpfs mounts of the judge's own on the host (it runs as root): each slot's directory and each container's
 * stage. A file system of its own bounds what is written there, and a bind from it names no directory of
 * the host in a program's /proc/self/mountinfo (the path a bind shows is the one inside its file system).
 */
export function mountTmpfs(where: string, bytes: number, mode: string): void {
  const mount = Bun.spawnSync(
    ["mount", "-t", "tmpfs", "-o", `size=${bytes},mode=${mode},nosuid,nodev`, "tmpfs", where],
    { stderr: "pipe" },
  );
  if (mount.exitCode !== 0)
    throw new Error(`cannot mount a tmpfs on ${where}: ${mount.stderr.toString().trim()} (the judge needs root)`);
}

/** Lazy: a mount that is still busy goes as soon as nothing uses it. No mount there is fine. */
export function unmount(where: string): void {
  Bun.spawnSync(["umount", "-l", where], { stderr: "ignore", stdout: "ignore" });
}
