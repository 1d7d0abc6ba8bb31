import { Elysia } from "elysia";
import type { AppDeps } from "./app-deps";
import { withTimeout } from "../core/timeout";

const CHECK_TIMEOUT_MS = 2_000;

/** Outside /api/v1: `/healthz` says the process is alive, `/readyz` that PostgreSQL and Redis answer. */
export function healthRoutes(deps: AppDeps) {
  return new Elysia({ name: "health" })
    .get("/healthz", () => ({ status: "ok" }))
    .get("/readyz", async ({ set }) => {
      const [postgres, redis] = await Promise.all([
        withTimeout(deps.orm.em.getConnection().execute("select 1"), CHECK_TIMEOUT_MS).then(
          () => "ok",
          () => "unreachable",
        ),
        withTimeout(deps.redis.ping(), CHECK_TIMEOUT_MS).then(
          () => "ok",
          () => "unreachable",
        ),
      ]);
      const ready = postgres === "ok" && redis === "ok" && !deps.shuttingDown();
      set.status = ready ? 200 : 503;
      return { status: ready ? "ready" : "unavailable", postgres, redis };
    });
}
