/**
 * `work`, or a rejection with `message` once `ms` have passed, whichever comes first. The timer is
 * cleared either way, so a fast answer leaves nothing pending. The work itself is not cancelled: the
 * caller stops waiting for it.
 */
export function withTimeout<T>(work: Promise<T>, ms: number, message = `timed out after ${ms} ms`): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
