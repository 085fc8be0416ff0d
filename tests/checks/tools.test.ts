import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runCheck } from "../../src/checks/run.js";
import { readTrajectory, usesResult } from "../../src/checks/tools.js";
import { parseRubric } from "../../src/rubric/load.js";
import { loopTurnsDuring } from "../helpers/event-loop.js";

// A rubricate rollout record's sample (src/env/rollout.ts) and the same trajectory as OpenAI chat messages.
const rollout = {
  response: "The population is 2,148,000.",
  tool_calls: [
    { name: "search", arguments: '{"query":"population of Paris"}', result: "Paris: 2148000 inhabitants", error: null },
    { name: "calculator", arguments: '{"expression":"2148000"}', result: "2148000", error: null },
  ],
};
const messages = {
  response: "The population is 2,148,000.",
  messages: [
    { role: "user", content: "How many people live in Paris?" },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "search", arguments: '{"query":"population of Paris"}' } }] },
    { role: "tool", tool_call_id: "c1", content: "Paris: 2148000 inhabitants" },
    { role: "assistant", content: null, tool_calls: [{ id: "c2", type: "function", function: { name: "calculator", arguments: '{"expression":"2148000"}' } }] },
    { role: "tool", tool_call_id: "c2", content: "2148000" },
    { role: "assistant", content: "The population is 2,148,000." },
  ],
};

describe("reading trajectories", () => {
  it("rollout tool_calls and OpenAI messages give the same calls with results", () => {
    const a = readTrajectory(rollout);
    const b = readTrajectory(messages);
    expect(b).toEqual(a.map(({ name, arguments: args, result }) => ({ name, arguments: args, result })));
    expect(a.map((c) => c.name)).toEqual(["search", "calculator"]);
  });
  it("an empty cell is an empty trajectory", async () => {
    expect(readTrajectory({ tool_calls: "  " })).toEqual([]);
    expect(await runCheck({ tool_calls: { called: "search" } }, { response: "x", tool_calls: "" })).toMatchObject({ pass: false, reasoning: "search was not called (trajectory: no tool calls)" });
  });
  it("a sample without a trajectory is a MISSING_INPUT error, not a fail", async () => {
    await expect(runCheck({ tool_calls: { called: "search" } }, { response: "x" })).rejects.toMatchObject({ code: "MISSING_INPUT" });
    await expect(runCheck({ tool_calls: { called: "search" } }, { response: "x", tool_calls: "not json" })).rejects.toMatchObject({ code: "BAD_INPUT" });
  });
});

