import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { parse } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { rubricJsonSchema } from "../../src/rubric/json-schema.js";
import { parseRubric } from "../../src/rubric/load.js";

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

let validate: ValidateFunction;
beforeAll(() => {
  validate = new Ajv({ allErrors: true, strict: false }).compile(rubricJsonSchema());
});

const RUBRICS = yamlFiles("rubrics");

describe("the generated JSON Schema", () => {
  it("is a draft-07 schema that ajv compiles in strict mode too", () => {
    const schema = rubricJsonSchema();
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(schema.type).toBe("object");
    expect(() => new Ajv({ strict: true, strictRequired: false, allowUnionTypes: true }).compile(schema)).not.toThrow();
  });

  it("there are rubrics to check", () => {
    expect(RUBRICS.length).toBeGreaterThanOrEqual(2);
  });

  it.each(RUBRICS)("accepts %s", (file) => {
    const data = parse(readFileSync(file, "utf8"));
    const ok = validate(data);
    expect(ok, JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it.each(RUBRICS)("%s starts with a yaml-language-server $schema line that points at the schema file", (file) => {
    const first = readFileSync(file, "utf8").split("\n")[0];
    const match = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
    expect(match, `first line of ${file}: ${first}`).not.toBeNull();
    expect(existsSync(join(file, "..", match![1]))).toBe(true);
  });

  it.each([
    ["unknown-top-key.yaml", "additionalProperties"],
    ["unknown-criterion-key.yaml", "additionalProperties"],
    ["wrong-type.yaml", "type"],
    ["missing-id.yaml", "required"],
    ["bad-scoring-method.yaml", "enum"],
    ["bad-flags.yaml", "pattern"],
    ["unknown-check.yaml", "additionalProperties"],
    ["not-a-mapping.yaml", "type"],
    ["question-and-check.yaml", "oneOf"],
    ["neither.yaml", "oneOf"],
  ])("rejects malformed %s (%s)", (file, keyword) => {
    const data = parse(readFileSync(join("tests/fixtures/malformed", file), "utf8"));
    expect(validate(data)).toBe(false);
    expect(validate.errors!.map((e) => e.keyword)).toContain(keyword);
  });

  it("agrees with the zod schema on a valid fixture", () => {
    const text = readFileSync("tests/fixtures/valid/nested/base.yaml", "utf8");
    expect(() => parseRubric(text)).not.toThrow();
    expect(validate(parse(text))).toBe(true);
  });

  it("schema/rubric.schema.json on disk is the generated schema (never stale)", () => {
    const path = "schema/rubric.schema.json";
    if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` to generate it`);
    const onDisk = JSON.parse(readFileSync(path, "utf8"));
    expect(onDisk, `${path} is stale: run \`npm run build\` to regenerate it`).toEqual(rubricJsonSchema());
  });
});
