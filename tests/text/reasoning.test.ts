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

describe("splitReasoning with nested and stray tags", () => {
  it("a block nested in a block ends at its own closing tag, so the outer block's rest stays reasoning", () => {
    expect(splitReasoning("<think>a <think>b</think> \\boxed{5} </think> answer")).toEqual({ answer: "answer", reasoning: "a <think>b</think> \\boxed{5}", unclosed: false });
  });
  it("an outer block never closed leaves no answer", () => {
    expect(splitReasoning("<think>a <think>b</think> \\boxed{5}")).toMatchObject({ answer: "", unclosed: true });
  });
  it("text before a stray closing tag was written inside a block: it is reasoning", () => {
    expect(splitReasoning("<think>a</think> \\boxed{5} </think> answer")).toMatchObject({ answer: "answer", reasoning: "a\n\n\\boxed{5}" });
  });
});

describe("splitReasoning on a long response: linear time", () => {
  it("many stray closing tags are read in one pass (looking past each for a later one was quadratic: 100,000 took 11 s)", () => {
    expect(splitReasoning(`${"x </think>".repeat(400_000)} 4`)).toMatchObject({ answer: "4", unclosed: false });
    expect(splitReasoning(`a</think>${"</THINKING>".repeat(400_000)}4`)).toMatchObject({ answer: "4", unclosed: false });
    // No clock: the quadratic search took 11 s on 100,000, so 400,000 would outlast the test's 60 s limit.
  });

  it("the last stray closing tag, of either name and any case, still ends the reasoning", () => {
    expect(splitReasoning("<think>a</think> b </THINKING> c </think> answer")).toEqual({ answer: "answer", reasoning: "a\n\nb </THINKING> c", unclosed: false });
  });
});
