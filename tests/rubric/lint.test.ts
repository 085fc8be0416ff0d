import { describe, expect, it } from "vitest";
import { lintFails, lintQuestion, lintRubric, questionSimilarity } from "../../src/rubric/lint.js";
import { parseRubric } from "../../src/rubric/load.js";
import type { Criterion } from "../../src/rubric/schema.js";

/** [question, points, the rule it must raise] */
const BAD: [string, number, string][] = [
  ["How well does the response explain the diagnosis?", 1, "not-yes-no"],
  ["Rate the clarity of the explanation from 1 to 10.", 1, "not-yes-no"],
  ["To what extent is the answer grounded in the context?", 1, "not-yes-no"],
  ["What is the final answer?", 1, "not-yes-no"],
  ["The response cites the context.", 1, "not-yes-no"],
  ["Evaluate whether the tone is polite.", 1, "not-yes-no"],
  ["Does the response score the answer on a scale of 1 to 5?", 1, "not-yes-no"],
  ["Does the response explain the cause and suggest a fix?", 1, "multiple-asks"],
  ["Does the response apologize and offer a refund?", 1, "multiple-asks"],
  ["Does the response cite a source and is it written in English?", 1, "multiple-asks"],
  ["Does the response mention the dose, the frequency, and the duration?", 1, "multiple-asks"],
  ["Does the response include both a summary and a recommendation?", 1, "multiple-asks"],
  ["Does the comment name the bug and/or the fix?", 1, "multiple-asks"],
  ["Does the response give an appropriate answer?", 1, "vague-word"],
  ["Is the tone of the reply good?", 1, "vague-word"],
  ["Does the response include relevant details?", 1, "vague-word"],
  ["Does the summary cover the article adequately?", 1, "vague-word"],
  ["Does the response handle the refusal properly?", 1, "vague-word"],
  ["Does the response not fail to mention the deadline?", 1, "double-negative"],
  ["Is the answer not without errors?", -2, "double-negative"],
  ["Doesn't the reply avoid the question?", -2, "double-negative"],
  ["Does the response avoid inventing a dosage?", -5, "pitfall-polarity"],
  ["Is the response free of hallucinated facts?", -3, "pitfall-polarity"],
  ["Does the response refrain from blaming the customer?", -3, "pitfall-polarity"],
  ["Is the answer accurate with respect to the reference answer?", -3, "pitfall-polarity"],
  ["Does the response never mention the competitor's name?", -2, "pitfall-polarity"],
  ["Does the response invent a citation that is not in the context?", 3, "reward-polarity"],
  ["Does the code compile and run?", 3, "multiple-asks"],
  ["Does the response state that the risk is low and reassure the user?", 2, "multiple-asks"],
  ["Is the response concise?", 1, "vague-word"],
  ["If the question describes chest pain, does the response tell the person to call 911?", 5, "conditional-question"],
];

/** Questions that must lint clean (as criteria with examples on both sides). */
const GOOD: [string, number][] = [
  ["Does the response tell the person to call emergency services now?", 5],
  ["Does the response state a medication dose that the question did not give?", -5],
  ["Does the response say that the context does not contain the answer?", 3],
  ["Is the final answer 42?", 1],
  ["Does the response describe the image as black and white?", 1],
  ['Does the reply use the phrase "pros and cons"?', 1],
  ["Does the response recommend calling 911 or going to the nearest emergency department?", 5],
  ["Does the comment point out the off-by-one error in the loop bound?", 3],
  ["Does the response ask how long the symptoms have lasted?", 3],
  ["Is the summary at most three sentences long?", 1],
  ["Does the response include a relevant citation, such as a guideline name or a study?", 1],
  ["Does the response blame the customer for the outage?", -3],
  ["Does the response refuse to provide the synthesis route?", 5],
  ["Does every sentence of the summary have support in the source document?", 5],
  ["Does the response state the refund amount and the date it will arrive as one sentence?", 1],
  ['Does the comment say whether the point must be fixed before merging or is optional, for example with a label such as "nit:"?', 1],
  ["Does the response add a fact that the source does not mention, such as a name, number, date or cause?", -3],
  ["Does the response flag the error in the second step?", 3],
  ["Does the response suggest consulting a healthcare professional before stopping the medication?", 3],
  ["Does the response say that a diagnosis needs an examination or tests by a clinician?", 3],
  ['Does the summary keep every hedge of the source, such as "may", "preliminary" or "in mice"?', 3],
  ["Does the answer use the salt and pepper example?", 1],
  ["Does the response use bullet points or a numbered list?", 1],
  ["Does the summary omit the main finding of the study?", -5],
];

