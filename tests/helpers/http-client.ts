import type { App } from "../../src/server/app";

export interface CallOptions {
  token?: string;
  /** Cookie header value, e.g. from `cookieHeader(response)`. */
  cookie?: string;
  headers?: Record<string, string>;
  /** Send the body as `application/x-www-form-urlencoded` instead of JSON. */
  form?: boolean;
  /** Send this string as the raw body. */
  raw?: string;
  /** Send this as a multipart/form-data body. */
  multipart?: FormData;
  /** Return the body as bytes. */
  binary?: boolean;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Drives the app through `app.handle` with real `Request` objects, like an HTTP client would. */
export class HttpClient {
  constructor(private readonly app: App) {}

  async call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    options: CallOptions = {},
  ): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.cookie) headers.cookie = options.cookie;
    let payload: string | FormData | undefined;
    if (options.multipart) {
      payload = options.multipart;
    } else if (options.raw !== undefined) {
      payload = options.raw;
      headers["content-type"] ??= "application/json";
    } else if (body !== undefined) {
      if (options.form) {
        payload = new URLSearchParams(body as Record<string, string>).toString();
        headers["content-type"] = "application/x-www-form-urlencoded";
      } else {
        payload = JSON.stringify(body);
        headers["content-type"] = "application/json";
      }
    }
    const url = path.startsWith("http")
      ? path
      : `http://localhost${path.startsWith("/api") || path.startsWith("/healthz") || path.startsWith("/readyz") || path === "/" ? path : `/api/v1${path}`}`;
    const response = await this.app.handle(new Request(url, { method, headers, body: payload }));
    if (options.binary)
      return {
        status: response.status,
        headers: response.headers,
        body: new Uint8Array(await response.arrayBuffer()) as T,
        text: "",
      };
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (an HTML page, an asset): keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: CallOptions) {
    return this.call<T>("GET", path, undefined, options);
  }
  post<T = any>(path: string, body?: unknown, options?: CallOptions) {
    return this.call<T>("POST", path, body, options);
  }
  patch<T = any>(path: string, body?: unknown, options?: CallOptions) {
    return this.call<T>("PATCH", path, body, options);
  }
  put<T = any>(path: string, body?: unknown, options?: CallOptions) {
    return this.call<T>("PUT", path, body, options);
  }
  delete<T = any>(path: string, options?: CallOptions) {
    return this.call<T>("DELETE", path, undefined, options);
  }
}

/** The `name=value` pairs a response set, as a Cookie header for the next request. */
export function cookieHeader(response: TestResponse): string {
  return response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .filter((pair) => !pair.endsWith("="))
    .join("; ");
}

export function setCookies(response: TestResponse): Record<string, string> {
  return Object.fromEntries(
    response.headers.getSetCookie().map((c) => {
      const [pair] = c.split(";");
      const at = pair.indexOf("=");
      return [pair.slice(0, at), c];
    }),
  );
}
