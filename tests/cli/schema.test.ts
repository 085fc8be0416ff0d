import { describe, expect, it } from "vitest";
import { rubricJsonSchema } from "../../src/rubric/json-schema.js";
import { cli } from "./helpers.js";

describe("rubricate schema", () => {
  it("prints the JSON Schema of rubric files on stdout", async () => {
    const r = await cli(["schema"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual(rubricJsonSchema());
    expect(r.stdout.endsWith("}\n")).toBe(true);
  });
});
