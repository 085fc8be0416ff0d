import { describe, expect, it } from "vitest";
import { buildJudgeRequest, rubricBlock, sampleBlock, sampleNonce } from "../../src/judge/prompt.js";

const rubric = { id: "r", description: "d", inputs: ["context", "response"] };
const settings = { model: "m", temperature: 0, maxTokens: 100, logprobs: false, structuredOutput: true };
const text = (req: ReturnType<typeof buildJudgeRequest>) => (req.messages[0].content as { text: string }[]).map((p) => p.text).join("");

describe("judge prompt", () => {
  it("puts the rubric-level part first (marked for caching), questions included, and the sample's own block last", () => {
    for (const batched of [true, false]) {
      const req = buildJudgeRequest(rubric, { context: "C", response: "R" }, [{ id: "a", question: "Is it so?" }], batched, settings);
      const parts = req.messages[0].content as { text: string; cache?: boolean }[];
      expect(parts[0].cache).toBe(true);
      expect(parts[0].text).toBe(`${rubricBlock(rubric, [{ id: "a", question: "Is it so?" }], batched)}\n\n`);
      expect(parts[0].text).toContain("- id: a\n  question: Is it so?");
      expect(parts[1].text).toBe(sampleBlock(rubric, { context: "C", response: "R" }));
      expect(parts[1].cache).toBeUndefined();
    }
  });

  it("sends the same rubric-level part for every sample, so nothing before the sample depends on it", () => {
    const q = [{ id: "a", question: "Is it so?", examples: [{ response: "It is so.", answer: true }] }];
    const first = buildJudgeRequest(rubric, { context: "C", response: "R" }, q, true, settings);
    const second = buildJudgeRequest(rubric, { context: "D", response: "S" }, q, true, settings);
    expect((first.messages[0].content as { text: string }[])[0]).toEqual((second.messages[0].content as { text: string }[])[0]);
    expect(first.system).toBe(second.system);
  });

  it("builds the rubric-level part once per rubric, questions and style, and again when any of them changes", () => {
    const own = { id: "r2", description: "first", inputs: ["response"] };
    const ask = (questions: { id: string; question: string; quote?: boolean }[], batched = false, style: Partial<typeof settings> & { reasoning?: "none" | "after" | "before" } = {}) =>
      (buildJudgeRequest(own, { response: "R" }, questions, batched, { ...settings, ...style }).messages[0].content as { text: string }[])[0].text;
    const first = ask([{ id: "a", question: "Is it so?" }]);
    expect(ask([{ id: "a", question: "Is it so?" }])).toBe(first);
    expect(ask([{ id: "a", question: "Is it so today?" }])).toContain("question: Is it so today?");
    expect(ask([{ id: "a", question: "Is it so?", quote: true }])).toContain("quote: required");
    expect(ask([{ id: "a", question: "Is it so?" }], true)).toBe(`${rubricBlock(own, [{ id: "a", question: "Is it so?" }], true)}\n\n`);
    expect(ask([{ id: "a", question: "Is it so?" }], false, { reasoning: "after" })).toContain('"reason" is one short sentence');
    // A templated question carries sample text: no text makes one question list pass for another.
    const two = ask([{ id: "a", question: "A" }, { id: "b", question: "B" }]);
    expect(ask([{ id: "a", question: "A\u0001false\u0000b\u0001B" }])).not.toBe(two);
    expect(ask([{ id: "a", question: 'A",false],["b","B' }])).not.toBe(two);
    // Lists with the same ids in the same order that differ in a question's text or quote flag, or
    // lists that differ after their first question, each get their own part.
    expect(ask([{ id: "a", question: "A" }, { id: "b", question: "C" }])).toContain("question: C");
    expect(ask([{ id: "a", question: "A" }, { id: "c", question: "B" }])).toContain("id: c");
    expect(ask([{ id: "a", question: "A" }, { id: "b", question: "B", quote: true }])).toContain("quote: required");
    expect(ask([{ id: "a", question: "A" }, { id: "b", question: "B" }])).toBe(two);
    own.description = "second";
    expect(ask([{ id: "a", question: "Is it so?" }])).toContain("Rubric: r2 — second");
    expect(ask([{ id: "a", question: "Is it so?" }])).toBe(`${rubricBlock(own, [{ id: "a", question: "Is it so?" }], false)}\n\n`);
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
    const nonce = /<example-([0-9a-f]{16})>/.exec(prompt)![1];
    // The examples' marker is the rubric's (a hash of the examples), not the sample's: the same for every sample.
    expect(nonce).not.toBe(sampleNonce("r", { context: "C", response: "R" }));
    const example = prompt.slice(prompt.indexOf(`<example-${nonce}>`), prompt.indexOf(`</example-${nonce}>`));
    expect(example).toContain("### context\n      The shop opened in spring.");
    expect(example).toContain("### response\n      I cannot tell.");
    expect(prompt).toContain(`</example-${nonce}> → yes (no date given)`);
  });
});
