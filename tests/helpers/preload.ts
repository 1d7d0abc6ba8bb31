import { afterAll } from "bun:test";
import { chooseTestServices } from "./services";

// The services first (services.ts: given, the system's, or started for this run), then the migrated
// template once per test process, before any test file starts. database.ts reads TEST_POSTGRES_URL when
// it is first imported, so it is imported after the choice.
const services = await chooseTestServices();
// A hook in the preload runs once, after every file: what this run started stops with it (registered before
// anything else can fail).
afterAll(() => services.stop());
if (services.postgres !== "system" || services.redis !== "system")
  console.error(
    `test services: PostgreSQL ${services.postgres}, Redis ${services.redis} at ${process.env.TEST_REDIS_URL}`,
  );
const { ensureTemplate } = await import("./database");
await ensureTemplate();
