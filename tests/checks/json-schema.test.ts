/**
 * json_schema: JSON a response builds to make the validator throw (a pattern it makes backtrack,
 * nesting past the stack of a recursive schema) is invalid, a no; an error there would be left out
 * of the reward by `--errors skip-criterion`. A schema that throws on any data stays an error.
 */
import { describe, expect, it, vi } from "vitest";
import { runCheck } from "../../src/checks/run.js";
import { isRubricateError } from "../../src/errors.js";

const tree = { type: "object", properties: { child: { $ref: "#" } } };
const nested = (depth: number) => '{"child":'.repeat(depth) + "{}" + "}".repeat(depth);

describe("json_schema: a response that makes the validator throw", () => {
  it("JSON nested 200,000 deep under a recursive schema is a no that names the nesting; shallow JSON is checked", async () => {
    expect((await runCheck({ json_schema: tree }, { response: nested(5) })).pass).toBe(true);
    const verdict = await runCheck({ json_schema: tree }, { response: nested(200_000) });
    expect(verdict).toMatchObject({ pass: false, reasoning: expect.stringMatching(/nests 1000 or more levels deep/), forfeit: true });
    const arrays = await runCheck({ json_schema: { type: "array", items: { $ref: "#" } } }, { response: "[".repeat(500_000) + "]".repeat(500_000) });
    expect(arrays.pass).toBe(false);
  });

  it("a string that makes a schema's pattern backtrack past its deadline is a no", async () => {
    const verdict = await runCheck({ json_schema: { type: "string", pattern: "(a|b)*c" } }, { response: JSON.stringify("a".repeat(300_000)) });
    expect(verdict).toMatchObject({ pass: false, reasoning: expect.stringMatching(/backtrack past/) });
  }, 30_000);

  it("a schema that recurses without end on any data stays the rubric's error", async () => {
    // allOf: [$ref: #] validates the same value again, forever: it overflows on `{}` too.
    await expect(runCheck({ json_schema: { allOf: [{ $ref: "#" }] } }, { response: "{}" })).rejects.toSatisfy((e) => isRubricateError(e, "CHECK_FAILED"));
  });
});

describe("json_schema: an $async schema", () => {
  it("is refused when the rubric loads (its validator returns a Promise, which read as a pass for any data), and from a client at scoring", async () => {
    const { parseRubric } = await import("../../src/rubric/load.js");
    const yaml = ["id: async", "criteria:", "  - id: shape", "    check:", "      json_schema: { $async: true, type: object, required: [answer] }"].join("\n");
    expect(() => parseRubric(yaml, { filename: "async.yaml" })).toThrow(/async\.yaml:\d+:\d+.*\$async schemas are not supported/s);
    // vitest fails the run on an unhandled rejection, which the old validator's Promise was.
    await expect(runCheck({ json_schema: { $async: true, type: "object", required: ["answer"] } }, { response: "5" }, { fromClient: true })).rejects.toSatisfy((e) => isRubricateError(e, "SCHEMA"));
  });
});

describe("json_schema: uniqueItems", () => {
  // The keyword's cost (linear here, every pair in ajv's: ~10 s for this response) is not asserted: tests assert no times.
  it("20,000 distinct objects are unique, and one repeated at the end is found", async () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({ a: i, tags: [i % 7] }));
    const check = { json_schema: { type: "array", uniqueItems: true } };
    expect((await runCheck(check, { response: JSON.stringify(items) }, { fromClient: true })).pass).toBe(true);
    const repeated = await runCheck(check, { response: JSON.stringify([...items, { tags: [3], a: 3 }]) }, { fromClient: true });
    expect(repeated).toMatchObject({ pass: false, reasoning: expect.stringMatching(/items ## 3 and 20000 are identical/) });
  });

  it("finds equal items as JSON Schema defines them: key order aside, 1 and 1.0 alike, arrays in order", async () => {
    const unique = async (items: unknown[] | string) => (await runCheck({ json_schema: { type: "array", uniqueItems: true } }, { response: typeof items === "string" ? items : JSON.stringify(items) })).pass;
    expect(await unique([{ a: 1, b: 2 }, { b: 2, a: 1 }])).toBe(false);
    expect(await unique("[1, 1.0]")).toBe(false);
    expect(await unique([[1, 2], [2, 1]])).toBe(true);
    expect(await unique([[1, [2, { x: null }]], [1, [2, { x: null }]]])).toBe(false);
    expect(await unique(["1", 1, true, "true", null, "null", {}, []])).toBe(true);
    expect(await unique([{ a: [1] }, { a: [1, 1] }])).toBe(true);
    expect(await unique([])).toBe(true);
    const verdict = await runCheck({ json_schema: { type: "object", properties: { list: { uniqueItems: true } } } }, { response: JSON.stringify({ list: ["x", "y", "x"] }) });
    expect(verdict).toMatchObject({ pass: false, reasoning: expect.stringMatching(/\/list must NOT have duplicate items \(items ## 0 and 2 are identical\)/) });
    expect((await runCheck({ json_schema: { type: "array", uniqueItems: false } }, { response: "[1, 1]" })).pass).toBe(true);
  });
});

describe("json_schema: what a client's schema makes the server write", () => {
  it("a response failing every item gets the first problems and a count, not one line per item (0.4 MB of JSON answered with 9 MB of reasoning)", async () => {
    const verdict = await runCheck({ json_schema: { type: "array", items: { type: "string" } } }, { response: JSON.stringify(Array.from({ length: 200_000 }, () => 1)) }, { fromClient: true });
    expect(verdict.pass).toBe(false);
    expect(verdict.reasoning).toMatch(/^schema violations: \/0 must be string; \/1 must be string; .*; and 199,990 more$/);
    expect(verdict.reasoning!.length).toBeLessThan(1000);
  });

  it("a client's unknown format is not written to the server's log (ajv warns on the console for each)", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      await runCheck({ json_schema: { type: "string", format: `no-such-format-${Math.random()}` } }, { response: '"x"' }, { fromClient: true });
      expect(warn).not.toHaveBeenCalled();
      expect(log).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      log.mockRestore();
    }
  });
});
