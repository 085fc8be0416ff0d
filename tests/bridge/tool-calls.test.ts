/** Tool calls in the formats trainers' chat templates write them (src/bridge/tool-calls.ts). */
import { describe, expect, it } from "vitest";
import { StepToolCallSchema, toolCallsInText } from "../../src/bridge/tool-calls.js";

describe("toolCallsInText (Hermes / Qwen <tool_call> blocks)", () => {
  it.each([
    ["one call, text kept", 'Let me look.\n<tool_call>\n{"name": "find_orders", "arguments": {"email": "a@b.c"}}\n</tool_call>', "Let me look.", [{ name: "find_orders", arguments: { email: "a@b.c" } }]],
    ["two calls in one turn", '<tool_call>{"name": "a", "arguments": {}}</tool_call>\n<tool_call>{"name": "b", "arguments": {"x": 1}}</tool_call>', "", [{ name: "a", arguments: {} }, { name: "b", arguments: { x: 1 } }]],
    ["arguments as JSON text", '<tool_call>{"name": "a", "arguments": "{\\"x\\": 2}"}</tool_call>', "", [{ name: "a", arguments: '{"x": 2}' }]],
    ["Llama-style parameters", '<tool_call>{"name": "a", "parameters": {"x": 3}}</tool_call>', "", [{ name: "a", arguments: { x: 3 } }]],
    ["no arguments", '<tool_call>{"name": "a"}</tool_call>', "", [{ name: "a", arguments: {} }]],
  ])("%s", (_label, text, content, calls) => {
    expect(toolCallsInText(text)).toEqual({ content, calls });
  });

  it.each([
    ["plain text", "GUESS: crane"],
    ["broken JSON", '<tool_call>{"name": "a", "arguments": {</tool_call>'],
    ["no name", '<tool_call>{"arguments": {}}</tool_call>'],
    ["a JSON array", "<tool_call>[1, 2]</tool_call>"],
    ["arguments not an object", '<tool_call>{"name": "a", "arguments": [1]}</tool_call>'],
    ["an unclosed block", '<tool_call>{"name": "a", "arguments": {}}'],
  ])("%s stays text: no call is invented", (_label, text) => {
    expect(toolCallsInText(text)).toEqual({ content: text, calls: [] });
  });

  it("a broken block beside a good one stays in the text; the good one is a call", () => {
    const text = '<tool_call>{"name": "a", "arguments": {}}</tool_call> <tool_call>{oops}</tool_call>';
    expect(toolCallsInText(text)).toEqual({ content: "<tool_call>{oops}</tool_call>", calls: [{ name: "a", arguments: {} }] });
  });
});

describe("StepToolCallSchema", () => {
  it("takes OpenAI's {type, function: {name, arguments}} and our flat {name, arguments} to the same call", () => {
    const openai = StepToolCallSchema.parse({ id: "call_1", type: "function", function: { name: "get_order", arguments: '{"order_id": "A1"}' } });
    const flat = StepToolCallSchema.parse({ id: "call_1", name: "get_order", arguments: '{"order_id": "A1"}' });
    expect(openai).toEqual(flat);
    expect(StepToolCallSchema.safeParse({ function: { arguments: "{}" } }).success).toBe(false);
    expect(StepToolCallSchema.safeParse({ name: "a", function: { name: "b" } }).success).toBe(false);
  });
});
