import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { packagedDir, packageVersion, parseConfig, readConfigText } from "../../src/config/load.js";
import { RubricateError } from "../../src/errors.js";
import { tempDir } from "../helpers/cli.js";

const Schema = z.strictObject({ name: z.string(), size: z.number().optional() });
const dir = tempDir("rubricate-config-");

const thrown = (f: () => unknown): RubricateError => {
  try {
    f();
  } catch (e) {
    return e as RubricateError;
  }
  throw new Error("did not throw");
};

describe("parseConfig", () => {
  it("returns the validated value and a source that locates paths", () => {
    const { value, source } = parseConfig("name: x\nsize: 3\n", Schema, { filename: "c.yaml" });
    expect(value).toEqual({ name: "x", size: 3 });
    expect(source.locate(["size"])).toEqual({ file: "c.yaml", line: 2, col: 7 });
  });
  it("names file:line:col with did-you-mean, under the code asked for", () => {
    const e = thrown(() => parseConfig("name: x\nsiz: 3\n", Schema, { filename: "c.yaml", code: "JUDGE_CONFIG" }));
    expect(e.code).toBe("JUDGE_CONFIG");
    expect(e.location).toEqual({ file: "c.yaml", line: 2, col: 1 });
    expect(e.message).toContain('unknown key "siz" (did you mean "size"?)');
  });
  it("lists every issue, and refuses a non-mapping when told to", () => {
    const e = thrown(() => parseConfig("size: nope\nextra: 1\n", Schema, { filename: "c.yaml" }));
    expect(e.code).toBe("SCHEMA");
    expect(e.issues?.map((i) => i.location?.line)).toEqual([1, 1, 2]); // name missing, size not a number, extra unknown
    const list = thrown(() => parseConfig("- a\n", Schema, { filename: "c.yaml", mappingRequired: "a config is a mapping" }));
    expect(list.message).toBe("c.yaml:1:1: a config is a mapping");
  });
});

describe("readConfigText", () => {
  it("reads a file, and refuses folders, missing files and files over the limit with codes", () => {
    const file = join(dir, "a.yaml");
    writeFileSync(file, "name: x\n");
    expect(readConfigText(file, { what: "test" })).toBe("name: x\n");
    expect(thrown(() => readConfigText(dir, { what: "test", shown: "the-dir" })).message).toBe("cannot read test file the-dir: it is a folder");
    expect(thrown(() => readConfigText(dir, { what: "test" })).code).toBe("BAD_INPUT");
    expect(thrown(() => readConfigText(join(dir, "none.yaml"), { what: "test" })).code).toBe("FILE_NOT_FOUND");
    expect(thrown(() => readConfigText(file, { what: "test", maxBytes: 3 })).code).toBe("YAML_TOO_LARGE");
  });

  // Read as it was, the question reached the judge as "Does it name the caf\uFFFD?".
  it("refuses a file that is not UTF-8 (Latin-1 saved) at file:line:col of its first invalid byte; a real U+FFFD is text", () => {
    const latin1 = join(dir, "latin1.yaml");
    writeFileSync(latin1, Buffer.concat([Buffer.from("id: x\ncriteria:\n  - question: Does it name the caf"), Buffer.from([0xe9]), Buffer.from("?\n")]));
    const e = thrown(() => readConfigText(latin1, { what: "rubric", shown: "r.yaml" }));
    expect(e.code).toBe("BAD_INPUT");
    expect(e.message).toBe("r.yaml:3:35: byte 0xE9 is not UTF-8 text (was the file saved as Latin-1 or Windows-1252? save it as UTF-8)");
    const replacement = join(dir, "fffd.yaml");
    writeFileSync(replacement, "note: \uFFFD\n");
    expect(readConfigText(replacement, { what: "test" })).toBe("note: \uFFFD\n");
  });
});

describe("packagedDir", () => {
  it("finds the folders shipped with the package and its version", () => {
    expect(packagedDir("judges")).toBe(join(process.cwd(), "judges"));
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
