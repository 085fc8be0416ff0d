import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runCheck } from "../../src/checks/run.js";
import { mathEquivalent } from "../../src/checks/math/equivalent.js";
import { extractAnswer } from "../../src/checks/math/extract.js";
import { EQUIVALENT, NOT_EQUIVALENT } from "./math-cases.js";

describe("math equivalence table (MATH, GSM8K, AIME answer formats)", () => {
  it("has at least 100 cases, about half of them not equivalent", () => {
    expect(EQUIVALENT.length + NOT_EQUIVALENT.length).toBeGreaterThanOrEqual(100);
    expect(NOT_EQUIVALENT.length).toBeGreaterThanOrEqual(50);
    expect(EQUIVALENT.every((c) => c[2])).toBe(true);
    expect(NOT_EQUIVALENT.every((c) => !c[2])).toBe(true);
  });
  it.each([...EQUIVALENT, ...NOT_EQUIVALENT])("%j vs %j → %s", (reference, response, equivalent) => {
    expect(mathEquivalent(response, reference).equivalent).toBe(equivalent);
  });
});

describe("answer extraction", () => {
  it.each([
    ["so $x = \\boxed{\\frac{3}{4}}$.", "\\frac{3}{4}"],
    ["first \\boxed{1}, then \\boxed{2}", "2"],
    ["Natalia sold 72 clips.\n#### 72", "72"],
    ["Final Answer: The final answer is $28 \\%$. I hope it is correct.", "28 \\%"],
    ["**Answer:** 5 apples", "5 apples"],
    ["We get 3 and then 4 and finally 12 in total.", "12"],
  ])("%j → %j", (text, answer) => {
    expect(extractAnswer(text)).toBe(answer);
  });
  it("boxed mode finds nothing without a box; none mode takes the whole text", () => {
    expect(extractAnswer("the answer is 4", "boxed")).toBeUndefined();
    expect(extractAnswer(" 4 \n", "none")).toBe("4");
  });
});

describe("options", () => {
  it("decimal comma: auto reads 12,5 as 12.5 against one number, as a list against a list", () => {
    expect(mathEquivalent("12,5", "12.5").equivalent).toBe(true);
    expect(mathEquivalent("12,5", "5, 12").equivalent).toBe(true);
    expect(mathEquivalent("12,5", "12.5", { decimalComma: "never" }).equivalent).toBe(false);
  });
  it("tolerance widens numeric equality", () => {
    expect(mathEquivalent("3.14", "\\pi").equivalent).toBe(false);
    expect(mathEquivalent("3.14", "\\pi", { tolerance: 0.001 }).equivalent).toBe(true);
  });
  it("no answer is a distinct problem, not a crash", () => {
    expect(mathEquivalent("I don't know.", "4", { extract: "boxed" })).toMatchObject({ equivalent: false, problem: "no-answer" });
  });
});

describe("bounded work on adversarial input", () => {
  it("a comparison that would run long is cut at its time limit and counts as not equal", () => {
    const verdict = mathEquivalent("\\boxed{\\binom{100000000000}{50000000000}}", "1", { timeoutMs: 50 });
    expect(verdict).toMatchObject({ equivalent: false, problem: "timeout" });
  });
  it.each([
    ["deep parentheses", `\\boxed{${"(".repeat(5000)}1${")".repeat(5000)}}`],
    ["many unclosed boxes", "\\boxed{".repeat(10_000)],
    ["a long run of letters", "a".repeat(200_000)],
    ["many dollar signs", "$".repeat(50_000)],
    ["huge tower", "\\boxed{10^{10^{10^{10^{10}}}}}"],
    ["huge factorial", "\\boxed{99999999999999!}"],
  ])("%s: returns a verdict", (_name, response) => {
    const verdict = mathEquivalent(response, "2", { timeoutMs: 200 });
    expect(verdict.equivalent).toBe(false);
  });
  it("never throws on arbitrary text (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.constantFrom("\\frac{1}{2}", "(1,2]", "x^2", "#### 7", "\\{1,2\\}"), (response, reference) => {
        const verdict = mathEquivalent(response, reference, { timeoutMs: 100 });
        expect(typeof verdict.equivalent).toBe("boolean");
      }),
      { numRuns: 300 },
    );
  });
});

describe("the math check in a rubric", () => {
  it("reads the reference from the sample and explains its verdict", async () => {
    const check = { math: { expected: "{{answer}}" } };
    const yes = await runCheck(check, { response: "Thus $\\boxed{\\frac{\\sqrt{3}}{2}}$.", answer: "\\frac{1}{2}\\sqrt{3}" });
    expect(yes).toMatchObject({ pass: true, source: "check" });
    const no = await runCheck(check, { response: "\\boxed{2}", answer: "3" });
    expect(no.pass).toBe(false);
    expect(no.reasoning).toContain('expected "3"');
  });
  it("an empty reference is a MISSING_INPUT error, not a wrong answer", async () => {
    await expect(runCheck({ math: { expected: "{{answer}}" } }, { response: "\\boxed{1}", answer: " " })).rejects.toMatchObject({ code: "MISSING_INPUT" });
  });
  it("with tag: reads only the <answer> section", async () => {
    const check = { math: { expected: 10 }, tag: "answer" };
    expect((await runCheck(check, { response: "<think>maybe 9</think><answer>10</answer>" })).pass).toBe(true);
    const missing = await runCheck(check, { response: "10" });
    expect(missing).toMatchObject({ pass: false, reasoning: "no <answer>…</answer> in the text" });
  });
});

describe("bad configuration of the new kinds names file:line:col", () => {
  it("a misspelt kind or setting gets a did-you-mean; a bad value its range", async () => {
    const { parseRubric } = await import("../../src/rubric/load.js");
    const load = (check: string) => () => parseRubric(`id: r\ncriteria:\n  - id: c\n    check: ${check}\n`, { filename: "r.yaml" });
    expect(load("{ maths: { expected: 3 } }")).toThrow(/r\.yaml:4:\d+: unknown check kind "maths" \(did you mean "math"\?\)/);
    expect(load('{ math: { expeted: "{{answer}}" } }')).toThrow(/r\.yaml:4:\d+: unknown key "expeted" \(did you mean "expected"\?\)/);
    expect(load("{ tests: { language: ruby, tests: [x] } }")).toThrow(/r\.yaml:4:\d+: .*language.*"python"\|"javascript"\|"typescript"/);
    expect(load("{ similarity: { reference: x, min: 2 } }")).toThrow(/r\.yaml:4:\d+: .*min: Too big/);
    expect(load("{ tags: { required: [] } }")).toThrow(/r\.yaml:4:\d+: .*required/);
  });
});
