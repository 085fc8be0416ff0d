/**
 * The `math` check's case table: what a right answer looks like and what a policy might try.
 *
 * - UPSTREAM (math-cases.upstream.json): the equivalence cases of the public test suites of
 *   huggingface/Math-Verify (tests/*.py), hendrycks/math (modeling/math_equivalence_test.py) and
 *   PrimeIntellect-ai/verifiers (tests/test_math_rubric.py), taken as data: reference, response,
 *   expected outcome, source file and line. Where rubricate deliberately disagrees, `upstream`
 *   keeps their outcome and `why` says why.
 * - OWN: MATH / GSM8K / AIME answer formats (the table this check started with).
 * - TRAPS: near misses in every family issue 28 lists (several answers vs one, chains, systems,
 *   and/or/; lists, several boxes, rounding, percent vs fraction, decimal comma, `32,\!349`,
 *   Unicode minus, intervals vs inequalities, scaled equations, units and text in the reference,
 *   matrices, `\quad` multi-part references, "Final Answer: The largest $n$ is 34"): the wrong
 *   answers must fail, the right ones pass.
 */
import { readFileSync } from "node:fs";
import type { MathOptions } from "../../src/checks/math/equivalent.js";

export interface MathCase {
  family: string;
  /** Where the case comes from: repository@commit:file:line (test), or rubricate's own. */
  source: string;
  reference: string;
  response: string;
  equivalent: boolean;
  /** Check options the case runs with (the opt-in rounding and percent cases). */
  options?: MathOptions;
  /** The upstream suite's outcome, where rubricate's differs. */
  upstream?: boolean;
  why?: string;
}

export const UPSTREAM: MathCase[] = JSON.parse(readFileSync(new URL("./math-cases.upstream.json", import.meta.url), "utf8"));

/** The cases the check is known to get wrong (false negatives), by source, and why. Reported, and a new miss fails the test. */
export const KNOWN_MISSES: Record<string, string> = {
  "huggingface/Math-Verify@5d148cfaaf99214c2e4ffb4bc497ab042c592a7a:tests/test_all.py:506 (test_matrix_extraction)": "matrix arithmetic in the answer (A + B) is not evaluated",
  "huggingface/Math-Verify@5d148cfaaf99214c2e4ffb4bc497ab042c592a7a:tests/test_all.py:512 (test_matrix_extraction)": "matrix products in the answer are not evaluated",
  "huggingface/Math-Verify@5d148cfaaf99214c2e4ffb4bc497ab042c592a7a:tests/test_all.py:754 (test_math_extraction_additional_cases)": "bare braces {1,3} read as a set, which a tuple (1,3) is not",
  "huggingface/Math-Verify@5d148cfaaf99214c2e4ffb4bc497ab042c592a7a:tests/test_numina_cases.py:24 (test_numina_cases)": "1 <= |z| <= 3/2 (an absolute value in an inequality) is not solved into intervals",
  "huggingface/Math-Verify@5d148cfaaf99214c2e4ffb4bc497ab042c592a7a:tests/test_yujianll.py:20 (test_string_extraction)": "\\sum is not read; the two sums differ only in the order of a product",
};

type Triple = [reference: string, response: string, equivalent: boolean];
const OWN_SOURCE = "rubricate tests/checks/math-cases.ts (own MATH/GSM8K/AIME formats)";
const TRAP_SOURCE = "rubricate tests/checks/math-cases.ts (own trap, issue 28)";

