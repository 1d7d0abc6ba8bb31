import pkg from "../../package.json";

export interface VersionInfo {
  version: string;
  git: string;
}

/**
 * The running build: the package version, and `<commit>@<commit time>` like Horse's `git` field.
 * GIT_COMMIT/GIT_COMMIT_TIME (set by the Docker build) win; otherwise git is asked once at start-up.
 */
export function readVersion(env: Record<string, string | undefined> = process.env): VersionInfo {
  if (env.GIT_COMMIT) return { version: pkg.version, git: `${env.GIT_COMMIT}@${env.GIT_COMMIT_TIME ?? "unknown"}` };
  try {
    const result = Bun.spawnSync(["git", "log", "-1", "--format=%h@%cI"], { stdout: "pipe", stderr: "ignore" });
    const line = result.stdout.toString().trim();
    if (result.exitCode === 0 && line) return { version: pkg.version, git: line };
  } catch {
    // git is not installed in every image; the version alone still identifies the release.
  }
  return { version: pkg.version, git: "unknown" };
}
