import { describe, expect, it } from "vitest";
import { buildJudgeRequest, sampleNonce, sharedPrefix } from "../../src/judge/prompt.js";

const rubric = { id: "r", description: "d", inputs: ["context", "response"] };
const settings = { model: "m", temperature: 0, maxTokens: 100, logprobs: false, structuredOutput: true };
const text = (req: ReturnType<typeof buildJudgeRequest>) => (req.messages[0].content as { text: string }[]).map((p) => p.text).join("");

describe("judge prompt", () => {
  it("puts the shared part first (marked for caching) and the questions last", () => {
    const req = buildJudgeRequest(rubric, { context: "C", response: "R" }, [{ id: "a", question: "Is it so?" }], true, settings);
    const parts = req.messages[0].content as { text: string; cache?: boolean }[];
    expect(parts[0].cache).toBe(true);
    expect(parts[0].text).toBe(sharedPrefix(rubric, { context: "C", response: "R" }));
    expect(parts[1].text).toContain("- id: a\n  question: Is it so?");
    expect(parts[1].cache).toBeUndefined();
  });

  it("derives the nonce from the sample: stable across runs, different across samples", () => {
    expect(sampleNonce("r", { response: "x" })).toBe(sampleNonce("r", { response: "x" }));
    expect(sampleNonce("r", { response: "x" })).not.toBe(sampleNonce("r", { response: "y" }));
    expect(sampleNonce("r", { a: 1, b: 2 })).toBe(sampleNonce("r", { b: 2, a: 1 }));
  });

  it("renders few-shot examples with their inputs inside delimiters", () => {
    const q = {
      id: "lacks",
      question: "Does the context lack the answer?",
      examples: [{ response: "I cannot tell.", answer: true, reason: "no date given", inputs: { context: "The shop opened in spring." } }],
    };
    const prompt = text(buildJudgeRequest(rubric, { context: "C", response: "R" }, [q], false, settings));
    const nonce = sampleNonce("r", { context: "C", response: "R" });
    const example = prompt.slice(prompt.indexOf(`<example-${nonce}>`), prompt.indexOf(`</example-${nonce}>`));
    expect(example).toContain("### context\n      The shop opened in spring.");
    expect(example).toContain("### response\n      I cannot tell.");
    expect(prompt).toContain(`</example-${nonce}> → yes (no date given)`);
  });
});
