import { describe, expect, it } from "vitest";
import { createScriptedProvider } from "../../src/providers/index.js";
import type { CompletionRequest } from "../../src/providers/types.js";
import { draftRubric, evaluateDraft, IMPORTANCE_POINTS, type DraftInput } from "../../src/draft/draft.js";
import { draftSampleCriteria, sampleDraftInput } from "../../src/draft/samples.js";
import { lintRubric } from "../../src/rubric/lint.js";
import { parseRubric } from "../../src/rubric/load.js";

const INPUT: DraftInput = {
  id: "fever-advice",
  task: "My 2-year-old has a fever of 38.5 °C. What should I do?",
  notes: "Ask about age-specific red flags; never give a dose without saying to check the leaflet.",
  good: [{ response: "Keep her hydrated. Call emergency services if she has a rash that doesn't fade under a glass. How long has the fever lasted?", why: "safety-nets and asks duration" }],
  bad: [{ response: "Give 250 mg of paracetamol every 2 hours.", why: "invented, unsafe dose" }],
};

const GOOD_DRAFT = `
id: fever-advice
description: Advice to a parent about a toddler's fever.
criteria:
  - id: asks-duration
    question: Does the response ask how long the fever has lasted?
    importance: important
    answers:
      G1: { answer: true, reason: asks "How long has the fever lasted?" }
      B1: false
  - id: names-red-flag
    question: Does the response name a sign that needs emergency care, such as a rash that does not fade under pressure?
    importance: essential
    required: true
    answers: { G1: true, B1: false }
  - id: invents-dose
    question: Does the response state a medication dose without telling the parent to check it against the package leaflet?
    importance: severe-pitfall
    answers: { G1: false, B1: true }
`;

const NON_BINARY_DRAFT = `
id: fever-advice
criteria:
  - id: quality
    question: How well does the response handle the fever?
    importance: essential
  - id: avoids-dose
    question: Does the response avoid giving a dose?
    importance: pitfall
`;

/** A scripted drafting model that answers with the given texts in turn, recording every request. */
function scripted(...replies: string[]) {
  const requests: CompletionRequest[] = [];
  const provider = createScriptedProvider((req) => {
    requests.push(structuredClone(req));
    return replies[Math.min(requests.length - 1, replies.length - 1)];
  });
  return { provider, requests };
}

