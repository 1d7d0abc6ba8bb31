/**
 * `bun run worker:judge`. The sandboxed judge that takes `record.judge` jobs is built in issue 6.
 * Until then this entrypoint refuses to start rather than take jobs it cannot judge: records wait in
 * the queue (safe in PostgreSQL) and any judger speaking the judge protocol over HTTP can judge them.
 */
console.error(JSON.stringify({
  level: "error", service: "worker:judge", time: new Date().toISOString(),
  msg: "the sandboxed judge worker is not part of this build yet; judge records over HTTP with the judge protocol (see README)",
}));
process.exit(78);
