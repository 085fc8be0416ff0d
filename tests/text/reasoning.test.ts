import { describe, expect, it } from "vitest";
import { splitReasoning } from "../../src/text/reasoning.js";

describe("splitReasoning", () => {
  it.each([
    ["<think>2+2 is 4</think>\nThe answer is 4.", { answer: "The answer is 4.", reasoning: "2+2 is 4", unclosed: false }],
    ["no reasoning here", { answer: "no reasoning here", reasoning: "", unclosed: false }],
    // Qwen3 / DeepSeek-R1 templates put <think> in the prompt: the output starts inside the block.
    ["so it is 4\n</think>\n\n4", { answer: "4", reasoning: "so it is 4", unclosed: false }],
    ["<think>a</think>x<thinking>b</thinking>y", { answer: "xy", reasoning: "a\n\nb", unclosed: false }],
    ["<think>still thinking when the tokens ran out", { answer: "", reasoning: "still thinking when the tokens ran out", unclosed: true }],
    ["Preface <THINK>hidden</THINK> answer", { answer: "Preface  answer", reasoning: "hidden", unclosed: false }],
  ])("%j", (text, expected) => {
    expect(splitReasoning(text)).toEqual(expected);
  });
});