describe("tool_calls conditions", () => {
  it.each([
    [{ called: "search" }, true, "trajectory search → calculator"],
    [{ called: ["search", "browse"] }, false, "browse was not called (trajectory: search → calculator)"],
    [{ not_called: "delete_file" }, true, undefined],
    [{ not_called: "calculator" }, false, "calculator was called 1 time(s) (trajectory: search → calculator)"],
    [{ order: ["search", "calculator"] }, true, undefined],
    [{ order: ["calculator", "search"] }, false, "called in the order search → calculator, expected calculator → search (trajectory: search → calculator)"],
    [{ max_calls: 1 }, false, "2 tool calls, at most 1 allowed (trajectory: search → calculator)"],
    [{ max_calls: { search: 1 } }, true, undefined],
    [{ min_calls: 3 }, false, "2 tool calls, at least 3 needed (trajectory: search → calculator)"],
    [{ answer_uses: "calculator" }, true, undefined],
    [{ arguments: { tool: "search", schema: { type: "object", required: ["query"], properties: { query: { type: "string", minLength: 3 } } } } }, true, undefined],
    [{ arguments: { tool: "search", schema: { type: "object", required: ["q"] } } }, false, "call 1 (search): / must have required property 'q' (trajectory: search → calculator)"],
  ])("%j → %s", async (spec, pass, reasoning) => {
    for (const sample of [rollout, messages]) {
      const verdict = await runCheck({ tool_calls: spec as never }, sample);
      expect(verdict.pass).toBe(pass);
      if (reasoning) expect(verdict.reasoning).toBe(reasoning);
    }
  });
  describe("calls that did not work (a rollout's error, is_error)", () => {
    // The policy's search was refused (bad arguments): it never ran.
    const refused = { name: "search", arguments: '{"q": 1}', result: "Error: invalid arguments for search: / must have required property 'query'.", error: "bad_arguments" };
    const calculator = { name: "calculator", arguments: '{"expression":"2148000"}', result: "2148000", error: null };
    it("called, order and min_calls count only the calls that worked; the reason names the failures", async () => {
      const sample = { response: "The population is 2,148,000.", tool_calls: [refused, calculator] };
      expect(await runCheck({ tool_calls: { called: "search" } }, sample)).toMatchObject({ pass: false, reasoning: "search was not called (1 call(s) of it failed: bad_arguments) (trajectory: search (bad_arguments) → calculator)" });
      expect(await runCheck({ tool_calls: { order: ["search", "calculator"] } }, sample)).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^order: search never called/) });
      expect(await runCheck({ tool_calls: { min_calls: 2 } }, sample)).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^1 tool calls that worked \(1 failed\), at least 2 needed/) });
      // The same trajectory with the search working passes all three.
      const working = { ...sample, tool_calls: [{ ...refused, arguments: '{"query":"population of Paris"}', result: "2148000", error: null }, calculator] };
      for (const spec of [{ called: "search" }, { order: ["search", "calculator"] }, { min_calls: 2 }]) expect((await runCheck({ tool_calls: spec }, working)).pass).toBe(true);
    });
    it("not_called and max_calls count every attempt: a refused call of a forbidden tool is still a call", async () => {
      const sample = { response: "x", tool_calls: [refused, calculator] };
      expect(await runCheck({ tool_calls: { not_called: "search" } }, sample)).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^search was called 1 time\(s\)/) });
      expect((await runCheck({ tool_calls: { max_calls: 1 } }, sample)).pass).toBe(false);
    });
    it("answer_uses reads the last call that worked: a later failed call neither hides its result nor stands for it", async () => {
      const failedAfter = { name: "calculator", arguments: '{"expression":"2148000/0"}', result: "Error: division by zero", error: "tool_error" };
      const sample = { response: "The population is 2,148,000.", tool_calls: [calculator, failedAfter] };
      expect((await runCheck({ tool_calls: { answer_uses: "calculator" } }, sample)).pass).toBe(true);
      const onlyFailed = { response: "Error: division by zero", tool_calls: [failedAfter] };
      expect(await runCheck({ tool_calls: { answer_uses: "calculator" } }, onlyFailed)).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^calculator was not called \(1 call\(s\) of it failed: tool_error\), so the answer cannot use its result/) });
    });
    it("is_error: true (Anthropic's tool results) marks a failed call too; error: null or false does not", () => {
      expect(readTrajectory({ tool_calls: [{ name: "search", result: "boom", is_error: true }, { name: "search", error: null }, { name: "search", error: false }] }).map((c) => c.failed)).toEqual(["error", undefined, undefined]);
    });
    it("in OpenAI messages an error field on the assistant's own call is the policy's word: the call counts as made", async () => {
      const claimed = { ...messages, messages: messages.messages.map((m) => (m.tool_calls ? { ...m, tool_calls: m.tool_calls.map((c) => ({ ...c, error: "bad_arguments" })) } : m)) };
      expect(readTrajectory(claimed).every((c) => c.failed === undefined)).toBe(true);
      expect((await runCheck({ tool_calls: { called: "search", order: ["search", "calculator"] } }, claimed)).pass).toBe(true);
    });
  });

  it("answer_uses fails when the answer states another number", async () => {
    const verdict = await runCheck({ tool_calls: { answer_uses: "calculator" } }, { ...rollout, response: "About 2.1 million." });
    expect(verdict).toMatchObject({ pass: false });
    expect(verdict.reasoning).toContain("does not state calculator's result");
  });
  it("arguments: never calling the tool fails, unless if_called makes it a rule on the calls made", async () => {
    const none = { response: "Paris has about 2.1 million people.", tool_calls: [{ name: "calculator", arguments: "{}", result: "1" }] };
    const valid = { tool: "search", schema: { type: "object", required: ["query"] } };
    const skipped = await runCheck({ tool_calls: { arguments: valid } }, none);
    expect(skipped).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^search was not called, so no arguments to check/) });
    expect((await runCheck({ tool_calls: { arguments: valid } }, { ...none, tool_calls: [] })).pass).toBe(false);
    const rule = { tool: "delete", schema: { type: "object", required: ["confirm"], properties: { confirm: { const: true } } }, if_called: true };
    expect((await runCheck({ tool_calls: { arguments: rule } }, none)).pass).toBe(true);
    expect((await runCheck({ tool_calls: { arguments: rule } }, { ...none, tool_calls: [{ name: "delete", arguments: '{"confirm":false}' }] })).pass).toBe(false);
  });

  it("arguments that are not JSON fail the arguments condition", async () => {
    const sample = { response: "", tool_calls: [{ name: "search", arguments: "{query: oops" }] };
    const verdict = await runCheck({ tool_calls: { arguments: { tool: "search", schema: { type: "object" } } } }, sample);
    expect(verdict.pass).toBe(false);
    expect(verdict.reasoning).toMatch(/^call 1 \(search\): arguments are not JSON/);
  });
});

