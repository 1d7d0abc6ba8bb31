/**
 * Text for the self-contained pages the server writes (the similarity report, the scoreboard): markup escaped,
 * and data as JSON inside a script element.
 */

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * JSON safe inside a script element: `<` escaped (so no value can close the script), and the two line
 * separators JavaScript once refused.
 */
export const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
