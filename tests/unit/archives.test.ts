import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import zlib from "node:zlib";
import { Open } from "unzipper";
import * as tar from "tar-stream";
import {
  bytesOf,
  deflatedZeros,
  MiB,
  rawZip,
  sourcesOf,
  tarOf,
  yazlZip,
  type TarHeader,
} from "../helpers/archive-builders";
import {
  ArchiveError,
  DEFAULT_ARCHIVE_LIMITS,
  detectArchiveFormat,
  readArchive,
  stripSingleTopFolder,
  type ArchiveEntry,
  type ArchiveErrorReason,
  type ArchiveLimits,
} from "../../src/modules/problem-configs/archive-reader";
import { tarGzArchive, zipArchive } from "../../src/modules/problem-configs/archive-writer";

const limits = (overrides: Partial<ArchiveLimits>): ArchiveLimits => ({ ...DEFAULT_ARCHIVE_LIMITS, ...overrides });

async function expectRefusal(archive: string | Uint8Array, reason: ArchiveErrorReason, archiveLimits?: ArchiveLimits) {
  let error: unknown;
  try {
    await readArchive(archive, archiveLimits);
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ArchiveError);
  expect((error as ArchiveError).reason).toBe(reason);
  return error as ArchiveError;
}

const pathsOf = (entries: ArchiveEntry[]) => entries.map((entry) => entry.path);

describe("detectArchiveFormat", () => {
  test("recognises zip, empty zip, gzip and ustar by their magic bytes", async () => {
    expect(detectArchiveFormat(Buffer.from("PK\x03\x04rest"))).toBe("zip");
    expect(detectArchiveFormat(Buffer.from("PK\x05\x06"))).toBe("zip");
    expect(detectArchiveFormat(Buffer.from([0x1f, 0x8b, 0x08, 0x00]))).toBe("tar.gz");
    expect(detectArchiveFormat(await tarOf([{ name: "a.txt", data: "a" }]))).toBe("tar");
  });

  test("recognises nothing else, whatever it would be called", () => {
    expect(detectArchiveFormat(Buffer.from("config.json: this is plain text"))).toBeNull();
    expect(detectArchiveFormat(Buffer.from("PK"))).toBeNull();
    expect(detectArchiveFormat(new Uint8Array(0))).toBeNull();
    expect(detectArchiveFormat(new Uint8Array(512))).toBeNull();
  });
});

