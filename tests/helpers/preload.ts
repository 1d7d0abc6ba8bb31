import { ensureTemplate } from "./database";

// Builds (or reuses) the migrated template once per test process, before any test file starts.
await ensureTemplate();
