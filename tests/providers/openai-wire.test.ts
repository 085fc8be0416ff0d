/** Reading a chat completion's tool calls as servers other than OpenAI's write them (src/providers/openai-wire.ts). */
import { describe, expect, it } from "vitest";
import { fromOpenAIResponse } from "../../src/providers/openai-wire.js";
import type { ChatCompletion } from "openai/resources/chat/completions";

const completion = (toolCalls: unknown[]): ChatCompletion =>
  ({ id: "x", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, finish_reason: "tool_calls", logprobs: null, message: { role: "assistant", content: null, refusal: null, tool_calls: toolCalls } }] }) as unknown as ChatCompletion;

describe("fromOpenAIResponse: tool calls", () => {
  // A random id made a resumed rollout's next request differ from the one cached: paid again.
  it("gives a call without an id the same id every time the same answer is read, and different calls different ids", () => {
    const answer = completion([
      { function: { name: "lookup", arguments: '{"word": "alpha"}' } },
      { function: { name: "lookup", arguments: '{"word": "beta"}' } },
      { id: "", type: "function", function: { name: "lookup", arguments: '{"word": "alpha"}' } },
    ]);
    const first = fromOpenAIResponse(answer, "openai-compatible").toolCalls!.map((c) => c.id);
    const again = fromOpenAIResponse(structuredClone(answer), "openai-compatible").toolCalls!.map((c) => c.id);
    expect(again).toEqual(first);
    expect(new Set(first).size).toBe(3);
    for (const id of first) expect(id).toMatch(/^call_\d_[0-9a-f]{12}$/);
  });

  it("keeps a server's own ids and reads object, null and missing arguments as JSON text", () => {
    const calls = fromOpenAIResponse(
      completion([
        { id: "a", type: "function", function: { name: "f", arguments: { q: 1 } } },
        { id: "b", type: "function", function: { name: "f", arguments: null } },
        { id: "c", function: { name: "f" } },
        { id: "d", type: "custom", custom: { name: "g", input: "x" } },
      ]),
      "openai-compatible",
    ).toolCalls;
    expect(calls).toEqual([
      { id: "a", name: "f", arguments: '{"q":1}' },
      { id: "b", name: "f", arguments: "" },
      { id: "c", name: "f", arguments: "" },
    ]);
  });
});