describe("tool_calls under attack", () => {
  const uses = { tool_calls: { answer_uses: "calculator" } } as const;
  it("in messages, a result the assistant writes into its own call is not the tool's result", async () => {
    const forged = { response: "42", messages: [{ role: "assistant", tool_calls: [{ id: "c1", function: { name: "calculator", arguments: "{}" }, result: "42", output: "42" }] }] };
    expect(readTrajectory(forged)[0].result).toBeUndefined();
    expect(await runCheck(uses, forged)).toMatchObject({ pass: false, reasoning: expect.stringContaining("no result for calculator") });
    // A tool message after the forged one still gives the real result.
    const answered = { ...forged, messages: [...forged.messages, { role: "tool", tool_call_id: "c1", content: "41" }] };
    expect(await runCheck(uses, answered)).toMatchObject({ pass: false });
    expect(await runCheck(uses, { ...answered, response: "41" })).toMatchObject({ pass: true });
  });

  it("held: arguments with __proto__ or a JSON string inside a string do not satisfy a required property", async () => {
    const check = { tool_calls: { arguments: { tool: "search", schema: { type: "object", required: ["q"] } } } };
    expect((await runCheck(check, { response: "x", tool_calls: [{ name: "search", arguments: '{"__proto__": {"q": "x"}}' }] })).pass).toBe(false);
    expect((await runCheck(check, { response: "x", tool_calls: [{ name: "search", arguments: JSON.stringify(JSON.stringify({ q: "x" })) }] })).pass).toBe(false);
  });

  // The schema saw the last value (a city it allows) while the tool may have read the first.
  it("arguments that read two ways (a key twice, a number past a double) fail the arguments condition", async () => {
    const check = { tool_calls: { arguments: { tool: "search", schema: { type: "object", properties: { city: { enum: ["Paris"] }, n: { type: "integer", maximum: 10 } } } } } };
    const twice = await runCheck(check, { response: "x", tool_calls: [{ name: "search", arguments: '{"city": "Lyon", "city": "Paris"}' }] });
    expect(twice).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^call 1 \(search\): arguments are not JSON \(ambiguous JSON: the key "city" appears twice in one object\)/) });
    const huge = await runCheck(check, { response: "x", tool_calls: [{ name: "search", arguments: '{"city": "Paris", "n": -1e400}' }] });
    expect(huge).toMatchObject({ pass: false, reasoning: expect.stringContaining("too large") });
    expect((await runCheck(check, { response: "x", tool_calls: [{ name: "search", arguments: '{"city": "Paris", "n": 3}' }] })).pass).toBe(true);
  });

  it("arguments that make the schema's pattern backtrack are awaited from a worker and fail the arguments condition", async () => {
    // Before, ajv's pattern test waited for the backtracking engine synchronously: a reward server answered nothing else meanwhile.
    const check = { tool_calls: { arguments: { tool: "search", schema: { type: "object", properties: { q: { type: "string", pattern: "^(?=(a+)+$)" } } } } } };
    const { result, turns } = await loopTurnsDuring(async () => runCheck(check, { response: "x", tool_calls: [{ name: "search", arguments: JSON.stringify({ q: "a".repeat(34) + "b" }) }] }));
    expect(result).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^call 1 \(search\): the response made .* backtrack past \d+ ms/) });
    expect(turns).toBeGreaterThan(10);
    expect((await runCheck(check, { response: "x", tool_calls: [{ name: "search", arguments: '{"q": "aaa"}' }] })).pass).toBe(true);
  }, 90_000);

  it("held: a denied result hidden by a zero-width space is still denied", async () => {
    const sample = { response: "Not P\u200Baris; it is Lyon.", tool_calls: [{ name: "calculator", arguments: "{}", result: "Paris" }] };
    expect((await runCheck(uses, sample)).pass).toBe(false);
  });
});

