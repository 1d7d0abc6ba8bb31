import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import { dirname, join } from "node:path";
import { installFastFormats } from "./fast-formats";
import type { VersionInfo } from "../runtime/version";

// After @elysiajs/openapi is loaded: it replaces the `uuid` check with a slow one (fast-formats.ts).
installFastFormats();

const ASSETS_DIR = dirname(require.resolve("swagger-ui-dist/package.json"));
const ASSETS = new Set(["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"]);
export const DOCS_PATH = "/api/v1/docs";
export const SPEC_PATH = "/api/v1/openapi.json";

/**
 * OpenAPI 3 generated from the route schemas, and a Swagger UI page of our own whose assets this server
 * serves itself (the plugin's page loads them from a CDN and is blank without internet). The plugin's page
 * also asks for the document at `specPath` made relative to the page, which for a page at /api/v1/docs
 * means /api/v1/api/v1/openapi.json, a 404; its options offer no other URL.
 */
export function docsPlugin(version: VersionInfo, routes: () => readonly RouteInfo[]) {
  return new Elysia({ name: "docs" })
    .onAfterHandle({ as: "global" }, ({ path, response }) => {
      if (path === SPEC_PATH && response && typeof response === "object")
        fillRequestContent(response as OpenApiDoc, routes());
    })
    .use(
      openapi({
        path: DOCS_PATH,
        specPath: SPEC_PATH,
        provider: null,
        // staticFile: routes with a dot would be dropped as static files (the grades export, `scoreboard.csv`).
        exclude: { staticFile: false, paths: [/^\/api\/v1\/docs/, "/healthz", "/readyz", "/metrics", "/", "/api"] },
        documentation: {
          info: {
            title: "JOJ Horse-compatible judge API",
            version: "1",
            description: `Build ${version.version} (${version.git})`,
          },
          components: { securitySchemes: { HTTPBearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } } },
        },
      }),
    )
    .get(DOCS_PATH, ({ set }) => {
      set.headers["content-type"] = "text/html; charset=utf-8";
      return DOCS_PAGE;
    })
    .get(`${DOCS_PATH}/assets/:file`, ({ params, set }) => {
      if (!ASSETS.has(params.file)) {
        set.status = 404;
        return { detail: "Not Found" };
      }
      set.headers["cache-control"] = "public, max-age=86400";
      return Bun.file(join(ASSETS_DIR, params.file));
    });
}

// The document by its absolute path: the page is reached as /api/v1/docs and as /api/v1/docs/ alike.
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>JOJ Horse-compatible judge API</title>
  <link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui.css">
  <link rel="icon" href="${DOCS_PATH}/assets/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_PATH}/assets/swagger-ui-bundle.js"></script>
  <script>window.ui = SwaggerUIBundle(${JSON.stringify({ url: SPEC_PATH, dom_id: "#swagger-ui" })});</script>
</body>
</html>
`;

/** What the document needs to know of a route: its method, path, declared body and content type. */
export interface RouteInfo {
  method: string;
  path: string;
  hooks: { body?: unknown; type?: string };
}

type OpenApiDoc = { paths?: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>> };

// What @elysiajs/openapi offers when a route names no content type.
const DEFAULT_CONTENT = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"];

/**
 * The auth checks run as parse hooks (before a body is read), and @elysiajs/openapi writes a request
 * body's media types only from parse hooks that name one: it leaves `content` empty for those routes.
 * Filled here from the route's own declaration, as the plugin would have without the hooks.
 */
function fillRequestContent(doc: OpenApiDoc, routes: readonly RouteInfo[]): void {
  for (const route of routes) {
    if (!route.hooks.body) continue;
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    const body = doc.paths?.[path]?.[route.method.toLowerCase()]?.requestBody;
    if (!body || (body.content && Object.keys(body.content).length > 0)) continue;
    const schema = JSON.parse(JSON.stringify(route.hooks.body));
    body.content = Object.fromEntries(
      (route.hooks.type ? [route.hooks.type] : DEFAULT_CONTENT).map((type) => [type, { schema }]),
    );
  }
}