const OWN_EQUIVALENT: Triple[] = [
  // MATH: fractions, radicals, π, exponents
  ["\\frac{3}{4}", "The answer is $\\boxed{\\dfrac{3}{4}}$.", true],
  ["\\frac{3}{4}", "0.75", true],
  ["\\frac{14}{3}", "$=2+\\frac{5}{3}+1=\\boxed{\\frac{14}{3}}$", true],
  ["3\\sqrt{13}", "\\sqrt{117} = \\boxed{3\\sqrt{13}}", true],
  ["3\\sqrt{13}", "\\boxed{\\sqrt{117}}", true],
  ["\\frac{\\sqrt{3}}{2}", "\\boxed{\\frac{1}{2}\\sqrt{3}}", true],
  ["\\frac{9}{4}\\pi", "Therefore $\\boxed{\\frac94\\pi}$.", true],
  ["2\\pi", "\\boxed{2 \\pi}", true],
  ["\\sqrt{2}+\\sqrt{5}", "The answer is $\\boxed{\\sqrt 5+\\sqrt 2}$", true],
  ["\\frac{1}{\\sqrt{2}}", "\\boxed{\\frac{\\sqrt{2}}{2}}", true],
  ["\\sqrt[3]{8}", "2", true],
  ["2^{10}", "1024", true],
  ["-\\frac{10}{9}", "-10/9", true],
  ["10/9", "\\frac{10}{9}", true],
  ["\\frac{1}{2}", "$\\tfrac12$", true],
  ["\\frac{1}{3}", "\\cfrac{1}{3}", true],
  ["0.5", ".5", true],
  ["\\binom{10}{3}", "120", true],
  ["5!", "120", true],
  ["e^{2}", "\\exp(2)", true],
  ["3+4i", "\\boxed{4i+3}", true],
  // scientific notation
  ["1.5 \\times 10^{3}", "1500", true],
  ["6.02 \\times 10^{23}", "6.02e23", true],
  // tuples, sets, intervals (order matters for tuples, not for sets)
  ["(3, \\frac{\\pi}{2})", "the polar coordinates are $\\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}.$", true],
  ["(6,31,-1)", "we find $(p,q,r) = \\boxed{(6,31,-1)}.$", true],
  ["-2,1", "the only integer roots are $\\boxed{1, -2}.$", true],
  ["\\{1\\pm\\sqrt{5},-2\\}", "\\boxed{\\{-2, 1+\\sqrt5, 1-\\sqrt5\\}}", true],
  ["1 \\pm \\sqrt{19}", "\\boxed{1+\\sqrt{19}, 1-\\sqrt{19}}", true],
  ["[-1, -\\frac{1}{2}) \\cup (-\\frac{1}{2}, 0) \\cup (0, 1) \\cup (1, \\infty)", "The solution set is $\\boxed{[-1, -\\tfrac12) \\cup (-\\tfrac12, 0) \\cup (0, 1) \\cup (1, \\infty)}.$", true],
  ["(1, \\infty)", "\\boxed{(1,\\infty)}", true],
  ["[0,1)", "$[0,1)$", true],
  ["\\{1,2,3\\}", "\\{3, 1, 2\\}", true],
  ["[2,5]", "so $x \\in [2, 5]$", true],
  ["C", "The answer is $\\boxed{\\text{(C)}}$.", true],
  ["\\begin{pmatrix} 0 & 3 \\\\ 0 & -1 \\end{pmatrix}", "\\boxed{\\begin{pmatrix}0&3\\\\0&-1\\end{pmatrix}}", true],
  ["\\begin{pmatrix} 3 \\\\ 2 \\\\ -6 \\end{pmatrix}", "\\boxed{\\begin{bmatrix} 3 \\\\ 2 \\\\ -6 \\end{bmatrix}}", true],
  // expressions with variables
  ["x^2+2x+1", "\\boxed{(x+1)^2}", true],
  ["2 \\sin b \\cos a", "\\boxed{2\\cos a \\sin b}", true],
  ["\\frac{\\pi r}{h+r}", "The answer is $\\boxed{\\frac{r\\pi}{r+h}}$.", true],
  ["2-2p", "Thus $x-p=\\boxed{2-2p}$.", true],
  ["\\sin^2 x + \\cos^2 x", "1", true],
  // equations and inequalities
  ["x = 3", "3", true],
  ["3", "\\boxed{x = 3}", true],
  ["\\frac{1}{3}", "$k = \\frac{1}{3}$", true],
  ["11", "$x = 5+5+1 = 7 =11$", true],
  ["y = 2x + 3", "\\boxed{y=3+2x}", true],
  ["x \\geq 5", "Therefore $5 \\leq x$.", true],
  ["x > 5", "x \\gt 5", true],
  // units, degrees, percentages, currency
  ["90^\\circ", "the angle is $\\boxed{90^\\circ}$", true],
  ["90", "\\boxed{90^{\\circ}}", true],
  ["15\\mbox{ cm}^2", "\\boxed{15}", true],
  ["125", "The distance is $\\boxed{125\\textnormal{ miles}}.$", true],
  ["28\\%", "\\boxed{28}", true],
  ["28\\%", "28 percent", true],
  ["\\text{Evelyn}", "Therefore, $\\boxed{\\text{Evelyn}}$ is our answer.", true],
  // GSM8K: the reference is a worked solution ending in "#### n"
  ["Natalia sold 48/2 = 24 clips in May.\nNatalia sold 48+24 = 72 clips altogether.\n#### 72", "She sold 48 + 24 = 72 clips.\n#### 72", true],
  ["#### 1000", "So the total is 1,000 dollars. The answer is 1,000.", true],
  ["#### 18", "Janet sells 16 - 3 - 4 = 9 eggs a day, so she makes 9 * 2 = $18 every day.", true],
  ["#### 7425000", "The answer is 7,425,000", true],
  ["#### 1000", "Answer: 1 000", true],
  ["#### 20", "The answer is 20.0", true],
  ["#### 12.5", "Die Antwort ist 12,5 Euro.", true],
  ["#### 5", "**Answer:** 5 apples", true],
  ["#### 42", "The final answer is $\\boxed{42}$", true],
  // AIME: integers, sometimes zero-padded
  ["33", "\\boxed{033}", true],
  ["540", "The final answer is 540.", true],
  ["7", "Final Answer: The final answer is $7$. I hope it is correct.", true],
  ["25", "so $m+n = \\boxed{25}$", true],
];

