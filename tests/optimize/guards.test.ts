import { describe, expect, it } from "vitest";
import { budgetWarning, copiesInput, guaranteedProposals, longestCommonSubstring, parseProposal } from "../../src/optimize/guards.js";

describe("parseProposal", () => {
  it("takes the text from the first fence to the last, dropping a language tag", () => {
    const raw = "Better:\n```text\nBe brief.\nCite sources.\n```\n";
    expect(parseProposal(raw)).toEqual({ ok: true, text: "Be brief.\nCite sources." });
  });

  it("keeps a fenced example inside the proposal whole (as the reference does), instead of cutting to its tail", () => {
    const proposal = 'Answer in JSON like this:\n```json\n{"answer": 42, "unit": "m"}\n```\nNever add prose after the JSON.';
    const raw = `Here is the new prompt.\n\`\`\`\n${proposal}\n\`\`\``;
    expect(parseProposal(raw)).toEqual({ ok: true, text: proposal });
  });

  it("ignores inline backticks that do not start a line", () => {
    expect(parseProposal("Put it in ``` blocks:\n```\nNew text\n```")).toEqual({ ok: true, text: "New text" });
  });

  it("refuses unfenced output", () => {
    expect(parseProposal("Just be brief.")).toMatchObject({ ok: false, reason: "unfenced" });
  });

  it("refuses truncated output (an unclosed fence)", () => {
    expect(parseProposal("```\nBe brief and")).toMatchObject({ ok: false, reason: "truncated" });
    expect(parseProposal("```\na\n```\n```\nb")).toMatchObject({ ok: false, reason: "truncated" });
  });

  it("refuses output still reasoning", () => {
    expect(parseProposal("<think>the user wants ```")).toMatchObject({ ok: false, reason: "reasoning" });
    expect(parseProposal("```\n<think>hmm</think>\nBe brief.\n```")).toMatchObject({ ok: false, reason: "reasoning" });
  });

  it("accepts a closed <think> block before the answer, and ignores fences inside it", () => {
    const raw = "<think>maybe ```\nx\n``` or not</think>\nHere:\n```\nBe brief.\n```";
    expect(parseProposal(raw)).toEqual({ ok: true, text: "Be brief." });
  });

  it("refuses an empty block", () => {
    expect(parseProposal("```\n\n```")).toMatchObject({ ok: false, reason: "empty" });
  });
});

describe("copy check", () => {
  it("measures the longest common substring", () => {
    expect(longestCommonSubstring("xxabcdyy", "zabcdz")).toBe(4);
    expect(longestCommonSubstring("", "abc")).toBe(0);
  });

  const example = "Patient is 54, has chest pain spreading to the left arm since this morning, and is sweating.";
  it("flags a text that pastes in a training input", () => {
    expect(copiesInput(`Be careful.\n${example}`, example, "Be careful.", 60)).toBe(true);
  });
  it("does not flag short overlaps or text the parent already had", () => {
    expect(copiesInput("Be careful with chest pain spreading to the left arm.", example, "", 60)).toBe(false);
    expect(copiesInput(`Be careful.\n${example}`, example, example, 60)).toBe(false);
  });
});

describe("budget warning", () => {
  it("counts the proposals a budget surely pays for", () => {
    // seed on 10 val = 10; each accepted proposal 3 + 3 + 10 = 16 → (100 - 10) / 16 = 5.6 → 5
    expect(guaranteedProposals(100, 10, 3)).toBe(5);
    expect(budgetWarning(100, 10, 3)).toBeUndefined();
    expect(budgetWarning(80, 10, 3)).toMatch(/only 4 accepted proposals \(at most 11 if none is accepted\)/);
  });
});
