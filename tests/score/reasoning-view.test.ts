import { describe, expect, it } from "vitest";
import { reasoningView } from "../../src/score/reasoning-view.js";
import { score } from "../../src/score/score.js";
import { parseRubric } from "../../src/rubric/load.js";
import type { Judge, JudgeRequest } from "../../src/judge/types.js";

describe("reasoningView", () => {
  const sample = { response: "<think>I guess 5</think>The answer is 4.", id: 1 };
  it("strip (default) grades the answer alone; keep the whole output; only the reasoning", () => {
    expect(reasoningView(sample, "response", "strip").response).toBe("The answer is 4.");
    expect(reasoningView(sample, "response", "keep")).toBe(sample);
    expect(reasoningView(sample, "response", "only").response).toBe("I guess 5");
  });
  it("a sample without reasoning is returned as is (judge cache keys unchanged)", () => {
    const plain = { response: "4" };
    expect(reasoningView(plain, "response", "strip")).toBe(plain);
  });
  it("a provider's separate reasoning_content joins keep and only", () => {
    const separate = { response: "4", reasoning_content: "2+2" };
    expect(reasoningView(separate, "response", "strip")).toBe(separate);
    expect(reasoningView(separate, "response", "keep").response).toBe("<think>\n2+2\n</think>\n\n4");
    expect(reasoningView(separate, "response", "only").response).toBe("2+2");
  });
  it("an unclosed block leaves no answer", () => {
    expect(reasoningView({ response: "<think>…the answer is 4" }, "response", "strip").response).toBe("");
  });
});

describe("scoring with reasoning", () => {
  const rubric = parseRubric(
    `id: r
criteria:
  - id: correct
    check: { math: { expected: 4 } }
  - id: no-five-in-answer
    check: { not_contains: "5" }
  - id: reasoning-mentions-guess
    check: { contains: guess }
    reasoning: only
  - id: judged
    question: Is the answer right?
`,
    { filename: "r.yaml" },
  );
  it("checks and judge questions see the stripped answer unless they ask for the reasoning", async () => {
    const seen: string[] = [];
    const judge: Judge = {
      id: "recording",
      async answer(request: JudgeRequest) {
        seen.push(String(request.sample.response));
        return { verdicts: new Map(request.questions.map((q) => [q.id, { pass: true, source: "llm" as const }])), usage: {} };
      },
    } as unknown as Judge;
    const [result] = await score(rubric, [{ response: "<think>I guess 5</think>\\boxed{4}" }], { judge });
    const status = Object.fromEntries(result.verdicts.map((v) => [v.id, v.status]));
    expect(status).toEqual({ correct: "met", "no-five-in-answer": "met", "reasoning-mentions-guess": "met", judged: "met" });
    expect(seen).toEqual(["\\boxed{4}"]);
  });
  it("an unclosed think block is no answer: the math check fails instead of grading the reasoning", async () => {
    const [result] = await score(rubric, [{ response: "<think>so it is \\boxed{4}" }], {});
    expect(result.verdicts.find((v) => v.id === "correct")).toMatchObject({ status: "unmet", reasoning: "no final answer found (expected \"4\")" });
  });
  it("a think-format criterion sees the whole output (reasoning: keep) and fails an unclosed block", async () => {
    const format = parseRubric("id: f\ncriteria:\n  - id: think-then-answer\n    check: { tags: { required: [think] } }\n    reasoning: keep\n", { filename: "f.yaml" });
    const [closed, unclosed] = await score(format, [{ response: "<think>a</think>4" }, { response: "<think>a … 4" }]);
    expect(closed.reward).toBe(1);
    expect(unclosed.verdicts[0]).toMatchObject({ status: "unmet", reasoning: "<think> is never closed" });
  });
});
