/**
 * A tool call's arguments are checked against the tool's parameters before the tool runs: arguments
 * the policy built to make the validator throw (a pattern it makes backtrack, nesting past the
 * validator's stack) are its invalid arguments, read back as a failed call, not an error that ends
 * the rollout; and a costly pattern test is awaited, so other rollouts on the process go on.
 */
import { expect, it } from "vitest";
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
