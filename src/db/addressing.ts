const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * Horse's url-or-id addressing: a path segment that parses as a UUID is an id, anything else a url
 * slug. Slugs can never be UUIDs (URL_SLUG_PATTERN), so the two never collide.
 */
export function byUrlOrId(ref: string): { id: string } | { url: string } {
  return isUuid(ref) ? { id: ref.toLowerCase() } : { url: ref };
}

/** `[A-Za-z0-9_-]+`: what a url slug may contain (empty means "use the id"). */
export const URL_SLUG_PATTERN = "^[A-Za-z0-9_-]*$";
