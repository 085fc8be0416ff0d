/**
 * A tool call's arguments are checked against the tool's parameters before the tool runs: arguments
 * the policy built to make the validator throw (a pattern it makes backtrack, nesting past the
 * validator's stack) are its invalid arguments, read back as a failed call, not an error that ends
 * the rollout; and a costly pattern test is awaited, so other rollouts on the process go on.
 */
import { expect, it } from "vitest";
import { verdictBudgets } from "../../src/checks/regex.js";
import { executeToolCall } from "../../src/env/tools.js";
import type { HookContext } from "../../src/env/types.js";
import { loopTurnsDuring } from "../helpers/event-loop.js";

const ctx = { signal: new AbortController().signal } as HookContext;
const lookup = { name: "lookup", parameters: { type: "object", properties: { query: { type: "string", pattern: "^(?=(a+)+$)" } }, required: ["query"] } };
const impls = { lookup: (args: { query: string }) => `found ${args.query}` };
const call = (args: unknown) => executeToolCall({ id: "c1", name: "lookup", arguments: JSON.stringify(args) }, [lookup], impls, ctx, 10_000);

it("arguments that make a parameter's pattern backtrack past its deadline are bad arguments, and the event loop turns meanwhile", async () => {
  const { result, turns } = await loopTurnsDuring(() => call({ query: "a".repeat(34) + "b" }));
  expect(result).toMatchObject({ error: "bad_arguments", result: expect.stringMatching(/^Error: invalid arguments for lookup: the response made .* backtrack past \d+ ms/) });
  expect(turns).toBeGreaterThan(10);
  expect(await call({ query: "aaa" })).toMatchObject({ result: "found aaa" });
  expect(await call({ query: "ab" })).toMatchObject({ error: "bad_arguments", result: 'Error: invalid arguments for lookup: /query must match pattern "^(?=(a+)+$)".' });
}, 90_000);

it("arguments nested past the validator's stack under a recursive schema are bad arguments", async () => {
  const tree = { name: "tree", parameters: { type: "object", properties: { child: { $ref: "#" } } } };
  const nested = '{"child":'.repeat(200_000) + "{}" + "}".repeat(200_000);
  const record = await executeToolCall({ id: "c2", name: "tree", arguments: nested }, [tree], { tree: () => "ok" }, ctx, 10_000);
  expect(record).toMatchObject({ error: "bad_arguments", result: expect.stringMatching(/nests 1000 or more levels deep/) });
});

it("arguments with many strings each costly for a parameter's pattern spend the call's regex budget: bad arguments that say so", async () => {
  // ^(?!(a+)+$) backtracks 2^25 steps on each (~0.15 s of CPU), then matches: before, the call ran
  // all 60 tests (~9 s of the regex workers) and the tool ran. Past 1,000 characters, V8 runs the
  // pattern as native code from its first test.
  const batch = { name: "batch", parameters: { type: "object", properties: { queries: { type: "array", items: { type: "string", pattern: "^(?!(a+)+$)" } } }, required: ["queries"] } };
  const queries = Array.from({ length: 60 }, (_, i) => `${"a".repeat(25)}b${"c".repeat(1_000)}${i}`);
  const record = await executeToolCall({ id: "c3", name: "batch", arguments: JSON.stringify({ queries }) }, [batch], { batch: () => "ran" }, ctx, 10_000);
  expect(record).toMatchObject({ error: "bad_arguments", result: expect.stringMatching(/^Error: invalid arguments for batch: the response's patterns used up the check's regex budget/) });
  expect(await executeToolCall({ id: "c4", name: "batch", arguments: JSON.stringify({ queries: queries.slice(0, 3) }) }, [batch], { batch: () => "ran" }, ctx, 10_000)).toMatchObject({ result: "ran" });
}, 90_000);

it("a rollout's calls share one regex budget: arguments that spent it leave no worker CPU for the next call's costly tests", async () => {
  const batch = { name: "batch", parameters: { type: "object", properties: { queries: { type: "array", items: { type: "string", pattern: "^(?!(a+)+$)" } } }, required: ["queries"] } };
  const queries = Array.from({ length: 60 }, (_, i) => `${"a".repeat(25)}b${"c".repeat(1_000)}${i}`);
  const run = (id: string, args: string[], budgets?: ReturnType<typeof verdictBudgets>) => executeToolCall({ id, name: "batch", arguments: JSON.stringify({ queries: args }) }, [batch], { batch: () => "ran" }, ctx, 10_000, budgets);
  const rollout = verdictBudgets();
  expect(await run("c7", queries, rollout)).toMatchObject({ error: "bad_arguments" });
  // Three costly tests alone run (a call of its own budget), but not on what the rollout has left.
  expect(await run("c8", queries.slice(0, 3), rollout)).toMatchObject({ error: "bad_arguments", result: expect.stringMatching(/regex budget/) });
  expect(await run("c9", queries.slice(0, 3))).toMatchObject({ result: "ran" });
}, 90_000);

it("arguments with thousands of invalid items get the first ten problems and a count of the rest, not one line per item", async () => {
  const ids = { name: "ids", parameters: { type: "object", properties: { ids: { type: "array", items: { type: "integer" } } }, required: ["ids"] } };
  const record = await executeToolCall({ id: "c5", name: "ids", arguments: JSON.stringify({ ids: Array.from({ length: 5_000 }, (_, i) => `x${i}`) }) }, [ids], { ids: () => "ran" }, ctx, 10_000);
  expect(record.error).toBe("bad_arguments");
  expect(record.result).toBe(`Error: invalid arguments for ids: ${Array.from({ length: 10 }, (_, i) => `/ids/${i} must be integer`).join("; ")}; and 4,990 more.`);
  // A problem at the arguments' root is named as such.
  const rootless = await executeToolCall({ id: "c6", name: "ids", arguments: "{}" }, [ids], { ids: () => "ran" }, ctx, 10_000);
  expect(rootless.result).toBe("Error: invalid arguments for ids: arguments must have required property 'ids'.");
});
