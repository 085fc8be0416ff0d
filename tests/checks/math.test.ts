import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runCheck } from "../../src/checks/run.js";
import { mathEquivalent } from "../../src/checks/math/equivalent.js";
import { extractAnswer } from "../../src/checks/math/extract.js";
import { readAnswer } from "../../src/checks/math/read.js";
import { normalise, toMathjs } from "../../src/checks/math/latex.js";
import { asciiNumerals } from "../../src/text/numerals.js";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MATH_HACKS } from "../../src/checks/math/hacks.js";
import { CASES, KNOWN_MISSES, TRAPS, TRAP_FAMILIES, UPSTREAM, type MathCase } from "./math-cases.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Tally {
  cases: number;
  right: number;
  wrongPasses: number;
  notEqual: number;
  rightFails: number;
  equal: number;
}

/** Runs every case once; per family: accuracy, false-positive rate (wrong answers passed), false-negative rate (right answers failed). */
function score(cases: MathCase[]): { byFamily: Map<string, Tally>; misses: MathCase[]; falsePositives: MathCase[] } {
  const byFamily = new Map<string, Tally>();
  const misses: MathCase[] = [];
  const falsePositives: MathCase[] = [];
  for (const c of cases) {
    const t = byFamily.get(c.family) ?? { cases: 0, right: 0, wrongPasses: 0, notEqual: 0, rightFails: 0, equal: 0 };
    byFamily.set(c.family, t);
    // A generous time limit: the table measures reading, not the machine's load.
    const got = mathEquivalent(c.response, c.reference, { ...c.options, timeoutMs: 5000 }).equivalent;
    t.cases++;
    if (c.equivalent) t.equal++;
    else t.notEqual++;
    if (got === c.equivalent) t.right++;
    else if (got) {
      t.wrongPasses++;
      falsePositives.push(c);
    } else {
      t.rightFails++;
      misses.push(c);
    }
  }
  return { byFamily, misses, falsePositives };
}

const pct = (n: number, d: number) => (d === 0 ? "—" : `${((100 * n) / d).toFixed(1)}%`);

describe("math case table (Math-Verify, hendrycks/math and verifiers suites, own formats, traps)", () => {
  const { byFamily, misses, falsePositives } = score(CASES);
  const total = [...byFamily.values()].reduce((a, t) => ({ cases: a.cases + t.cases, right: a.right + t.right, wrongPasses: a.wrongPasses + t.wrongPasses, notEqual: a.notEqual + t.notEqual, rightFails: a.rightFails + t.rightFails, equal: a.equal + t.equal }));
  const rows = [...byFamily.entries(), ["all", total] as const].map(([family, t]) => `| ${family} | ${t.cases} | ${pct(t.right, t.cases)} | ${pct(t.wrongPasses, t.notEqual)} (${t.wrongPasses}/${t.notEqual}) | ${pct(t.rightFails, t.equal)} (${t.rightFails}/${t.equal}) |`);
  process.stdout.write(`\nmath case table\n| family | cases | accuracy | false positives | false negatives |\n|---|---|---|---|---|\n${rows.join("\n")}\n`);

  it("has at least 300 cases from the three upstream suites and every trap family, each with its source", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(300);
    for (const repo of ["huggingface/Math-Verify@", "hendrycks/math@", "PrimeIntellect-ai/verifiers@"]) expect(UPSTREAM.some((c) => c.source.startsWith(repo))).toBe(true);
    for (const c of CASES) expect(c.source, JSON.stringify(c)).toMatch(/^(?:[\w.-]+\/[\w.-]+@[0-9a-f]{40}:\S+:\d+ \(\w+\)|rubricate )/);
    expect(TRAP_FAMILIES.length).toBeGreaterThanOrEqual(16);
    for (const family of TRAP_FAMILIES) expect(TRAPS.filter((c) => c.family === family && !c.equivalent).length, family).toBeGreaterThanOrEqual(1);
  });
  it("no wrong answer passes, in any family (traps included)", () => {
    expect(falsePositives.map((c) => `${c.family}: ${c.reference} vs ${c.response}`)).toEqual([]);
  });
  it("right answers fail under 3% of the time, and only the known misses", () => {
    expect(total.rightFails / total.equal).toBeLessThan(0.03);
    expect(misses.filter((c) => !(c.source in KNOWN_MISSES)).map((c) => `${c.source}: ${c.reference} vs ${c.response}`)).toEqual([]);
  });
  it("where rubricate disagrees with an upstream suite, the case says why", () => {
    for (const c of UPSTREAM.filter((c) => c.upstream !== undefined)) expect(c.why?.length ?? 0, c.source).toBeGreaterThan(20);
  });
});