describe("writing and reading back", () => {
  const files = {
    "config.json": Buffer.from('{"languages":["cpp"]}'),
    "data/1.in": Buffer.from("1 2\n"),
    "data/1.out": Buffer.from("3\n"),
    "data/empty.txt": Buffer.alloc(0),
    "data/random.bin": randomBytes(MiB),
    [`${"nested/".repeat(20)}long-name-through-pax.txt`]: Buffer.from("long"),
  };

  for (const [format, write] of [
    ["zip", zipArchive],
    ["tar.gz", tarGzArchive],
  ] as const) {
    test(`a ${format} archive round-trips with identical paths and bytes`, async () => {
      const archive = await bytesOf(write(sourcesOf(files)));

      const entries = await readArchive(archive);

      expect(detectArchiveFormat(archive)).toBe(format);
      expect(pathsOf(entries)).toEqual(Object.keys(files).sort());
      for (const entry of entries)
        expect(Buffer.from(entry.data).equals(files[entry.path as keyof typeof files])).toBe(true);
    });

    test(`the same files give the same ${format} bytes`, async () => {
      expect((await bytesOf(write(sourcesOf(files)))).equals(await bytesOf(write(sourcesOf(files))))).toBe(true);
    });

    test(`${format}: each file is read only when the download reaches it`, async () => {
      let reads = 0;
      const sources = Array.from({ length: 6 }, (_, i) => {
        const data = randomBytes(2 * MiB);
        return {
          path: `f${i}.bin`,
          size: data.length,
          read: async () => {
            reads++;
            return data;
          },
        };
      });
      const reader = write(sources).getReader();

      await reader.read();
      await Bun.sleep(50);
      expect(reads).toBeLessThanOrEqual(2);
      await reader.cancel();
      await Bun.sleep(50);

      expect(reads).toBeLessThanOrEqual(2);
    });

    test(`${format}: a source whose size changed fails the stream`, async () => {
      const sources = [{ path: "a.txt", size: 5, read: async () => Buffer.from("abc") }];

      await expect(bytesOf(write(sources))).rejects.toThrow("expected to be 5 bytes");
    });
  }

  test("a plain tar round-trips, and an empty zip reads as no files", async () => {
    const archive = await tarOf([
      { name: "config.json", data: "{}" },
      { name: "data", type: "directory" },
      { name: "data/1.in", data: "1" },
    ]);

    expect(pathsOf(await readArchive(archive))).toEqual(["config.json", "data/1.in"]);
    expect(await readArchive(await bytesOf(zipArchive([])))).toEqual([]);
  });

  test("written entries are regular files with mode 0644 and the fixed 2000-01-01 mtime", async () => {
    const zip = await Open.buffer(await bytesOf(zipArchive(sourcesOf({ "a.txt": Buffer.from("a") }))));
    expect(zip.files[0].externalFileAttributes >>> 16).toBe(0o100644);
    expect(zip.files[0].lastModifiedDateTime.getTime()).toBe(new Date(2000, 0, 1).getTime());

    const extract = tar.extract();
    extract.end(zlib.gunzipSync(await bytesOf(tarGzArchive(sourcesOf({ "a.txt": Buffer.from("a") })))));
    for await (const entry of extract) {
      expect(entry.header).toMatchObject({
        name: "a.txt",
        type: "file",
        mode: 0o644,
        mtime: new Date(Date.UTC(2000, 0, 1)),
      });
      entry.resume();
    }
  });

  test("names are normalised, folders skipped and files sorted", async () => {
    const archive = rawZip([{ name: "./b//c.txt", data: "c" }, { name: "b/" }, { name: "a.txt", data: "a" }]);

    expect(pathsOf(await readArchive(archive))).toEqual(["a.txt", "b/c.txt"]);
  });

  test("an archive is read from a path on disk", async () => {
    const folder = await mkdtemp(join(tmpdir(), "archives-"));
    try {
      const path = join(folder, "upload.bin");
      await writeFile(path, await yazlZip((zip) => zip.addBuffer(Buffer.from("{}"), "config.json")));

      expect(pathsOf(await readArchive(path))).toEqual(["config.json"]);
      await expectRefusal(path, "archive-too-large", limits({ maxArchiveBytes: 64 }));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe("stripSingleTopFolder", () => {
  const entries = (...paths: string[]) => paths.map((path) => ({ path, data: new Uint8Array() }));

  test("drops the one top folder that holds config.json", () => {
    expect(pathsOf(stripSingleTopFolder(entries("p/config.json", "p/data/1.in")))).toEqual([
      "config.json",
      "data/1.in",
    ]);
  });

  test("leaves two top folders, a root config.json, or a folder without config.json alone", () => {
    for (const paths of [
      ["p/config.json", "q/config.json"],
      ["config.json", "p/config.json"],
      ["p/data/1.in", "p/data/1.out"],
      [],
    ]) {
      const given = entries(...paths);
      expect(stripSingleTopFolder(given)).toBe(given);
    }
  });
});

describe("paths", () => {
  const cases: Array<[string, ArchiveErrorReason]> = [
    ["../x", "path-traversal"],
    ["a/../../x", "path-traversal"],
    ["..\\x", "path-traversal"],
    ["/etc/passwd", "absolute-path"],
    ["C:\\x", "absolute-path"],
    ["\\\\server\\share\\x", "absolute-path"],
    ["a\u0000b", "invalid-path"],
    ["a\u001bb", "invalid-path"],
  ];
  for (const [name, reason] of cases) {
    test(`zip entry ${JSON.stringify(name)} is refused as ${reason}`, async () => {
      const error = await expectRefusal(rawZip([{ name, data: "x" }]), reason);
      expect(error.message).toContain(JSON.stringify(name));
    });
  }

  test("tar entries with ../ and absolute names are refused", async () => {
    await expectRefusal(await tarOf([{ name: "../evil", data: "x" }]), "path-traversal");
    await expectRefusal(await tarOf([{ name: "/etc/passwd", data: "x" }]), "absolute-path");
    await expectRefusal(await tarOf([{ name: "a\u0001b", data: "x" }]), "invalid-path");
  });

  test("a name that is not UTF-8 is refused", async () => {
    await expectRefusal(rawZip([{ name: Buffer.from([0x61, 0xff, 0x62]), data: "x" }]), "invalid-path");
  });

  test("a path longer than the limit is refused, even when it arrives as a pax long name", async () => {
    await expectRefusal(await tarOf([{ name: `${"d/".repeat(150)}x`, data: "x" }]), "path-too-long");
    await expectRefusal(rawZip([{ name: "abcdef", data: "x" }]), "path-too-long", limits({ maxPathLength: 5 }));
  });

  test("a name of 255 characters or fewer that takes more than 255 bytes is refused: no file system holds it", async () => {
    // 90 characters of Chinese are 270 bytes in UTF-8 (86: 258); the judge would write the file under that name.
    await expectRefusal(rawZip([{ name: `data/${"测".repeat(90)}.in`, data: "x" }]), "path-too-long");
    await expectRefusal(await tarOf([{ name: `${"测".repeat(86)}/1.in`, data: "x" }]), "path-too-long");
  });

  test("two entries that normalise to one path are refused", async () => {
    await expectRefusal(
      rawZip([
        { name: "data/1.in", data: "a" },
        { name: "data//1.in", data: "b" },
      ]),
      "duplicate-path",
    );
    await expectRefusal(
      await tarOf([
        { name: "a.txt", data: "a" },
        { name: "./a.txt", data: "b" },
      ]),
      "duplicate-path",
    );
    await expectRefusal(
      await tarOf([
        { name: "a", data: "a" },
        { name: "a/b", data: "b" },
      ]),
      "duplicate-path",
    );
  });
});

describe("entry types", () => {
  test("a zip symlink is refused", async () => {
    await expectRefusal(
      await yazlZip((zip) => zip.addBuffer(Buffer.from("/etc/passwd"), "link", { mode: 0o120777 })),
      "link",
    );
  });

  test("a zip FIFO is refused", async () => {
    await expectRefusal(
      await yazlZip((zip) => zip.addBuffer(Buffer.alloc(0), "pipe", { mode: 0o010644 })),
      "special-file",
    );
  });

  const tarCases: Array<[TarHeader, ArchiveErrorReason]> = [
    [{ name: "link", type: "symlink", linkname: "/etc/passwd" }, "link"],
    [{ name: "hard", type: "link", linkname: "config.json" }, "link"],
    [{ name: "pipe", type: "fifo" }, "special-file"],
    [{ name: "null", type: "character-device", devmajor: 1, devminor: 3 }, "special-file"],
    [{ name: "disk", type: "block-device", devmajor: 8, devminor: 0 }, "special-file"],
  ];
  for (const [header, reason] of tarCases) {
    test(`a tar ${header.type} is refused as ${reason}`, async () => {
      await expectRefusal(await tarOf([{ name: "config.json", data: "{}" }, header]), reason);
    });
  }
});

describe("sizes", () => {
  test("a zip bomb whose header tells the truth is refused before inflating", async () => {
    const bomb = rawZip([
      { name: "zeros", deflated: deflatedZeros(200), claimedSize: 200 * MiB, crc: zlib.crc32(Buffer.alloc(200 * MiB)) },
    ]);

    await expectRefusal(bomb, "too-large", limits({ maxFileBytes: MiB }));
  });

  test("a zip bomb whose header lies stops inflating at the limit", async () => {
    // 8 GiB of zeros: inflating it all would take several seconds.
    const bomb = rawZip([{ name: "zeros", deflated: deflatedZeros(8192), claimedSize: 100, crc: 0 }]);
    const started = performance.now();

    await expectRefusal(bomb, "too-large", limits({ maxFileBytes: MiB }));

    expect(performance.now() - started).toBeLessThan(2000);
  });

  test("a gzip bomb of endless empty tar blocks stops at the limit", async () => {
    const member = zlib.gzipSync(Buffer.alloc(MiB), { level: 9 });
    const bomb = Buffer.concat(Array(8192).fill(member));
    const started = performance.now();

    await expectRefusal(bomb, "too-large", limits({ maxTotalBytes: MiB, maxFiles: 10 }));

    expect(performance.now() - started).toBeLessThan(2000);
  });

  test("one file over the per-file limit is refused, in zip and in tar.gz", async () => {
    const big = { "big.bin": Buffer.alloc(2 * MiB) };
    await expectRefusal(await bytesOf(zipArchive(sourcesOf(big))), "too-large", limits({ maxFileBytes: MiB }));
    await expectRefusal(await bytesOf(tarGzArchive(sourcesOf(big))), "too-large", limits({ maxFileBytes: MiB }));
  });

  test("files that together pass the total limit are refused", async () => {
    const files = { "a.bin": Buffer.alloc(600 * 1024), "b.bin": Buffer.alloc(600 * 1024) };
    await expectRefusal(await bytesOf(zipArchive(sourcesOf(files))), "too-large", limits({ maxTotalBytes: MiB }));
  });

  test("more files than the limit are refused", async () => {
    const files = Object.fromEntries(["a", "b", "c", "d"].map((name) => [name, Buffer.from(name)]));
    await expectRefusal(await bytesOf(zipArchive(sourcesOf(files))), "too-many-files", limits({ maxFiles: 3 }));
    await expectRefusal(await bytesOf(tarGzArchive(sourcesOf(files))), "too-many-files", limits({ maxFiles: 3 }));
  });

  test("a zip64 table of contents that claims 2^32 entries is refused before unzipper walks it", async () => {
    const head = Buffer.from(`PK\x03\x04${"\0".repeat(26)}`);
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(2n ** 32n - 1n, 24);
    record.writeBigUInt64LE(2n ** 32n - 1n, 32);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(head.length), 8);
    const end = Buffer.alloc(22, 0xff);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(0, 20);

    await expectRefusal(Buffer.concat([head, record, locator, end]), "too-many-files");
  });

  test("an archive over the upload limit is refused", async () => {
    await expectRefusal(randomBytes(2048), "archive-too-large", limits({ maxArchiveBytes: 1024 }));
  });
});

describe("damaged and foreign files", () => {
  test("random bytes and text are not archives", async () => {
    await expectRefusal(randomBytes(4096), "unsupported-format");
    await expectRefusal(Buffer.from("1 2\n3 4\n"), "unsupported-format");
    await expectRefusal(new Uint8Array(0), "unsupported-format");
  });

  test("a truncated zip is corrupt", async () => {
    const zip = await bytesOf(zipArchive(sourcesOf({ "a.txt": randomBytes(4096), "b.txt": randomBytes(4096) })));
    await expectRefusal(zip.subarray(0, zip.length - 10), "corrupt");
    await expectRefusal(zip.subarray(0, zip.length / 2), "corrupt");
  });

  test("a zip entry whose bytes do not match its CRC is corrupt", async () => {
    const zip = rawZip([{ name: "a.txt", data: "hello" }]);
    zip[30 + "a.txt".length] ^= 0xff;

    await expectRefusal(zip, "corrupt");
  });

  test("a zip whose local header names a different file is corrupt", async () => {
    const zip = rawZip([{ name: "a.txt", data: "hello" }]);
    zip[30] = "b".charCodeAt(0);

    await expectRefusal(zip, "corrupt");
  });

  test("a truncated tar.gz, a truncated tar and a tar with a garbled header are corrupt", async () => {
    const targz = await bytesOf(tarGzArchive(sourcesOf({ "a.bin": randomBytes(64 * 1024) })));
    await expectRefusal(targz.subarray(0, targz.length / 2), "corrupt");

    const plain = await tarOf([{ name: "a.bin", data: randomBytes(4096) }]);
    await expectRefusal(plain.subarray(0, 2048), "corrupt");

    plain[0] ^= 0xff;
    await expectRefusal(plain, "corrupt");
  });
});
