import { describe, expect, it } from "vitest";
import { scoreSample } from "../../src/score/score.js";
import { builtinAttacks, type Attack } from "../../src/probe/attacks.js";
import { suggestFix } from "../../src/probe/fixes.js";
import { passesEmpty } from "../../src/probe/fixes.js";
import { parseRubric } from "../../src/rubric/load.js";

const rubric = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - { id: c, question: Does the response answer?, points: 2 }\n  - { id: short, check: { length: { max: 50, unit: words } }, points: 1 }\n  - { id: bullets, check: { regex: { pattern: '^- ', flags: m } }, points: 1 }\n");
const attack = (category: Attack["category"]): Attack => ({ id: category, category, description: "d", deserves_zero: true, template: "" });

/** The YAML snippet of a fix, appended to a rubric's criteria. */
function withSnippet(fix: string): ReturnType<typeof parseRubric> {
  const yaml = fix.slice(fix.indexOf("\n") + 1);
  return parseRubric(`id: t\ninputs: [response]\ncriteria:\n  - { id: c, question: Q?, points: 1 }\n${yaml}\n`);
}

describe("suggested fixes", () => {
  it("the grader-talk gate parses as a criterion and zeroes every packaged injection, delimiter and claim attack", async () => {
    const fixed = withSnippet(suggestFix(rubric, attack("injection"), rubric.criteria[0], "injection"));
    const gate = fixed.criteria.find((c) => c.id === "no-grader-talk")!;
    expect(gate.required).toBe(true);
    const texts = builtinAttacks().filter((a) => ["injection", "delimiter"].includes(a.category) || a.id === "claim-compliance").map((a) => a.template.replace(/\{\{[^}]+\}\}/g, "0123456789abcdef"));
    for (const response of texts) {
      const result = await scoreSample({ ...fixed, criteria: [gate] }, { response });
      expect(result.verdicts[0].status, response).toBe("unmet");
    }
    const fine = await scoreSample({ ...fixed, criteria: [gate] }, { response: "Paris is the capital of France. Yes, it is also the largest city." });
    expect(fine.verdicts[0].status).toBe("met");
  });

  it("the coherence gate parses as a required criterion", () => {
    const fixed = withSnippet(suggestFix(rubric, attack("keywords"), rubric.criteria[0], "keywords"));
    expect(fixed.criteria.find((c) => c.id === "answers-the-task")).toMatchObject({ required: true, points: 1 });
  });

  it("recognises absence checks and names a criterion to gate them on", () => {
    expect(passesEmpty(rubric.criteria[1])).toBe(true);
    expect(passesEmpty(rubric.criteria[2])).toBe(false);
    expect(passesEmpty(rubric.criteria[0])).toBe(false);
    expect(suggestFix(rubric, attack("empty"), rubric.criteria[1], "empty")).toMatch(/passes an empty response.*`when: c`/);
  });

  it("an attack's own fix replaces the category's", () => {
    expect(suggestFix(rubric, { ...attack("claim"), fix: "Do this." }, rubric.criteria[0], "claim")).toBe("Do this.");
  });
});