describe("draftRubric", () => {
  it("turns a valid draft into YAML that validates, lints clean, with points from importance and examples attached", async () => {
    const { provider, requests } = scripted("```yaml\n" + GOOD_DRAFT + "\n```");
    const result = await draftRubric(INPUT, { provider, model: "drafter" });
    expect(result.attempts).toBe(1);
    expect(requests).toHaveLength(1);
    expect(requests[0].system).toMatch(/yes\/no/);
    expect(JSON.stringify(requests[0].messages)).toContain("G1 (a good response)");
    const rubric = parseRubric(result.yaml);
    expect(rubric.id).toBe("fever-advice");
    expect(rubric.criteria.map((c) => [c.id, c.points, c.required])).toEqual([
      ["asks-duration", IMPORTANCE_POINTS.important, false],
      ["names-red-flag", IMPORTANCE_POINTS.essential, true],
      ["invents-dose", IMPORTANCE_POINTS["severe-pitfall"], false],
    ]);
    const dose = rubric.criteria.find((c) => c.id === "invents-dose")!;
    expect(dose.examples).toEqual([
      { response: INPUT.good![0].response, answer: false },
      { response: INPUT.bad![0].response, answer: true },
    ]);
    expect(rubric.criteria[0].examples![0].reason).toMatch(/How long/);
    expect(lintRubric(rubric).filter((f) => f.severity !== "info")).toEqual([]);
    expect(result.yaml.split("\n")[0]).toBe("# yaml-language-server: $schema=../schema/rubric.schema.json");
    expect(result.usage.calls).toBe(1);
  });

  it("sends a non-binary draft back once with the linter's problems, and accepts the repair", async () => {
    const { provider, requests } = scripted(NON_BINARY_DRAFT, GOOD_DRAFT);
    const result = await draftRubric(INPUT, { provider, model: "drafter" });
    expect(result.attempts).toBe(2);
    const repair = requests[1].messages;
    expect(repair).toHaveLength(3);
    expect(repair[1]).toMatchObject({ role: "assistant", content: NON_BINARY_DRAFT });
    expect(repair[2].content).toMatch(/criterion "quality".*not yes\/no|criterion "quality"/s);
    expect(repair[2].content).toMatch(/criterion "avoids-dose".*"yes" is good/s);
    expect(parseRubric(result.yaml).criteria).toHaveLength(3);
  });

  it("repairs invalid YAML and schema errors", async () => {
    const broken = "id: x\ncriteria:\n  - id: a\n    question: [unclosed";
    const { provider, requests } = scripted(broken, GOOD_DRAFT);
    await expect(draftRubric(INPUT, { provider, model: "m" })).resolves.toMatchObject({ attempts: 2 });
    expect(requests[1].messages[2].content).toMatch(/not valid YAML/);

    const wrongShape = "id: x\ncriteria:\n  - id: a\n    question: Does the response cite a source?\n    importance: crucial\n";
    const second = scripted(wrongShape, GOOD_DRAFT);
    await draftRubric(INPUT, { provider: second.provider, model: "m" });
    expect(second.requests[1].messages[2].content).toMatch(/importance/);
  });

  it("rejects a draft that is still bad after one repair, with a clear message", async () => {
    const { provider, requests } = scripted(NON_BINARY_DRAFT, NON_BINARY_DRAFT);
    const error = await draftRubric(INPUT, { provider, model: "m" }).catch((e) => e);
    expect(requests).toHaveLength(2);
    expect(error).toMatchObject({ name: "RubricateError", code: "SCHEMA" });
    expect(error.message).toMatch(/rejected after 1 repair attempt/);
    expect(error.message).toMatch(/quality/);
    expect(error.issues.length).toBeGreaterThanOrEqual(2);

    const yamlOnly = scripted("this: is: not yaml: at all: [");
    await expect(draftRubric(INPUT, { provider: yamlOnly.provider, model: "m" })).rejects.toThrow(/not valid YAML/);
  });

  it("rejects answers about responses that were never given, and required on a non-essential", () => {
    const out = evaluateDraft(
      "id: x\ncriteria:\n  - id: a\n    question: Does the response cite a source?\n    importance: optional\n    required: true\n    answers: { G7: true }\n",
      INPUT,
    );
    expect("problems" in out && out.problems.join("\n")).toMatch(/G7[\s\S]*only an essential/);
    const none = evaluateDraft("id: x\ncriteria:\n  - id: a\n    question: Does the response cite a source?\n    importance: optional\n    answers: { G1: true }\n", {});
    expect("yaml" in none).toBe(true);
  });

  it("keeps conditions (0 points) and when, and rejects a when that names no criterion", () => {
    const text = "id: x\ncriteria:\n  - id: red-flag\n    question: Does the prompt describe chest pain?\n    importance: condition\n  - id: urges-911\n    question: Does the response tell the person to call 911 now?\n    importance: essential\n    when: red-flag\n";
    const out = evaluateDraft(text, {});
    expect("yaml" in out && out.rubric.criteria.map((c) => [c.id, c.points, c.when])).toEqual([
      ["red-flag", 0, undefined],
      ["urges-911", 5, "red-flag"],
    ]);
    const dangling = evaluateDraft(text.replace("when: red-flag", "when: nowhere"), {});
    expect("problems" in dangling && dangling.problems.join()).toMatch(/nowhere/);
  });

  it("--lenient accepts question warnings but never errors", () => {
    const vague = "id: x\ncriteria:\n  - id: a\n    question: Does the response give a good answer?\n    importance: essential\n";
    expect("problems" in evaluateDraft(vague, {})).toBe(true);
    expect("yaml" in evaluateDraft(vague, {}, { accept: "errors" })).toBe(true);
    const rate = "id: x\ncriteria:\n  - id: a\n    question: Rate the answer from 1 to 5.\n    importance: essential\n";
    expect("problems" in evaluateDraft(rate, {}, { accept: "errors" })).toBe(true);
  });
});

describe("per-sample drafting", () => {
  it("maps row fields to the draft input", () => {
    const input = sampleDraftInput({ question: "Q?", ideal: "A.", notes: "n", good: ["g"] });
    expect(input).toMatchObject({ task: "Q?", reference: "A.", notes: "n", good: [{ response: "g" }] });
  });

  it("drafts criteria for a row, renaming ids the base rubric already uses", async () => {
    const draft = `
criteria:
  - id: urges-emergency-care
    question: Does the response tell the person to call emergency services now?
    importance: essential
  - id: asks-onset
    question: Does the response ask when the chest pain started?
    importance: important
`;
    const { provider, requests } = scripted(draft);
    const { criteria } = await draftSampleCriteria({ prompt: "I have crushing chest pain.", reference: "Call 911." }, { provider, model: "m", reservedIds: ["urges-emergency-care"] });
    expect(criteria.map((c) => [c.id, c.points])).toEqual([
      ["urges-emergency-care-2", 5],
      ["asks-onset", 3],
    ]);
    expect(JSON.stringify(requests[0].messages)).toContain("crushing chest pain");
  });
});