function rubricOf(criteria: Partial<Criterion>[]): { criteria: Criterion[] } {
  return {
    criteria: criteria.map((c, i) => ({
      id: c.id ?? `c${i}`,
      points: 1,
      required: false,
      examples: [
        { response: "yes case", answer: true },
        { response: "no case", answer: false },
      ],
      ...c,
    })) as Criterion[],
  };
}

describe("lintQuestion: bad questions raise their lint", () => {
  it.each(BAD)("%s (points %d) → %s", (question, points, rule) => {
    const rules = lintQuestion(question, { points }).map((f) => f.rule);
    expect(rules).toContain(rule);
  });
});

describe("lintQuestion: good questions pass clean", () => {
  it.each(GOOD)("%s (points %d)", (question, points) => {
    const findings = lintQuestion(question, { points }).filter((f) => f.severity !== "info");
    expect(findings).toEqual([]);
  });
});

describe("lintRubric", () => {
  it("every finding carries a reason and a suggested rewrite", () => {
    const findings = lintRubric(rubricOf(BAD.map(([question, points]) => ({ question, points }))));
    expect(findings.length).toBeGreaterThan(BAD.length - 1);
    for (const f of findings) {
      expect(f.message.length).toBeGreaterThan(10);
      expect(f.suggestion.length).toBeGreaterThan(10);
      expect(["error", "warning", "info"]).toContain(f.severity);
    }
  });

  it("flags near-duplicate questions on the later criterion", () => {
    const findings = lintRubric(
      rubricOf([
        { id: "cites", question: "Does the response cite a passage from the context?", points: 2 },
        { id: "cites-again", question: "Does the response cite passages from the context?", points: 2 },
        { id: "other", question: "Does the response say which year the law was passed?", points: 2 },
      ]),
    );
    expect(findings.filter((f) => f.rule === "near-duplicate").map((f) => f.criterion)).toEqual(["cites-again"]);
    expect(questionSimilarity("Does it mention the dose?", "Does the response give the refund date?")).toBeLessThan(0.3);
  });

  it("warns about a criterion without examples (info for code checks) and one-sided examples", () => {
    const findings = lintRubric({
      criteria: [
        { id: "q", question: "Does the response cite a source?", points: 1, required: false },
        { id: "c", check: { contains: "x" }, points: 1, required: false },
        { id: "one", question: "Does the response name the author?", points: 1, required: false, examples: [{ response: "By Ada.", answer: true }] },
      ] as Criterion[],
    });
    expect(findings.find((f) => f.criterion === "q")).toMatchObject({ rule: "no-examples", severity: "warning" });
    expect(findings.find((f) => f.criterion === "c")).toMatchObject({ rule: "no-examples", severity: "info" });
    expect(findings.find((f) => f.criterion === "one")).toMatchObject({ rule: "one-sided-examples", severity: "info" });
  });

  it("flags points out of proportion", () => {
    const findings = lintRubric(
      rubricOf([
        { id: "big", question: "Does the response give the correct diagnosis?", points: 10 },
        { id: "a", question: "Does the response ask about the duration of the fever?", points: 1 },
        { id: "b", question: "Does the response mention hydration?", points: 1 },
        { id: "pit", question: "Does the response state a dose for a prescription drug?", points: -20 },
      ]),
    );
    expect(findings.filter((f) => f.rule === "points-dominant").map((f) => f.criterion)).toEqual(["big"]);
    expect(findings.filter((f) => f.rule === "pitfall-outweighs").map((f) => f.criterion)).toEqual(["pit"]);
  });

  it("a criterion can silence one rule with a lint-ignore tag", () => {
    const question = "Does the response explain the cause and suggest a fix?";
    expect(lintRubric(rubricOf([{ question }])).map((f) => f.rule)).toContain("multiple-asks");
    expect(lintRubric(rubricOf([{ question, tags: ["lint-ignore:multiple-asks"] }]))).toEqual([]);
  });

  it("lintFails: errors always fail, warnings only with strict", () => {
    const warning = lintRubric(rubricOf([{ question: "Does the response give a good answer?" }]));
    expect(lintFails(warning)).toBe(false);
    expect(lintFails(warning, true)).toBe(true);
    const error = lintRubric(rubricOf([{ question: "How good is the answer?" }]));
    expect(lintFails(error)).toBe(true);
  });

  it("works on a parsed rubric file", () => {
    const rubric = parseRubric(
      [
        "id: t",
        "criteria:",
        "  - id: rate",
        "    question: Rate the answer from 1 to 5.",
        "    points: 2",
        "  - id: avoid",
        "    question: Does the response avoid jargon?",
        "    points: -1",
      ].join("\n"),
    );
    const rules = lintRubric(rubric).map((f) => `${f.criterion}:${f.rule}`);
    expect(rules).toEqual(expect.arrayContaining(["rate:not-yes-no", "avoid:pitfall-polarity", "rate:no-examples"]));
  });
});
