/**
 * json_schema: JSON a response builds to make the validator throw (a pattern it makes backtrack,
 * nesting past the stack of a recursive schema) is invalid, a no; an error there would be left out
 * of the reward by `--errors skip-criterion`. A schema that throws on any data stays an error.
 */
import { describe, expect, it, vi } from "vitest";
import { ambiguity } from "../../src/text/json.js";
import { runCheck } from "../../src/checks/run.js";
import { isRubricateError } from "../../src/errors.js";
import { loopTurnsDuring } from "../helpers/event-loop.js";

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

  it("a pattern the response makes backtrack is awaited: the event loop turns while the check runs it to its deadline", async () => {
    // Before, ajv's pattern test waited for the backtracking engine synchronously: a reward server
    // answered no other request for up to the deadline, per such string in the response.
    const schema = { type: "object", properties: { answer: { type: "string", pattern: "^(?=(a+)+$)" } } };
    const { result, turns } = await loopTurnsDuring(async () => runCheck({ json_schema: schema }, { response: JSON.stringify({ answer: "a".repeat(34) + "b" }) }));
    expect(result).toMatchObject({ pass: false, forfeit: true, reasoning: expect.stringMatching(/the response made .* backtrack past \d+ ms/) });
    expect(turns).toBeGreaterThan(10);
    expect(await runCheck({ json_schema: schema }, { response: JSON.stringify({ answer: "aaa" }) })).toMatchObject({ pass: true });
    expect(await runCheck({ json_schema: schema }, { response: JSON.stringify({ answer: "aab" }) })).toMatchObject({ pass: false, reasoning: expect.stringMatching(/\/answer must match pattern/) });
  }, 90_000);

  it("a costly RE2 pattern test (a.{20}x on 10,000 characters) is awaited from a worker, with the caller's answer", async () => {
    const text = Array.from({ length: 10_000 }, (_, i) => ((i * 7919) % 13 < 6 ? "a" : "b")).join("");
    const schema = { type: "array", items: { type: "string", not: { pattern: "a.{20}x" } } };
    const { result, turns } = await loopTurnsDuring(async () => runCheck({ json_schema: schema }, { response: JSON.stringify([text]) }));
    expect(result).toMatchObject({ pass: true });
    expect(turns).toBeGreaterThan(10);
    expect(await runCheck({ json_schema: schema }, { response: JSON.stringify(["ok", `${text}a${"b".repeat(20)}x`]) })).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^schema violations: \/1 must NOT be valid/) });
  }, 90_000);

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