const OWN_NOT_EQUIVALENT: Triple[] = [
  // MATH
  ["\\frac{3}{4}", "\\boxed{\\frac{4}{3}}", false],
  ["3\\sqrt{13}", "\\boxed{\\sqrt{13}}", false],
  ["\\frac{\\sqrt{3}}{2}", "\\frac{\\sqrt{2}}{2}", false],
  ["2\\pi", "\\boxed{\\pi}", false],
  ["\\sqrt{2}+\\sqrt{5}", "\\boxed{\\sqrt{7}}", false],
  ["\\sqrt[3]{8}", "8", false],
  ["2^{10}", "2^{11}", false],
  ["-\\frac{10}{9}", "\\frac{10}{9}", false],
  ["\\binom{10}{3}", "30", false],
  ["5!", "5", false],
  ["e^{2}", "2e", false],
  ["3+4i", "3-4i", false],
  ["i", "-i", false],
  ["\\frac{1}{3}", "0.33", false],
  ["\\frac{2}{3}", "0.666", false],
  ["1.5\\times10^3", "150", false],
  ["6.02\\times10^{23}", "6.02\\times10^{22}", false],
  ["\\infty", "-\\infty", false],
  // tuples, sets, intervals
  ["(3, \\frac{\\pi}{2})", "\\boxed{(\\frac{\\pi}{2}, 3)}", false],
  ["(6,31,-1)", "(6,31,1)", false],
  ["-2,1", "\\boxed{2,-1}", false],
  ["\\{1,2,3\\}", "\\{1,2\\}", false],
  ["1 \\pm \\sqrt{19}", "\\boxed{1 + \\sqrt{19}}", false],
  ["\\{1\\pm\\sqrt{5},-2\\}", "\\{1+\\sqrt5,-2\\}", false],
  ["[0,1)", "[0,1]", false],
  ["(0,9)", "[0,9)", false],
  ["[0,9)", "[0,1)", false],
  ["(1,\\infty)", "[1,\\infty)", false],
  ["[2,5]", "x \\in [2, 5)", false],
  ["C", "\\boxed{\\text{(D)}}", false],
  ["\\begin{pmatrix} 0 & 3 \\\\ 0 & -1 \\end{pmatrix}", "\\begin{pmatrix} 0 & 3 \\\\ 0 & 1 \\end{pmatrix}", false],
  ["\\begin{pmatrix} 3 \\\\ 2 \\\\ -6 \\end{pmatrix}", "\\begin{pmatrix} 3 \\\\ -6 \\\\ 2 \\end{pmatrix}", false],
  // expressions with variables
  ["x^2+2x+1", "\\boxed{(x-1)^2}", false],
  ["2 \\sin b \\cos a", "\\boxed{2 \\sin a \\cos b}", false],
  ["\\frac{\\pi r}{h+r}", "\\boxed{\\frac{\\pi r}{h}}", false],
  ["x + y", "xy", false],
  ["2x", "x^2", false],
  // equations and inequalities
  ["x = 3", "x = -3", false],
  ["7 = 11a+c", "11a+c", false],
  ["x > 5", "x < 5", false],
  ["x \\geq 5", "x \\leq 5", false],
  ["x \\geq 5", "x > 5", false],
  // units, degrees, percentages
  ["90^\\circ", "\\boxed{45^\\circ}", false],
  ["15\\mbox{ cm}^2", "\\boxed{150}", false],
  ["28\\%", "72\\%", false],
  ["50\\%", "5", false],
  ["\\text{Evelyn}", "\\boxed{\\text{Carla}}", false],
  // GSM8K
  ["#### 72", "#### 27", false],
  ["#### 1000", "The answer is 100.", false],
  ["#### 18", "Janet sells 16 - 3 - 4 = 8 eggs a day, so she makes 8 * 2 = $16 every day.", false],
  ["#### 7425000", "742,500", false],
  ["#### 125", "Die Antwort ist 12,5.", false],
  ["#### 1250", "1,25", false],
  ["#### 20", "2.0", false],
  ["#### 42", "The final answer is $\\boxed{24}$", false],
  ["#### 42", "I first got 42, but the answer is \\boxed{43}", false],
  ["#### 5", "No answer.", false],
  // AIME
  ["33", "\\boxed{330}", false],
  ["540", "The final answer is 54.", false],
  ["7", "Final Answer: The final answer is $17$. I hope it is correct.", false],
  ["3", "x = 3, so the answer is $\\boxed{4}$", false],
  ["10", "9+2", false],
];

