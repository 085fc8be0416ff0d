import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RubricateError } from "../../src/errors.js";
import { ATTACK_CATEGORIES, attackJsonSchema, builtinAttacks, loadAttacks, mergeAttacks, parseAttacks } from "../../src/probe/attacks.js";
import { attackVars, keywordsOf, probeFields, questionToClaim, wrongAnswer } from "../../src/probe/vars.js";
import { parseRubric } from "../../src/rubric/load.js";
import { renderTemplate } from "../../src/text/template.js";
import { tempDir } from "../helpers/cli.js";

describe("the packaged battery", () => {
  const attacks = builtinAttacks();

  it("covers every attack the issue lists, each deserving zero except the controls", () => {
    const categories = new Set(attacks.map((a) => a.category));
    for (const c of ["empty", "restate", "keywords", "wrong", "padding", "claim", "injection", "delimiter", "rubric-echo", "format", "language", "control"]) expect(categories).toContain(c);
    expect(attacks.filter((a) => !a.deserves_zero).map((a) => a.category).sort()).toEqual(["control", "language"]);
    expect(new Set(attacks.map((a) => a.id)).size).toBe(attacks.length);
    // The three format tricks: JSON, markdown headings, a code block.
    expect(attacks.filter((a) => a.category === "format").map((a) => a.id).sort()).toEqual(["format-code-block", "format-json", "format-markdown"]);
  });

  it("fills every template with the variables a sample provides", () => {
    const rubric = parseRubric("id: r\ninputs: [question, answer, response]\ncriteria:\n  - id: c\n    question: Does the response explain why {{answer}} is right?\n    points: 2\n");
    const vars = attackVars(rubric, { question: "What is 6 times 7?", answer: "6 times 7 is 42", response: "42" }, probeFields(rubric));
    for (const a of attacks) expect(() => renderTemplate(a.template, vars)).not.toThrow();
    expect(vars.wrong_answer).toBe("7 times 8 is 43");
    expect(vars.criteria_questions).toBe("1. Does the response explain why 6 times 7 is 42 is right?");
    expect(vars.criteria_claims).toBe("The response does explain why 6 times 7 is 42 is right.");
    expect(vars.keywords.split(" ").sort()).toEqual(["42", "6", "7", "times"]);
    expect(vars.filler.split(/\s+/).length).toBeGreaterThan(1000);
    expect(JSON.parse(renderTemplate(attacks.find((a) => a.id === "format-json")!.template, vars)).answer).toBe("7 times 8 is 43");
  });
});

describe("attack files", () => {
  it("parses a user's file and rejects a bad one with file:line:col", () => {
    const ok = parseAttacks("attacks:\n  - id: mine\n    category: claim\n    description: d\n    deserves_zero: true\n    template: 'Graded A+'\n");
    expect(ok[0]).toMatchObject({ id: "mine", template: "Graded A+" });
    let error: RubricateError | undefined;
    try {
      parseAttacks("attacks:\n  - id: mine\n    category: nonsense\n    description: d\n    deserves_zero: true\n    templat: x\n", { filename: "extra.yaml" });
    } catch (e) {
      error = e as RubricateError;
    }
    expect(error?.code).toBe("SCHEMA");
    expect(error?.message).toMatch(/extra\.yaml:\d+:\d+/);
    expect(error?.message).toMatch(/templat/);
    expect(error?.message).toMatch(/did you mean "template"/);
    expect(ATTACK_CATEGORIES).not.toContain("nonsense");
  });

  it("loads a folder in name order and refuses an id that repeats a packaged one", () => {
    const dir = join(tempDir(), "attacks");
    mkdirSync(dir);
    writeFileSync(join(dir, "b.yaml"), "attacks:\n  - { id: b1, category: claim, description: d, deserves_zero: true, template: b }\n");
    writeFileSync(join(dir, "a.yaml"), "attacks:\n  - { id: a1, category: claim, description: d, deserves_zero: true, template: a }\n");
    expect(loadAttacks(dir).map((a) => a.id)).toEqual(["a1", "b1"]);
    const dup = parseAttacks("attacks:\n  - { id: empty, category: empty, description: d, deserves_zero: true, template: '' }\n");
    expect(() => mergeAttacks(builtinAttacks(), dup)).toThrow(/attack id "empty" appears twice/);
    expect(() => loadAttacks(join(dir, "missing.yaml"))).toThrow(/no attack file/);
  });
});

describe("template variables", () => {
  it("turns questions into claims of compliance", () => {
    expect(questionToClaim("Does the response show the steps?")).toBe("The response does show the steps.");
    expect(questionToClaim("Is the answer under 50 words?")).toBe("The answer is under 50 words.");
    expect(questionToClaim("Would a clinician agree?")).toBe("Yes: Would a clinician agree.");
  });

  it("makes wrong answers that look right", () => {
    expect(wrongAnswer("7", [])).toBe("8");
    expect(wrongAnswer("x = -2.5", [])).toBe("x = -1.5");
    expect(wrongAnswer("Paris", ["Paris", "Tokyo"])).toBe("Tokyo");
    expect(wrongAnswer("Paris", [])).toMatch(/42/);
  });

  it("keeps content words and numbers", () => {
    expect(keywordsOf("The capital of France is Paris, since 1944.")).toEqual(["capital", "france", "paris", "since", "1944"]);
  });

  it("guesses question and reference fields from the rubric's inputs, explicit names win", () => {
    const rubric = parseRubric("id: r\ninputs: [problem, response, answer]\ncriteria:\n  - { id: c, question: Q? }\n");
    expect(probeFields(rubric)).toEqual({ response: "response", question: "problem", reference: "answer" });
    expect(probeFields(rubric, { reference: "problem", question: "answer" })).toEqual({ response: "response", question: "answer", reference: "problem" });
  });
});

describe("the attack file JSON Schema", () => {
  it("is generated from the zod schema and lists the categories", () => {
    const schema = attackJsonSchema() as { properties: { attacks: { items: { required: string[]; properties: { category: { enum: string[] } } } } } };
    expect(schema.properties.attacks.items.required).toEqual(expect.arrayContaining(["id", "category", "description", "deserves_zero", "template"]));
    expect(schema.properties.attacks.items.properties.category.enum).toEqual([...ATTACK_CATEGORIES]);
  });
});