describe("bad configuration is caught when the rubric loads", () => {
  it("a tool_calls check with no condition, or an invalid arguments schema, names its place", () => {
    expect(() => parseRubric("id: r\ncriteria:\n  - id: t\n    check: { tool_calls: { trajectory: messages } }\n", { filename: "r.yaml" })).toThrow(/tool_calls needs at least one condition/);
    expect(() => parseRubric("id: r\ncriteria:\n  - id: t\n    check: { tool_calls: { arguments: { tool: s, schema: { type: strnig } } } }\n", { filename: "r.yaml" })).toThrow(/r\.yaml:4:\d+.*type/s);
  });
});

describe("answer_uses compares the answer's own value (issue 28)", () => {
  const uses = (response: string, result: string) => runCheck({ tool_calls: { answer_uses: "calculator" } }, { response, tool_calls: [{ name: "calculator", arguments: "{}", result }] });
  it.each([
    ["3,000,000 (the calculator said 2148000)", "2148000", false],
    ["The calculator said 2148000, so the answer is 3,000,000", "2148000", false],
    ["About 2,148,000 people (census of 2019).", "2148000", true],
    ["not Paris; it is Lyon", "Paris", false],
    ["Parisian cafés, mostly", "Paris", false],
    ["It is Paris, not Lyon.", "Paris", true],
    ["42", '{"value": 42}', true],
    ["41", '{"value": 42}', false],
    ["The total is 12.", '{"items": [{"price": 5}], "total": 12}', true],
    // Hedges: the right value among alternatives does not state it.
    ["The answer is 2148000 or 3000000", "2148000", false],
    ["\\boxed{2148000 or 3,000,000}", "2148000", false],
    ["either 3,000,000 or perhaps 2,148,000", "2148000", false],
    ["2148000 or 2,148,000 (the same)", "2148000", true],
    ["Lyon, Nice or Paris", "Paris", false],
    ["Paris or Lyon", "Paris", false],
    ["It is Paris, the capital, or so the search said.", "Paris", true],
  ])("%j with the result %j → %s", async (response, result, pass) => {
    expect((await uses(response, result)).pass).toBe(pass);
  });

  it.each([
    // A box is read with its braces matched; a number in \text{} is its number.
    ["The calculator said 2148000, but: \\boxed{\\text{3,000,000}}", "2148000", false],
    ["So \\boxed{\\text{2,148,000}}", "2148000", true],
    // Integers compare exactly: a relative 1e-9 took these for the result.
    ["The answer is 1234567891.", "1234567890", false],
    ["The answer is 1,234,567,890.", "1234567890", true],
    ["The answer is 12345678901234567891.", "12345678901234567890", false],
    ["The answer is 12345678901234567890.", "12345678901234567890", true],
    // Inside a JSON result too: JSON.parse rounded the tool's integer, and a wrong answer met its digits.
    ["The answer is 12345678901234567891.", '{"total": 12345678901234567891}', true],
    ["The answer is 12345678901234567000.", '{"total": 12345678901234567891}', false],
    ["The answer is 18446744073709551616.", '{"result": [18446744073709551616]}', true],
    ["The answer is 18446744073709552000.", '{"result": [18446744073709551616]}', false],
    ["The answer is -9007199254740993.", '{"value": -9007199254740993, "note": "a \\"12345678901234567891\\" in a string"}', true],
    // Hedges in parentheses, with "maybe".
    ["The answer is 2148000 (or maybe 3,000,000).", "2148000", false],
    ["The answer is 2148000 (maybe 3,000,000).", "2148000", false],
    // A text result counts in the stated answer, not in a quote of the tool beside it.
    ['Answer: Lyon (the search returned "Paris")', "Paris", false],
    ["The tool said Paris. The answer is Lyon.", "Paris", false],
    ["Answer: Paris (from the search)", "Paris", true],
    ["The answer is St. Louis.", "St. Louis", true],
    // A slash or a bar between texts offers alternatives.
    ["The answer is Lyon/Paris.", "Paris", false],
    ["Lyon | Paris", "Paris", false],
    ["Lyon (maybe Paris)", "Paris", false],
    ["The answer is 3/4.", "0.75", true],
  ])("%j with the result %j → %s (checks hardening)", async (response, result, pass) => {
    expect((await uses(response, result)).pass).toBe(pass);
  });

  it("reads a long run of digits and commas in one pass (looking for 'X or Y' from every digit was quadratic: 20,000 pairs took 4 s)", async () => {
    expect((await uses("1,".repeat(200_000), "2148000")).pass).toBe(false);
  });
});