describe("json_schema: JSON whose parsed value is not what it says", () => {
  const capped = { type: "object", required: ["answer"], properties: { answer: { type: "integer", maximum: 100 } } };
  const check = async (schema: Record<string, unknown>, response: string) => runCheck({ json_schema: schema }, { response });

  it("a key twice in one object fails, naming it: JSON.parse would keep the last and hide the first", async () => {
    expect(await check(capped, '{"answer": 1000, "answer": 5}')).toMatchObject({ pass: false, reasoning: 'ambiguous JSON: the key "answer" appears twice in one object' });
    expect(await check(capped, '```json\n{"answer": 1000, "answer": 5}\n```')).toMatchObject({ pass: false, reasoning: expect.stringContaining("ambiguous JSON") });
    // The same key spelled with an escape is the same key.
    expect(await check(capped, '{"answer": 1000, "\\u0061nswer": 5}')).toMatchObject({ pass: false, reasoning: expect.stringContaining('the key "answer"') });
    expect(await check({ type: "array" }, '[{"a": 1}, {"b": {"c": 1, "c": 2}}]')).toMatchObject({ pass: false, reasoning: expect.stringContaining('the key "c"') });
    expect(await check({ type: "object" }, '{"a": {"x": 1}, "a": 2}')).toMatchObject({ pass: false, reasoning: expect.stringContaining('the key "a"') });
  });

  it("the same key in different objects, or a key written as a value, is not a repeat", async () => {
    expect(await check(capped, '{"answer": 5, "steps": [{"answer": 1}, {"answer": 2}], "detail": {"answer": 3}}')).toMatchObject({ pass: true });
    expect(await check({ type: "object" }, '{"a": "b", "b": ["a", {"a": "b"}], "c": "\\"}{,\\"a\\"", "d": {}}')).toMatchObject({ pass: true });
    expect(await check({ type: "object" }, '{"": 1, " ": 2, "a\\u0000": 3, "a": 4}')).toMatchObject({ pass: true });
  });

  it("a number past the range of a double fails: it parses as Infinity, which integer and minimum accept", async () => {
    const natural = { type: "object", required: ["n"], properties: { n: { type: "integer", minimum: 0 } } };
    expect(await check(natural, '{"n": 1e400}')).toMatchObject({ pass: false, reasoning: "ambiguous JSON: the number 1e400 is too large for a number (it reads as Infinity)" });
    expect(await check({ type: "number", maximum: 0 }, "-1E+999")).toMatchObject({ pass: false, reasoning: expect.stringContaining("-1E+999") });
    expect(await check({ type: "array" }, `[1, 2, ${"9".repeat(400)}]`)).toMatchObject({ pass: false, reasoning: expect.stringContaining("too large") });
    expect(await check(natural, '{"n": 1e308}')).toMatchObject({ pass: true });
    expect(await check({ type: "number" }, "1e-400")).toMatchObject({ pass: true }); // a tiny number is 0, still finite
  });

  it("an integer JSON.parse rounds fails where the verdict turns on it: a const or bound would judge a number the response does not have", async () => {
    // 2^64 − 1 and 2^64 are one double: the wrong answer met the right one's const.
    const power = { type: "object", required: ["answer"], properties: { answer: { const: 18446744073709551616 } } };
    expect(await check(power, '{"answer": 18446744073709551615}')).toMatchObject({ pass: false, reasoning: expect.stringContaining("ambiguous JSON: the verdict turns on digits JSON numbers do not hold (18446744073709551615 reads as 18446744073709551616)") });
    expect(await check(power, '{"answer": 18446744073709551616}')).toMatchObject({ pass: true }); // a double holds 2^64 exactly
    expect(await check({ type: "integer", maximum: 9007199254740992 }, "9007199254740993")).toMatchObject({ pass: false, reasoning: expect.stringContaining("reads as 9007199254740992") });
    expect(await check({ type: "integer", minimum: -9007199254740992 }, "-9007199254740993")).toMatchObject({ pass: false, reasoning: expect.stringContaining("ambiguous") });
    expect(await check({ type: "array", items: { enum: [1, 2] } }, `[1, ${"1".repeat(30)}]`)).toMatchObject({ pass: false, reasoning: expect.stringContaining("schema violations") }); // fails either way: no doubt
  });

  it("a rounded integer no constraint looks at leaves the verdict alone: an id beside the answer, a list of ids", async () => {
    const answer = { type: "object", required: ["answer"], properties: { answer: { const: "Paris" }, ids: { type: "array", items: { type: "integer" } } } };
    expect(await check(answer, '{"answer": "Paris", "request_id": 1234567890123456789}')).toMatchObject({ pass: true });
    const ids = Array.from({ length: 40 }, (_, i) => `${1234567890123456789n + BigInt(i * 3)}`).join(", ");
    expect(await check(answer, `{"answer": "Paris", "ids": [${ids}]}`)).toMatchObject({ pass: true });
    expect(await check(answer, `{"answer": "Lyon", "ids": [${ids}]}`)).toMatchObject({ pass: false, reasoning: expect.stringContaining("schema violations") });
    expect(await check({ type: "object" }, '{"id": "18446744073709551615"}')).toMatchObject({ pass: true }); // as a string, it is what it says
  });

  it("reads a large response in one pass: 100,000 keys, 200,000 levels of arrays", async () => {
    const keys = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
    expect(await check({ type: "object" }, JSON.stringify(keys))).toMatchObject({ pass: true });
    expect(await check({ type: "object" }, `${JSON.stringify(keys).slice(0, -1)},"k99999":0}`)).toMatchObject({ pass: false, reasoning: expect.stringContaining('"k99999"') });
    expect(ambiguity("[".repeat(200_000) + "]".repeat(200_000))).toBeUndefined();
  });
});
