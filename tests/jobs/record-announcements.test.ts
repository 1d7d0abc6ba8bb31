import { expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import Redis from "ioredis";
import { JobClient } from "../../src/jobs/job-client";
import { createLogger } from "../../src/core/logger";
import { announceRecordChange, logOf } from "../../src/modules/record-events/record-events.bus";
import { TEST_REDIS_URL } from "../helpers/spawn-app";

// Announcements wait a few milliseconds to share a trip to Redis. One made just before shutdown must
// still reach the change log that resuming streams read: closing the job client sends it first.
test("announcements still pending when the job client closes are sent before Redis is let go", async () => {
  const prefix = `joj-test-${randomUUID()}`;
  const jobs = new JobClient({ redisUrl: TEST_REDIS_URL, queuePrefix: prefix });
  const warnings: unknown[] = [];
  const logger = createLogger("warn", {}, (line) => warnings.push(JSON.parse(line)));
  const domainId = randomUUID();
  const records = [randomUUID(), randomUUID(), randomUUID()];
  const announced = Promise.all(records.map((id) => announceRecordChange(jobs, logger, domainId, id)));
  await jobs.close();
  await announced;
  const reader = new Redis(TEST_REDIS_URL);
  try {
    const log = await reader.xrange(logOf(prefix, domainId), "-", "+");
    expect(log.map(([, fields]) => fields[3])).toEqual(records);
    expect(warnings).toEqual([]);
    await reader.del(logOf(prefix, domainId));
  } finally {
    reader.disconnect();
  }
});