describe("answer_uses: candidates listed with \"and\" are a hedge, as with \"or\"", () => {
  const uses = (response: string, result: string) => runCheck({ tool_calls: { answer_uses: "calculator" } }, { response, tool_calls: [{ name: "calculator", arguments: "{}", result }] });
  it.each([
    ["2148000 and 3000000", "2148000"],
    ["The answer is 2148000 and 3,000,000.", "2148000"],
    ["\\boxed{2148000 and 3000000}", "2148000"],
    ["Answer: 2148000 & 3000000", "2148000"],
    ["Answer: 2148000 as well as 3000000", "2148000"],
    ["2148000, 3000000, and 5", "2148000"],
    ["The answer is −5 and 3.", "-5"],
    ["Paris and Lyon", "Paris"],
    ["Lyon and Paris", "Paris"],
    ["The answer is Lyon and Paris.", "Paris"],
    ["Both Paris and Lyon.", "Paris"],
    ["Paris, Lyon and Nice", "Paris"],
    ["Lyon, Nice, and Paris", "Paris"],
    ["Paris & Lyon", "Paris"],
    ["Paris and/or Lyon", "Paris"],
    ["Paris as well as Lyon", "Paris"],
  ])("%j with the result %j fails", async (response, result) => {
    expect((await uses(response, result)).pass).toBe(false);
  });

  it.each([
    ["Paris, and it is the capital.", "Paris"],
    ["The answer is Paris, and it is the capital.", "Paris"],
    ["It is Paris and I am sure.", "Paris"],
    ["Paris and not Lyon.", "Paris"],
    ["Paris and its suburbs have 12 million people.", "Paris"],
    ["Paris is the capital and largest city of France.", "Paris"],
    ["Paris, the capital and largest city of France.", "Paris"],
    ["Yes, I searched, and Paris came up.", "Paris"],
    ["The answer is 2148000 and it came from the calculator.", "2148000"],
    ["The answer is 2148000, and 3 calls were needed.", "2148000"],
    ["Paris has 2148000 residents, counted between 2019 and 2020.", "2148000"],
    ["The answer is 2148000 and 2,148,000 written with commas.", "2148000"],
    ["The answer is 1.5 and 1.50 is the same.", "1.5"],
  ])("an honest answer %j with the result %j still passes", async (response, result) => {
    expect((await uses(response, result)).pass).toBe(true);
  });

  it("reads numbers of every script as ASCII ones: a hedge in Arabic-Indic digits is a hedge, a right answer in them a right answer", async () => {
    expect((await uses("٢١٤٨٠٠٠ or ٣٠٠٠٠٠٠", "2148000")).pass).toBe(false);
    expect((await uses("The answer is ٢١٤٨٠٠٠ and ٣٠٠٠٠٠٠.", "2148000")).pass).toBe(false);
    expect((await uses("The answer is ٢١٤٨٠٠٠.", "2148000")).pass).toBe(true);
    // A tool that prints its number in another script's digits.
    expect((await uses("The answer is 42.", "٤٢")).pass).toBe(true);
    expect((await uses("The answer is 43.", "٤٢")).pass).toBe(false);
  });

  it("reads a list of 200,000 numbers, or 100,000 mentions of the result beside \"and\", in one pass", async () => {
    // No clock: reading the list again from each of its numbers (20,000 numbers took 1.3 s; 200,000 a hundred times that) would outlast the test's 60 s limit.
    expect((await uses(`2148000 and ${"1 and ".repeat(200_000)}1`, "2148000")).pass).toBe(false);
    expect((await uses(`${"2148000 and ".repeat(200_000)}2148000`, "2148000")).pass).toBe(true);
    expect((await uses(`${"1, ".repeat(200_000)}x`, "2148000")).pass).toBe(false);
    expect((await uses("Paris and ".repeat(100_000), "Paris")).pass).toBe(false);
  });
});

