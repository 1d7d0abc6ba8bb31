import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describePortHolder, findPortHolder } from "../../src/runtime/port-holder";

const scratch = mkdtempSync(join(tmpdir(), "joj-port-holder-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";

/** A /proc with a listening socket on `port` (inode 777) and one process that holds no socket. */
function fakeProc(port: number): string {
  const proc = mkdtempSync(join(scratch, "proc-"));
  mkdirSync(join(proc, "net"));
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const line = `   0: 0100007F:${hex} 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1\n`;
  writeFileSync(join(proc, "net", "tcp"), HEADER + line);
  writeFileSync(join(proc, "net", "tcp6"), HEADER);
  mkdirSync(join(proc, "42", "fd"), { recursive: true });
  writeFileSync(join(proc, "42", "comm"), "other\n");
  return proc;
}

describe("who holds a port", () => {
  test.each(["127.0.0.1", "::1"])("a listener this process opened on %s is found, and this process named", (host) => {
    const listener = Bun.listen({ hostname: host, port: 0, socket: { data() {} } });
    try {
      const holder = findPortHolder(listener.port);
      expect(holder?.pid).toBe(process.pid);
      expect(holder?.name).toBe(self("comm").trim());
      // Cut short past 200 characters (a run given many test files).
      const shown = holder?.commandLine.replace(/…$/, "") ?? "-";
      expect(self("cmdline").trim().startsWith(shown)).toBe(true);
      expect(describePortHolder(listener.port)).toBe(`pid ${process.pid} (${holder?.name}: ${holder?.commandLine})`);
    } finally {
      listener.stop(true);
    }
  });

  test("a socket whose process cannot be read is 'another process (not readable here)'", () => {
    const proc = fakeProc(34765);
    expect(findPortHolder(34765, proc)).toBeUndefined();
    expect(describePortHolder(34765, proc)).toBe("another process (not readable here)");
  });

  test("no socket on the port: no holder, whatever the processes hold", () => {
    const proc = fakeProc(34765);
    expect(findPortHolder(34766, proc)).toBeUndefined();
  });

  test("without a Linux /proc: no holder, no error", () => {
    expect(findPortHolder(34765, join(scratch, "missing"))).toBeUndefined();
  });
});

/** This process's /proc file, NULs as spaces. */
function self(file: string): string {
  return readFileSync(`/proc/${process.pid}/${file}`, "utf8").replaceAll("\0", " ");
}
