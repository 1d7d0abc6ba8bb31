import type { TestApp } from "./spawn-app";

/**
 * A browser for redirect flows: one cookie jar per origin, redirects followed by hand. Requests to the
 * app's PUBLIC_URL go through `app.handle`; everything else (an OAuth provider) over the network.
 */
export class Browser {
  readonly jars = new Map<string, Map<string, string>>();

  constructor(private readonly t: TestApp) {}

  jar(origin: string): Map<string, string> {
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    this.jars.set(origin, jar);
    return jar;
  }

  async get(url: string): Promise<Response> {
    const target = new URL(url);
    const cookie = [...this.jar(target.origin)].map(([k, v]) => `${k}=${v}`).join("; ");
    const headers: Record<string, string> = cookie ? { cookie } : {};
    const response =
      target.origin === this.t.config.publicUrl
        ? await this.t.app.handle(new Request(url, { headers }))
        : await fetch(url, { headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const [name, ...rest] = pair.split("=");
      const value = rest.join("=");
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) this.jar(target.origin).delete(name.trim());
      else this.jar(target.origin).set(name.trim(), value);
    }
    return response;
  }

  /** Follows redirects from `url` until one leads to `stopAt` (an app URL prefix) or a page answers. */
  async follow(url: string, stopAt: string): Promise<{ response: Response; url: string }> {
    let current = url;
    for (let hop = 0; hop < 20; hop++) {
      const response = await this.get(current);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || !location) return { response, url: current };
      current = new URL(location, current).toString();
      if (current.startsWith(stopAt)) return { response, url: current };
    }
    throw new Error("too many redirects");
  }

  cookie(origin: string, name: string): string | undefined {
    return this.jar(origin).get(name);
  }
}