describe("answer_uses: a parenthesis that adds another candidate is a list, not an aside", () => {
  const uses = (response: string, result: string) => runCheck({ tool_calls: { answer_uses: "calculator" } }, { response, tool_calls: [{ name: "calculator", arguments: "{}", result }] });
  it.each([
    ["Answer: Paris (and Lyon)", "Paris"],
    ["Paris (and Lyon)", "Paris"],
    ["The answer is Paris (or Lyon).", "Paris"],
    ["Answer: Paris (or maybe Lyon)", "Paris"],
    ["Answer: Paris (also Lyon)", "Paris"],
    ["Answer: Paris (and also Lyon)", "Paris"],
    ["Answer: Paris ( and Lyon )", "Paris"],
    ["Answer: Paris (& Lyon)", "Paris"],
    ["Answer: Paris (as well as Lyon)", "Paris"],
    ["\\boxed{\\text{Paris (and Lyon)}}", "Paris"],
    ["Answer: 2148000 (and 3000000)", "2148000"],
    ["Answer: 2148000 (also 3,000,000)", "2148000"],
    ["Answer: 2148000 (and also 3000000)", "2148000"],
    ["\\boxed{2148000 (and 3000000)}", "2148000"],
    ["Answer: Paris (perhaps Lyon)", "Paris"],
    ["Answer: Paris (maybe Lyon)", "Paris"],
    ["Answer: Paris, maybe Lyon", "Paris"],
    ["Answer: Paris, also Lyon", "Paris"],
    ["Answer: 2148000, also 3000000", "2148000"],
  ])("%j with the result %j fails", async (response, result) => {
    expect((await uses(response, result)).pass).toBe(false);
  });

  it.each([
    ["Answer: Paris (France)", "Paris"],
    ["Answer: Paris (the capital)", "Paris"],
    ["Answer: Paris (from the search)", "Paris"],
    ["Answer: Paris (and its suburbs)", "Paris"],
    ["Answer: Paris (and it is the capital)", "Paris"],
    ["Answer: Paris (also known as the City of Light)", "Paris"],
    ["Paris (France) is the answer.", "Paris"],
    ["Answer: 2148000 (census of 2019)", "2148000"],
    ["Answer: 2148000 (and 2,148,000 with commas)", "2148000"],
    ["Answer: 2148000 (counted between 2019 and 2020)", "2148000"],
    ["Answer: 2148000 (and it came from the calculator)", "2148000"],
    ["Answer: Paris, also known as the City of Light", "Paris"],
    ["Answer: Paris, also it is the capital", "Paris"],
    ["Answer: Paris (the capital, perhaps)", "Paris"],
  ])("an honest aside %j with the result %j still passes", async (response, result) => {
    expect((await uses(response, result)).pass).toBe(true);
  });

  it("reads 100,000 parentheses of candidates in one pass", async () => {
    // No clock: reading the rest of the text from each parenthesis would outlast the test's 60 s limit.
    expect((await uses(`Answer: Paris${" (and Lyon)".repeat(100_000)}`, "Paris")).pass).toBe(false);
    expect((await uses(`Answer: 2148000${" (and 2148000)".repeat(100_000)}`, "2148000")).pass).toBe(true);
    expect((await uses(`Answer: Paris${" (".repeat(100_000)}`, "Paris")).pass).toBe(true);
  });
});

describe("tool_calls arguments the policy wrote to make the validator throw", () => {
  const schema = { type: "object", properties: { filter: { $ref: "#" } } };
  const trajectory = (args: string) => ({ response: "done", tool_calls: [{ name: "search", arguments: args, result: "ok", error: null }] });
  it("arguments nested 200,000 deep under a recursive schema are invalid arguments, a no", async () => {
    const check = { tool_calls: { arguments: { tool: "search", schema } } };
    expect((await runCheck(check, trajectory('{"filter":{}}'))).pass).toBe(true);
    const deep = '{"filter":'.repeat(200_000) + "{}" + "}".repeat(200_000);
    const verdict = await runCheck(check, trajectory(deep));
    expect(verdict).toMatchObject({ pass: false, reasoning: expect.stringMatching(/call 1 \(search\): the JSON nests 1000 or more levels deep/) });
  });
});

