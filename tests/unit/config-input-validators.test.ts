import { describe, expect, test } from "bun:test";
import { parseConfigJson, serializeConfigJson } from "../../src/core/config-model/config-json";

const VALIDATOR = { files: ["val.c"], compileArgs: ["gcc", "-o", "val", "val.c"], executeArgs: ["./val"] };
const config = (inputValidators: object[]) => ({
  languages: [{ name: "c", compileFiles: ["main.c"], compileArgs: ["gcc", "main.c"], cases: [{}] }],
  inputValidators,
});
const parsed = (value: object, archiveFiles?: string[]) => parseConfigJson(JSON.stringify(value), { archiveFiles });
const ARCHIVE = ["config.json", "val.c", "case.in", "case.out"];

describe("config.json inputValidators", () => {
  test("are kept with their protocol through the stored snake_case config.json", () => {
    const value = config([
      { ...VALIDATOR, protocol: "testlib" },
      { files: ["f.ctd"], executeArgs: ["checktestdata"] },
    ]);
    const stored = parsed(value, [...ARCHIVE, "f.ctd"]);
    expect(parseConfigJson(serializeConfigJson(stored)).inputValidators as object[]).toEqual(value.inputValidators);
    expect(new TextDecoder().decode(serializeConfigJson(stored))).toContain('"input_validators"');
  });

  test("their files must be in the config archive, as a checker's", () => {
    expect(() => parsed(config([{ ...VALIDATOR, files: ["val.c", "testlib.h"] }]), ARCHIVE)).toThrow(
      '/inputValidators/0/files/1: "testlib.h" is not in the config archive',
    );
    expect(() => parsed(config([{ ...VALIDATOR, files: ["./val.c"] }]), ARCHIVE)).not.toThrow();
  });

  test("an unknown protocol or an empty command is refused with its path", () => {
    expect(() => parsed(config([{ ...VALIDATOR, protocol: "viva" }]))).toThrow("/inputValidators/0/protocol");
    expect(() => parsed(config([{ ...VALIDATOR, executeArgs: [] }]))).toThrow("/inputValidators/0/executeArgs");
  });
});