export const OWN: MathCase[] = [...OWN_EQUIVALENT, ...OWN_NOT_EQUIVALENT].map(([reference, response, equivalent]) => ({ family: "MATH/GSM8K/AIME formats", source: OWN_SOURCE, reference, response, equivalent }));

const r = String.raw;
const trap = (family: string, cases: [string, string, boolean, MathOptions?][]): MathCase[] =>
  cases.map(([reference, response, equivalent, options]) => ({ family, source: TRAP_SOURCE, reference, response, equivalent, ...(options ? { options } : {}) }));

export const TRAPS: MathCase[] = [
  ...trap("several answers vs one", [
    ["2", r`$x = 1, x = 2$`, false],
    ["2", r`\boxed{1, 2}`, false],
    ["1", r`\boxed{-2} and \boxed{1}`, false],
    ["3", r`\boxed{3 \text{ or } 5}`, false],
    ["1, 2", r`\boxed{1}`, false],
    ["5", r`\boxed{\{5, 6\}}`, false],
    ["1, 2", r`\boxed{2}, \boxed{1}`, true],
    ["-2, 1", r`\boxed{1} and \boxed{-2}`, true],
    ["5", "$x = 5$", true],
    ["5", r`\boxed{\{5\}}`, true],
  ]),
  ...trap("chains", [
    ["2", r`$x = 1 + 1 = 2$`, true],
    ["3", r`$x = 1 + 1 = 2$`, false],
    ["11", r`$x = 5+5+1 = 7 = 11$`, true],
    ["7", r`$x = 5+5+1 = 7 = 11$`, false],
    [r`\frac13`, r`$x = \frac{1}{3} \approx 0.33$`, true],
    ["0.33", r`$x=\frac13\approx0.33$`, false],
    ["4", "$2+2 = 4$", true],
    ["5", "$2+2 = 4$", false],
    ["k = 7", "$k = 3 + 4 = 7$", true],
    ["k = 7", "$k = 3 + 4 = 8$", false],
  ]),
  ...trap("systems of equations", [
    ["a=1, b=2, c=3", "$a=9, b=9, c=3$", false],
    ["a=1, b=2, c=3", "$c=3, b=2, a=1$", true],
    ["a=1, b=2, c=3", "$a=2, b=1, c=3$", false],
    ["a=1, b=2, c=3", "$a=1, b=2$", false],
    ["x = 2, y = -1", r`\boxed{(2, -1)}`, true],
    ["x = 2, y = -1", r`\boxed{(-1, 2)}`, false],
    ["x = 2, y = -1", r`\boxed{y = -1, x = 2}`, true],
    ["x = 2, y = -1", r`\boxed{x = 2}`, false],
    ["(x, y) = (1, 2)", r`\boxed{x = 1, y = 2}`, true],
    ["(x, y) = (1, 2)", r`\boxed{x = 2, y = 1}`, false],
    ["p=5,q=2;p=7,q=2", r`\boxed{(7,2), (5,2)}`, true],
    ["p=5,q=2;p=7,q=2", r`\boxed{(5,2)}`, false],
  ]),
  ...trap("and/or/; lists", [
    ["x=1 or x=2", "$x=3$ or $x=2$", false],
    ["x=1 or x=2", r`\boxed{x=3 \text{ or } x=2}`, false],
    ["x=1 or x=2", r`\boxed{x = 2 \text{ or } x = 1}`, true],
    [r`1 \text{ and } 2 \text{ and } 3`, r`\boxed{1, 2, 3}`, true],
    [r`1 \text{ and } 2 \text{ and } 3`, r`\boxed{1, 2}`, false],
    [r`1 \text{ and } 2 \text{ and } 3`, r`\boxed{1, 2, 4}`, false],
    ["-1; 2", r`\boxed{2, -1}`, true],
    ["-1; 2", r`\boxed{-1; 3}`, false],
    ["3", r`\boxed{3 \text{ or } 4}`, false],
    ["3", r`\boxed{3; 4}`, false],
    ["1 or 2", r`\boxed{1 \text{ and } 2}`, true],
  ]),
  ...trap("several boxes", [
    ["(2,2), (6,2)", r`$\boxed{(2, 2)} \quad \text{and} \quad \boxed{(6, 2)}$`, true],
    ["(2,2), (6,2)", r`$\boxed{(2, 2)}$`, false],
    ["2", r`first \boxed{1}, then \boxed{2}`, true],
    ["1", r`first \boxed{1}, then \boxed{2}`, false],
    ["4", r`\boxed{3} or \boxed{4}`, false],
    ["3, 4", r`\boxed{3} or \boxed{4}`, true],
    ["5", r`\boxed{5}\boxed{6}`, false],
    ["B", r`\boxed{A} or \boxed{B}`, false],
    ["A", r`\boxed{A, B}`, false],
    ["A, C", r`\boxed{C} and \boxed{A}`, true],
    ["5", r`\boxed{6} wait, no: \boxed{5}`, true],
    ["1, 2", r`\boxed{1} no no no no no \boxed{2}`, false],
    ["k = 45, n = 2", r`$\boxed{k = 45} \quad \text{and} \quad \boxed{n = 2}$`, true],
    ["k = 45, n = 2", r`$\boxed{k = 2} \quad \text{and} \quad \boxed{n = 45}$`, false],
  ]),
  ...trap("rounding", [
    [r`\frac{1}{3000}`, r`\boxed{0.000}`, false],
    [r`\frac{1}{12}`, "0.083", false],
    [r`\frac{1}{12}`, r`\boxed{0.0833333333}`, true],
    [r`\frac{2}{3}`, "0.667", false],
    [r`\frac{2}{3}`, "0.667", true, { round: 3 }],
    [r`\frac{2}{3}`, "0.67", false, { round: 3 }],
    [r`\frac{1}{3000}`, r`\boxed{0.000}`, false, { round: 4 }],
    [r`\pi`, "3.14", false],
    [r`\pi`, "3.14", true, { round: 2 }],
    [r`\sqrt{2}`, "1.414", false],
    ["1.5", "1.50", true],
    ["16386.20", "16386.2", true],
    ["16386.20", "16386.21", false],
    ["7425000", "7425001", false],
    ["7425000", r`\boxed{7,425,001}`, false],
    ["1000000", "1000000.5", false],
    ["1", r`\boxed{1.0000000001}`, true],
    ["0", r`\boxed{0.0001}`, false],
    [r`(\frac{1}{3}, \frac{2}{3})`, "(0.33, 0.67)", false],
    [r`(\frac{1}{3}, \frac{2}{3})`, "(0.33, 0.67)", true, { round: 2 }],
  ]),
  ...trap("percent vs fraction", [
    [r`50\%`, "0.5", false],
    ["0.5", r`50\%`, false],
    [r`28\%`, "0.28", false],
    [r`28\%`, "0.28", true, { percent: "fraction" }],
    ["0.5", "50%", true, { percent: "fraction" }],
    [r`28\%`, "28", true],
    [r`28\%`, "28 percent", true],
    ["25", r`\boxed{25\%}`, true],
    [r`28\%`, r`72\%`, false],
    [r`50\%`, "5", false],
    [r`50\%`, "5", false, { percent: "fraction" }],
    [r`\frac{1}{2}`, r`\boxed{50\%}`, false],
  ]),
  ...trap("decimal comma", [
    ["1,22", "1.22", true],
    ["1,22", "1.23", false],
    ["12.5", "Das Ergebnis ist 12,5", true],
    ["1,234", "1.234", false],
    ["1234", "1,234", true],
    ["0,5", "0.5", true],
    ["12, 5", "12.5", false],
    ["5, 12", r`\boxed{12,5}`, true],
    ["1,5", "15", false],
    ["12.5", "12,5", false, { decimalComma: "never" }],
  ]),
  ...trap("32,\\!349 thousands", [
    ["32349", r`is $\boxed{32,\! 349}$`, true],
    ["32349", r`is $\boxed{32, 349}$`, false],
    ["11111111100", r`$\boxed{11,\!111,\!111,\!100}$`, true],
    ["32349", r`$\boxed{32,\!348}$`, false],
    [r`32,\!349`, "32349", true],
    ["32{,}349", "32349", true],
    ["7425000", "7,425,000", true],
    ["742500", "7,425,000", false],
  ]),
  ...trap("unicode minus", [
    ["-5", "The answer is −5.", true],
    ["5", "The answer is −5.", false],
    [r`-\frac{1}{2}`, "so we get −0.5", true],
    ["-3", "x = −3", true],
    ["3", "x = −3", false],
    ["-2, 1", "1, −2", true],
    ["2, 1", "1, −2", false],
    ["-7", "The final answer is –7", true],
  ]),
  ...trap("intervals vs inequalities", [
    [r`x \in [-2,7]`, r`-2 \le x \le 7`, true],
    [r`-2 \le x \le 7`, r`x \in [-2, 7]`, true],
    ["[-2,7]", r`-2 < x \le 7`, false],
    ["x > 5", r`(5, \infty)`, true],
    [r`x \ge 5`, r`(5, \infty)`, false],
    ["x<3", r`(-\infty, 3)`, true],
    [r`(-\infty, 3]`, "x < 3", false],
    ["-793 < a < 10", "(-793, 10)", true],
    ["-793 < a < 10", "[-793, 10]", false],
    [r`7 \ge x \ge 2`, "[2, 7]", true],
  ]),
  ...trap("scaled or negated equations", [
    ["2x+4y-3=0", "4x + 8y - 6 = 0", true],
    ["2x+4y-3=0", "-2x-4y+3=0", true],
    ["2x+4y-3=0", "2x+4y+3=0", false],
    ["2x+4y-3=0", r`y = -\frac{1}{2}x + \frac34`, true],
    ["2x+4y-3=0", r`y = \frac{1}{2}x + \frac34`, false],
    ["x^2/4 + y^2/3 = 1", "3x^2 + 4y^2 = 12", true],
    ["x^2/4 + y^2/3 = 1", "4x^2 + 3y^2 = 12", false],
    ["x - y > 0", "y - x < 0", true],
    ["x - y > 0", "y - x > 0", false],
    ["x + y < 1", "-x - y > -1", true],
    ["3x + 2y = 6", "3x + 2y", false],
    ["x^2 = 4", "x = 2", false],
  ]),
  ...trap("units and text in the reference", [
    [r`36\pi \text{ cm}^2`, r`\boxed{36\pi}`, true],
    [r`36\pi \text{ cm}^2`, r`\boxed{12\pi}`, false],
    [r`V_1:V_2=11:21`, r`\boxed{11:21}`, true],
    [r`V_1:V_2=11:21`, r`\boxed{21:11}`, false],
    [r`0.06 \text{ yuan}`, r`\boxed{0.06}`, true],
    [r`15\mbox{ cm}^2`, r`\boxed{15 \text{ cm}^2}`, true],
    [r`10 \text{ units}`, "100", false],
    [r`\text{Evelyn}`, "Evelyn", true],
    [r`5 \text{ hours}`, r`\boxed{5}`, true],
    [r`5 \text{ hours}`, r`\boxed{6}`, false],
    [r`\$ 18.90`, r`\boxed{18.9}`, true],
    ["We have $x = 3$, so $y = 5$.", r`\boxed{5}`, true],
    ["We have $x = 3$, so $y = 5$.", r`\boxed{3}`, false],
  ]),
  ...trap("matrices", [
    [r`\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}`, r`\boxed{\begin{bmatrix}1&2\\3&4\end{bmatrix}}`, true],
    [r`\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}`, r`\boxed{\begin{pmatrix}1&3\\2&4\end{pmatrix}}`, false],
    [r`\begin{pmatrix} 3 \\ 2 \\ -6 \end{pmatrix}`, r`\boxed{(3, 2, -6)}`, true],
    [r`\begin{pmatrix} 3 \\ 2 \\ -6 \end{pmatrix}`, r`\boxed{8}`, false],
    [r`\begin{pmatrix} 3 \\ 2 \\ -6 \end{pmatrix}`, r`\boxed{\begin{pmatrix} 3 \\ 2 \end{pmatrix}}`, false],
    [r`\begin{pmatrix} \frac12 \\ -1 \end{pmatrix}`, r`\boxed{\begin{pmatrix} 0.5 \\ -1 \end{pmatrix}}`, true],
    [r`\begin{pmatrix} 0 & 0 \\ 0 & 0 \end{pmatrix}`, r`\boxed{0}`, false],
  ]),
  ...trap("\\quad multi-part references", [
    [r`x_{1}=\frac{1}{2}+\frac{31\sqrt{5}}{216},\quadx_{2}=\frac{1}{2}-\frac{31\sqrt{5}}{216}`, r`$\boxed{\dfrac{108 + 31\sqrt{5}}{216}} \quad \text{and} \quad \boxed{\dfrac{108 - 31\sqrt{5}}{216}}$`, true],
    [r`x_{1}=\frac{1}{2}+\frac{31\sqrt{5}}{216},\quadx_{2}=\frac{1}{2}-\frac{31\sqrt{5}}{216}`, r`\boxed{216}`, false],
    [r`x_{1}=\frac{1}{2}+\frac{31\sqrt{5}}{216},\quadx_{2}=\frac{1}{2}-\frac{31\sqrt{5}}{216}`, r`\boxed{\frac{108+31\sqrt5}{216}}`, false],
    [r`a = 3 \quad b = 4`, r`\boxed{a=3, b=4}`, true],
    [r`a = 3 \quad b = 4`, r`\boxed{a=4, b=3}`, false],
    [r`x_1 = 2,\quad x_2 = 3`, r`\boxed{x = 3 \text{ or } x = 2}`, true],
    [r`x_1 = 2,\quad x_2 = 3`, r`\boxed{x = 3}`, false],
    [r`x_1 = 2,\quad x_2 = 3`, r`\boxed{x = 2 \text{ or } x = 4}`, false],
  ]),
  ...trap("final answer sentence", [
    ["34", "Final Answer: The largest $n$ is 34.", true],
    ["34", "Final Answer: The largest $n$ is 35.", false],
    ["3", "Final Answer: Jane started growing Sphere 3 hours ago. I hope it is correct.", true],
    ["4", "Final Answer: Jane started growing Sphere 3 hours ago. I hope it is correct.", false],
    ["12", "The final answer is 12 and 13.", false],
    ["3", "Final Answer: it is certainly not 3 hours.", false],
    ["3", "Final Answer: maybe 3 hours, I am unsure.", false],
    ["7", "Final Answer: The final answer is $7$. I hope it is correct.", true],
    ["19", "Final Answer: The maximum number of points is 19. <|im_start|>user", true],
  ]),
];

/** Every case: upstream suites, own formats, traps. */
export const CASES: MathCase[] = [...UPSTREAM, ...OWN, ...TRAPS];

/** Families whose every wrong answer must fail (the traps of issue 28). */
export const TRAP_FAMILIES = [...new Set(TRAPS.map((c) => c.family))];

/** The old [reference, response, equivalent] triples (bench/checks.ts runs them). */
export const EQUIVALENT: Triple[] = CASES.filter((c) => c.equivalent && !c.options).map((c) => [c.reference, c.response, true]);
export const NOT_EQUIVALENT: Triple[] = CASES.filter((c) => !c.equivalent && !c.options).map((c) => [c.reference, c.response, false]);
export type { Triple as MathTriple };