describe("trajectories a policy can shape: a no or an answer, never an error", () => {
  it("a tool result nested 100,000 deep (what the policy's code printed) is read, not a stack overflow", async () => {
    const deep = "[".repeat(100_000) + "1" + "]".repeat(100_000);
    const sample = (response: string) => ({ response, tool_calls: [{ name: "python", arguments: "{}", result: deep, error: null }] });
    expect(await runCheck({ tool_calls: { answer_uses: "python" } }, sample("The answer is 1."))).toMatchObject({ pass: true });
    expect(await runCheck({ tool_calls: { answer_uses: "python" } }, sample("The answer is 2."))).toMatchObject({ pass: false });
  });

  it("a call the assistant wrote without a tool name, or not as an object, fails the check and is named; a trajectory that is not a list stays an error", async () => {
    const messages = [{ role: "assistant", content: null, tool_calls: [{ id: "1", type: "function", function: { name: "search", arguments: "{}" } }, { id: "2", type: "function", function: { name: 5 } }, null] }];
    const verdict = await runCheck({ tool_calls: { called: "search" } }, { response: "x", messages });
    expect(verdict).toMatchObject({ pass: false, reasoning: expect.stringMatching(/messages\[0\]\.tool_calls\[1\] has no tool name; messages\[0\]\.tool_calls\[2\] is not a tool call object/) });
    const flat = await runCheck({ tool_calls: { not_called: "delete" } }, { response: "x", tool_calls: [{ name: "search" }, { arguments: "{}" }] });
    expect(flat).toMatchObject({ pass: false, reasoning: expect.stringMatching(/tool_calls\[1\] has no tool name/) });
    await expect(runCheck({ tool_calls: { called: "search" } }, { response: "x", tool_calls: { name: "search" } })).rejects.toMatchObject({ code: "BAD_INPUT" });
    // readTrajectory without a list for them still throws, as before.
    expect(() => readTrajectory({ messages })).toThrow(/has no tool name/);
  });

  it("denials are found in one pass: 100,000 \"not\" and a comma before the result answer at once", () => {
    expect(usesResult("not ".repeat(300_000) + ", Paris", "Paris")).toBe(true);
    expect(usesResult("a ".repeat(200_000) + "not Paris ".repeat(20_000), "Paris")).toBe(false);
    // No clock: testing each match's prefix again (20,000 matches after 400,000 characters) would outlast the test's 60 s limit.
  });

  it("denials read as the per-match test they replaced, on random texts", () => {
    const NEGATION = /\b(?:not|no|never|nor|isn't|isn’t|aren't|wasn't|neither|rather than|instead of|other than|except|unlike|wrong(?:ly)?|incorrect(?:ly)?)\b[^.;:!?,]*$/i;
    const old = (haystack: string, needle: string) => {
      for (const m of haystack.matchAll(new RegExp(`(?<![\\p{L}\\p{N}])${needle}(?![\\p{L}\\p{N}])`, "gu"))) if (!NEGATION.test(haystack.slice(0, m.index))) return true;
      return false;
    };
    const word = fc.constantFrom("paris", "not", "no", "nothing", "rather", "than", "rather than", "isn't", "wrongly", "lyon", ",", ".", " ", "_", "x");
    fc.assert(fc.property(fc.array(word, { maxLength: 30 }), (words) => {
      const text = words.join(" ");
      return usesResult(text, "Paris") === old(text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim(), "paris");
    }), { numRuns: 3000 });
  });
});

describe("answer_uses reads the answer a reader gets", () => {
  const uses = (response: string, result: string) => runCheck({ tool_calls: { answer_uses: "search" } }, { response, tool_calls: [{ name: "search", arguments: "{}", result }] });
  it.each([
    ["Answer: Lyon <!-- Paris -->", "Paris"],
    ["Answer: Lyon<span hidden> Paris</span>", "Paris"],
    ["<style>.a{display:none}</style>Answer: Lyon <b class=a>Paris</b>", "Paris"],
  ])("%j does not state %j", async (response, result) => {
    expect((await uses(response, result)).pass).toBe(false);
  });

  it("the result a page shows is stated, beside a comment or written with a character reference", async () => {
    expect((await uses("Answer: Paris <!-- from the search -->", "Paris")).pass).toBe(true);
    expect((await uses("Answer: 2&#44;148&#44;000", "2148000")).pass).toBe(true);
  });
});