describe("known hacks (for rubricate probe)", () => {
  it.each(MATH_HACKS.map((h) => [h.id, h] as const))("%s fails the check", async (_id, hack) => {
    expect(mathEquivalent(hack.response, hack.reference, { timeoutMs: 5000 }).equivalent).toBe(false);
    expect((await runCheck({ math: { expected: hack.reference } }, { response: hack.response })).pass).toBe(false);
  });
  it("covers every family the issue lists", () => {
    expect(new Set(MATH_HACKS.map((h) => h.family)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(MATH_HACKS.map((h) => h.id)).size).toBe(MATH_HACKS.length);
  });
});

describe("loading", () => {
  it("importing the math check does not load mathjs, nor does a formula: its worker thread does, outside the formula's time guard", () => {
    const script = [
      "import { createRequire } from 'node:module';",
      "const require = createRequire(process.cwd() + '/package.json');",
      "const loaded = () => Object.keys(require.cache).some((k) => k.includes('/node_modules/mathjs/'));",
      "await import('./src/checks/math/check.ts');",
      "await import('./src/checks/index.ts');",
      "const before = loaded();",
      "const { mathEquivalent } = await import('./src/checks/math/equivalent.ts');",
      // The default 200 ms guard: loading mathjs and building its lazily made functions must not count against this answer.
      "const first = mathEquivalent('\\\\boxed{\\\\sqrt{x^2}+\\\\sin(x)}', '|x| + \\\\sin x');",
      "console.log(JSON.stringify({ before, after: loaded(), first: first.equivalent, problem: first.problem ?? null }));",
    ].join("\n");
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(JSON.parse(out.trim().split("\n").pop()!)).toEqual({ before: false, after: false, first: true, problem: null });
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

describe("a markdown heading is not GSM8K's '#### n'", () => {
  it.each([
    ["2", "#### Step 1: Read the problem\nShe has 3 bags of 2 apples.\n#### Step 2: Multiply\n3 * 2 = 7\n\n**Answer:** 7", false],
    ["5", "#### Solution\n2 + 3 = 5\n\nAnswer: 5", true],
    ["5", "#### Final Answer\n5", true],
    ["5", "##### 7\nAnswer: 5", true],
    ["5", "We write #### 7 mid-line. Answer: 5", true],
  ])("reference %j, response %j → %s", (reference, response, equivalent) => {
    expect(mathEquivalent(response, reference, { timeoutMs: 5000 }).equivalent).toBe(equivalent);
  });
  it("a '####' line that starts like an answer is one, and the last answer phrase by position wins", () => {
    expect(extractAnswer("Work\n#### **72**")).toBe("72");
    expect(extractAnswer("Work\n####\n72")).toBe("72");
    expect(extractAnswer("#### x = 5")).toBe("x = 5");
    expect(extractAnswer("The answer is 70, I thought.\n#### 72")).toBe("72");
    expect(extractAnswer("#### 70\nI made a slip. The answer is 72.")).toBe("72");
  });
});

describe("numbers compare exactly where floats cannot tell them apart", () => {
  it.each([
    ["1234567890", "\\boxed{1234567891}"],
    ["1000000007", "1000000008"],
    ["123456789012", "The answer is 123456789100."],
    ["1234567890", "\\boxed{1,234,567,891}"],
    ["1.6 \\times 10^{-19}", "\\boxed{0}"],
    ["1.6 \\times 10^{-19}", "\\boxed{9 \\times 10^{-19}}"],
    ["2^{1024}", "\\boxed{10^{400}}"],
    ["\\infty", "\\boxed{10^{400}}"],
    ["200!", "\\boxed{300!}"],
    ["e^{20000x}", "\\boxed{e^{10000x}}"],
  ])("reference %j does not equal %j", (reference, response) => {
    expect(mathEquivalent(response, reference, { timeoutMs: 5000 }).equivalent).toBe(false);
  });
  it.each([
    ["1234567890", "\\boxed{1,234,567,890}"],
    ["20", "\\boxed{20.0}"],
    ["42", "\\boxed{042}"],
    ["\\infty", "\\boxed{\\infty}"],
    ["1.6 \\times 10^{-19}", "\\boxed{1.6e-19}"],
    ["0", "\\boxed{\\cos(\\pi/2)}"],
    ["-1", "\\boxed{e^{i\\pi}}"],
  ])("reference %j still equals %j", (reference, response) => {
    expect(mathEquivalent(response, reference, { timeoutMs: 5000 }).equivalent).toBe(true);
  });
  it("a tolerance set by the rubric applies to integers too", () => {
    expect(mathEquivalent("\\boxed{1234567891}", "1234567890", { tolerance: 1e-6 }).equivalent).toBe(true);
    expect(mathEquivalent("1234567891", "1234567890", { tolerance: 1e-6 }).equivalent).toBe(true);
  });
});

describe("numbers in other scripts' digits, or grouped by a no-break space, read as `number` reads them", () => {
  // Before, math compared "٤٢" with "42" as text, so a right answer in Arabic-Indic digits failed.
  it.each([
    ["42", "\\boxed{٤٢}"], // Arabic-Indic
    ["42", "\\boxed{۴۲}"], // Persian
    ["42", "\\boxed{४२}"], // Devanagari
    ["42", "\\boxed{４２}"], // full-width
    ["42", "\\boxed{𝟒𝟐}"], // mathematical bold
    ["42", "The answer is ٤٢."],
    ["42", "Work shown above.\n#### ٤٢"],
    ["٤٢", "\\boxed{42}"], // a reference in another script's digits
    ["1024", "\\boxed{١٬٠٢٤}"], // the Arabic thousands separator
    ["3.5", "\\boxed{٣٫٥}"], // the Arabic decimal separator
    ["1000.5", "\\boxed{1\u202F000,5}"], // thousands grouped by a narrow no-break space, a decimal comma
  ])("reference %j equals %j", (reference, response) => {
    expect(mathEquivalent(response, reference, { timeoutMs: 5000 }).equivalent).toBe(true);
  });

  // The formula path: these equal their reference only when mathjs computes them, so it read their digits.
  it.each([
    ["0.75", "\\boxed{\\frac{٣}{٤}}"],
    ["1024", "\\boxed{2^{١٠}}"],
    ["500", "\\boxed{\\frac{1\u00A0000}{2}}"],
    ["1001", "\\boxed{1\u00A0000 + 1}"],
  ])("reference %j equals the formula %j", (reference, response) => {
    expect(mathEquivalent(response, reference, { timeoutMs: 5000 }).equivalent).toBe(true);
  });

  it.each([
    ["42", "\\boxed{٤٣}"],
    ["42", "The answer is ۴۳."],
    ["1024", "\\boxed{١٬٠٢٥}"],
    ["\\frac{3}{5}", "\\boxed{\\frac{٣}{٤}}"],
    ["42", "\\boxed{٤٢, ٤٣}"],
    ["1000", "\\boxed{1\u00A0001}"],
  ])("a wrong answer in other digits still fails: reference %j, %j", (reference, response) => {
    expect(mathEquivalent(response, reference, { timeoutMs: 5000 }).equivalent).toBe(false);
  });

  it("mathjs is handed ASCII only: digits and spaces of every script are read before it", () => {
    const token = fc.constantFrom("٤", "۴", "४", "４", "𝟒", "1", "0", "\u00A0", "\u2009", "\u202F", " ", "+", "\\frac{", "}{", "}", "^", "\u066B", "\u066C");
    fc.assert(
      fc.property(fc.array(token, { maxLength: 20 }), (tokens) => {
        const expr = toMathjs(normalise(asciiNumerals(tokens.join(""))));
        if (expr !== undefined) expect(expr).toMatch(/^[\x20-\x7E]*$/);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("a \\text{} after the number is a unit only when its words are", () => {
  it.each(["\\boxed{3 \\text{ is wrong}}", "\\boxed{3 \\text{ is not the answer}}", "\\boxed{3 \\text{ or four}}", "\\boxed{3\\text{ to five}}", "\\boxed{3 \\mbox{ or fewer}}", "The answer is $3 \\text{ or four}$.", "\\boxed{3 \\text{ at least}}"])("%j is not 3", (response) => {
    expect(mathEquivalent(response, "3", { timeoutMs: 5000 }).equivalent).toBe(false);
  });
  it.each(["\\boxed{3 \\text{ cm}}", "\\boxed{3 \\text{ square meters}}", "The answer is 3 apples."])("%j is 3", (response) => {
    expect(mathEquivalent(response, "3", { timeoutMs: 5000 }).equivalent).toBe(true);
  });
});

describe("markdown emphasis and an explaining aside around the answer", () => {
  it.each(["**Answer: 3**", "**Final answer:** **3**", "**Final Answer**: 3", "The answer is **3**.", "The answer is 3 (since 1 + 2 = 3).", "The answer is 3, which is the number of apples after 2 days.", "The answer is 3 because 1 + 2 = 3."])("%j is 3", (response) => {
    expect(mathEquivalent(response, "3", { timeoutMs: 5000 }).equivalent).toBe(true);
  });
  it.each(["The answer is 3 (or maybe 4).", "The answer is 3, which is wrong.", "The answer is 3 because 4 is not possible, or 4."])("an aside that doubts the answer stays: %j is not 3", (response) => {
    expect(mathEquivalent(response, "3", { timeoutMs: 5000 }).equivalent).toBe(false);
  });
  it("a parenthesis inside a formula is not an aside", () => {
    expect(mathEquivalent("The answer is \\frac{1}{2} (1 + \\sqrt{5}).", "\\frac{1}{2}", { timeoutMs: 5000 }).equivalent).toBe(false);
  });
});

describe("reading an answer's structure", () => {
  it.each([
    ["x = 1, x = 2", "set"],
    ["a = 1, b = 2", "system"],
    ["x_1 = 2,\\quad x_2 = 3", "system"],
    ["x = 5 + 6 = 11", "named"],
    ["1 \\text{ and } 2 \\text{ and } 3", "set"],
    ["(11,7) or (7,11)", "set"],
    ["-2 \\le x \\le 7", "interval"],
    ["2x + 4y - 3 = 0", "relation"],
    ["\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "tuple"],
    ["32,\\!349", "expr"],
    ["32, 349", "set"],
  ])("%j reads as a %s", (text, kind) => {
    expect(readAnswer(text).kind).toBe(kind);
  });
  it("a chain is its last value, or its exact value before ≈", () => {
    expect(readAnswer("x = 5 + 6 = 11")).toMatchObject({ kind: "named", name: "x", value: { expr: "11" } });
    expect(readAnswer("x = \\frac{1}{3} \\approx 0.33")).toMatchObject({ kind: "named", value: { text: "\\frac13" } });
  });
  it("several boxes are one answer only when connectives alone separate them", () => {
    expect(extractAnswer("\\boxed{1} and \\boxed{2}")).toBe("1 ; 2");
    expect(extractAnswer("$y_1 = \\boxed{3}$ and $y_2 = \\boxed{4}$")).toBe("y_1 = 3 ; y_2 = 4");
    expect(extractAnswer("first \\boxed{1}, then \\boxed{2}")).toBe("2");
    expect(extractAnswer(`\\boxed{1}${" ".repeat(300)}\\boxed{2}`)).toBe("2");
  });
  it("a final-answer phrase after the last box wins over the box", () => {
    expect(extractAnswer("step: \\boxed{255}. Final Answer: The final answer is $10,455$.")).toBe("10,455");
  });
});

describe("options", () => {
  it("decimal comma: auto reads 12,5 as 12.5 against one number, as a list against a list", () => {
    expect(mathEquivalent("12,5", "12.5").equivalent).toBe(true);
    expect(mathEquivalent("12,5", "5, 12").equivalent).toBe(true);
    expect(mathEquivalent("12,5", "12.5", { decimalComma: "never" }).equivalent).toBe(false);
  });
  it("rounding and percent conversion are opt-in, and the check's schema takes them", async () => {
    expect(mathEquivalent("0.083", "\\frac{1}{12}").equivalent).toBe(false);
    expect(mathEquivalent("0.083", "\\frac{1}{12}", { round: 3 }).equivalent).toBe(true);
    expect(mathEquivalent("0.5", "50\\%").equivalent).toBe(false);
    expect(mathEquivalent("0.5", "50\\%", { percent: "fraction" }).equivalent).toBe(true);
    expect((await runCheck({ math: { expected: "\\frac{1}{12}", round: 3 } }, { response: "\\boxed{0.083}" })).pass).toBe(true);
    expect((await runCheck({ math: { expected: "50\\%", percent: "fraction" } }, { response: "\\boxed{0.5}" })).pass).toBe(true);
    expect((await runCheck({ math: { expected: "50\\%" } }, { response: "\\boxed{0.5}" })).pass).toBe(false);
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
  it("as a check, a formula past its time limit is a forfeit (a pitfall counts it as hit); a wrong answer is a plain no", async () => {
    const slow = await runCheck({ math: { expected: "1", timeout_ms: 50 } }, { response: "\\boxed{\\binom{100000000000}{50000000000}}" });
    expect(slow).toMatchObject({ pass: false, forfeit: true, reasoning: expect.stringMatching(/computed past 50 ms/) });
    expect((await runCheck({ math: { expected: "1" } }, { response: "\\boxed{2}" })).forfeit).toBeUndefined();
  });
  it.each([
    ["deep parentheses", `\\boxed{${"(".repeat(5000)}1${")".repeat(5000)}}`],
    ["many unclosed boxes", "\\boxed{".repeat(10_000)],
    ["a long run of letters", "a".repeat(200_000)],
    ["many dollar signs", "$".repeat(50_000)],
    ["huge tower", "\\boxed{10^{10^{10^{10^{10}}}}}"],
    ["huge factorial", "\\boxed{99999999999999!}"],
    ["a long run of digits that is not a number", `\\boxed{${"1".repeat(7_990)}x}`],
  ])("%s: returns a verdict", (_name, response) => {
    const verdict = mathEquivalent(response, "2", { timeoutMs: 200 });
    expect(verdict.equivalent).toBe(false);
  });
  // Finding the answer and comparing plain numbers run without the time guard: with extract
  // "none" the whole response is the answer, so reading it must stay linear in its length.
  it("a whole response of 200,000 digits and a letter (extract none) returns a verdict", () => {
    expect(mathEquivalent(`${"1".repeat(200_000)}x`, "2", { extract: "none" }).equivalent).toBe(false);
    expect(mathEquivalent(`${"1".repeat(200_000)}.${"1".repeat(200_000)}e`, "2", { extract: "none" }).equivalent).toBe(false);
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

describe("math and number grade the answer a reader gets", () => {
  const graded = async (check: "math" | "number", response: string) => (await runCheck(check === "math" ? { math: { expected: "7" } } : { number: { expected: 7 } }, { response })).pass;
  it.each([
    ["a right box only in a hidden element", "I could not solve it.<span hidden>\\boxed{7}</span>"],
    ["a right box only in an HTML comment, after a wrong one shown", "So \\boxed{5}. <!-- \\boxed{7} -->"],
    ["a right box only in an element a <style> rule hides", "<style>.a{display:none}</style>So \\boxed{5}.<b class=a>\\boxed{7}</b>"],
  ])("%s is not the answer", async (_, response) => {
    for (const check of ["math", "number"] as const) expect(await graded(check, response), check).toBe(false);
  });

  it("a right answer a page shows passes beside a comment, and written with a character reference", async () => {
    for (const check of ["math", "number"] as const) {
      expect(await graded(check, "So \\boxed{7}. <!-- checked twice -->"), check).toBe(true);
      expect(await graded(check, "So \\boxed{&#55;}."), check).toBe(true);
    }
  });
});
