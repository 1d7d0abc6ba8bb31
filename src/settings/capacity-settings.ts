import type { EnvReader } from "../core/env-reader";

/**
 * What one process may hold of shared capacity (config.ts loadConfig reads these): its connections to
 * PostgreSQL, and the live streams it keeps open (docs/operations.md "Connections", "Live streams").
 */

/** Connections to PostgreSQL: the ORM's pool and the hot reads' pool beside it (db/statements.ts). */
export interface DatabaseSettings {
  poolSize: number;
  readPoolSize: number;
}

/** docs/operations.md "Live streams": each cap refuses with 429 and Retry-After. */
export interface LiveStreamSettings {
  maxPerUser: number;
  maxPerProcess: number;
  /** Across every API process, in Redis (slots renewed by the heartbeat, so a killed process's expire). */
  maxPerSite: number;
  heartbeatSeconds: number;
  /** A stream whose unread output passes this is dropped, never buffered without bound. */
  maxQueuedBytes: number;
}

/**
 * The API serves many requests at once, a worker a few jobs: 10 and 4 by default, the read pool as large as
 * the ORM's unless set. Two APIs and two workers then open at most 56 connections, within PostgreSQL's 100.
 */
export function readPoolSizes(read: EnvReader, api: boolean): DatabaseSettings {
  const poolSize = read.integer("DATABASE_POOL_SIZE", api ? 10 : 4, 1, 1000);
  return { poolSize, readPoolSize: read.integer("DATABASE_READ_POOL_SIZE", poolSize, 1, 1000) };
}

export function readLiveStreamSettings(read: EnvReader): LiveStreamSettings {
  return {
    maxPerUser: read.integer("LIVE_STREAMS_PER_USER", 8, 1, 1000),
    maxPerProcess: read.integer("LIVE_STREAMS_PER_PROCESS", 1000, 1, 1_000_000),
    maxPerSite: read.integer("LIVE_STREAMS_PER_SITE", 5000, 1, 10_000_000),
    heartbeatSeconds: read.integer("LIVE_HEARTBEAT_SECONDS", 15, 1, 300),
    maxQueuedBytes: read.integer("LIVE_STREAM_QUEUE_KB", 1024, 1, 1024 * 1024) * 1024,
  };
}
