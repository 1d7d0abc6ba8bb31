import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import { dirname, join } from "node:path";
import type { VersionInfo } from "../version";

const ASSETS_DIR = dirname(require.resolve("swagger-ui-dist/package.json"));
const ASSETS = new Set(["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"]);
export const DOCS_PATH = "/api/v1/docs";
export const SPEC_PATH = "/api/v1/openapi.json";

/**
 * OpenAPI 3 generated from the route schemas, and a Swagger UI whose assets this server serves itself
 * (the default UI loads them from a CDN and is blank without internet).
 */
export function docsPlugin(version: VersionInfo) {
  return new Elysia({ name: "docs" })
    .use(
      openapi({
        path: DOCS_PATH,
        specPath: SPEC_PATH,
        provider: "swagger-ui",
        swagger: { cdn: `${DOCS_PATH}/assets/swagger-ui-bundle.js`, theme: `${DOCS_PATH}/assets/swagger-ui.css`, autoDarkMode: false },
        exclude: { paths: [/^\/api\/v1\/docs/, "/healthz", "/readyz", "/", "/api"] },
        documentation: {
          info: { title: "JOJ Horse-compatible judge API", version: "1", description: `Build ${version.version} (${version.git})` },
          components: { securitySchemes: { HTTPBearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } } },
        },
      }),
    )
    .get(`${DOCS_PATH}/assets/:file`, ({ params, set }) => {
      if (!ASSETS.has(params.file)) {
        set.status = 404;
        return { detail: "Not Found" };
      }
      set.headers["cache-control"] = "public, max-age=86400";
      return Bun.file(join(ASSETS_DIR, params.file));
    });
}
