/**
 * Whether a set of paths can be laid out as files in one directory on the judge: the API refuses a
 * submission or a config archive that cannot (at the door, with the reason), and the judge checks again
 * rather than trust it. Shared by both programs.
 */

/** The most bytes one name may take on Linux file systems (NAME_MAX): a name of 255 characters may not fit. */
export const NAME_MAX_BYTES = 255;
/** The most bytes of a path the judge lays out under its run directory (well within PATH_MAX). */
export const PATH_MAX_BYTES = 1024;

const bytes = (text: string) => Buffer.byteLength(text, "utf8");
const shown = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);

/** Why one path cannot be a file's path under a directory, or null. */
export function pathProblem(path: string): string | null {
  const parts = path.split("/");
  if (path.startsWith("/") || parts.some((part) => part === "" || part === "." || part === ".."))
    return `${shown(path)} is not a relative path`;
  if (path.includes("\0")) return `${shown(path)} holds a NUL byte`;
  if (bytes(path) > PATH_MAX_BYTES) return `the path ${shown(path)} is longer than ${PATH_MAX_BYTES} bytes`;
  const long = parts.find((part) => bytes(part) > NAME_MAX_BYTES);
  if (long) return `the name ${shown(long)} is longer than ${NAME_MAX_BYTES} bytes (in UTF-8)`;
  return null;
}

/**
 * Why these files (and directories) cannot all be laid out in one directory, or null: a path that is not
 * relative, a name longer than a file system allows, the same file twice, or a file where another path
 * needs a folder ("a" and "a/b").
 */
export function layoutProblem(files: readonly string[], dirs: readonly string[] = []): string | null {
  const folders = new Set(dirs);
  for (const path of [...files, ...dirs]) {
    const problem = pathProblem(path);
    if (problem) return problem;
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
  }
  const seen = new Set<string>();
  for (const path of files) {
    if (seen.has(path)) return `${shown(path)} is there twice`;
    if (folders.has(path)) return `${shown(path)} is both a file and a folder`;
    seen.add(path);
  }
  return null;
}
