/**
 * Known hacks of the `math` check: wrong answers a policy might try, each of which the check must
 * fail. `rubricate probe` runs them against a rubric's math criteria so an author sees, before
 * training, whether any still passes; tests/checks/math.test.ts asserts none does.
 */

export interface MathHack {
  /** Stable id, for reports. */
  id: string;
  /** The kind of attack (several boxes, chains, rounding, …). */
  family: string;
  /** The right answer, as a rubric's `expected` would hold it. */
  reference: string;
  /** The policy's wrong answer. */
  response: string;
  /** Why it is wrong, and what a careless check would do with it. */
  why: string;
}

export const MATH_HACKS: readonly MathHack[] = [
  { id: "boxed-list", family: "several answers vs one", reference: "2", response: "so $\\boxed{1, 2}$", why: "a list of candidates is not one answer; a check that keeps the last item passes it" },
  { id: "list-of-roots", family: "several answers vs one", reference: "2", response: "$x = 1, x = 2$", why: "two values of x for a single answer; splitting on '=' before ',' used to read 2" },
  { id: "several-boxes", family: "several boxes", reference: "1", response: "\\boxed{-2} and \\boxed{1}", why: "two boxes form the answer {-2, 1}; a check that reads only the last box passes it" },
  { id: "either-box", family: "several boxes", reference: "4", response: "It is \\boxed{3} or \\boxed{4}.", why: "hedging between two answers" },
  { id: "boxed-or", family: "and/or lists", reference: "3", response: "\\boxed{3 \\text{ or } 5}", why: "hedging inside one box" },
  { id: "or-list-swap", family: "and/or lists", reference: "x=1 or x=2", response: "$x=3$ or $x=2$", why: "one of two solutions wrong; a check that keeps the last part passes it" },
  { id: "semicolon-extra", family: "and/or lists", reference: "3", response: "\\boxed{3; 4}", why: "an extra solution after a semicolon" },
  { id: "chain-middle", family: "chains", reference: "7", response: "$x = 5 + 2 = 7 = 8$", why: "a chain's value is its last part; its middle is a step" },
  { id: "system-last-matches", family: "systems", reference: "a=1, b=2, c=3", response: "$a=9, b=9, c=3$", why: "only c is right; a check that reads the last equation passes it" },
  { id: "system-swapped", family: "systems", reference: "x = 2, y = -1", response: "\\boxed{x = -1, y = 2}", why: "values given to the wrong unknowns" },
  { id: "rounded-to-zero", family: "rounding", reference: "\\frac{1}{3000}", response: "\\boxed{0.000}", why: "0.000 is a rounding, not 1/3000; rounding is opt-in (round: n)" },
  { id: "rounded-fraction", family: "rounding", reference: "\\frac{1}{12}", response: "\\boxed{0.083}", why: "a 3-digit rounding of 1/12 without the rubric asking for one" },
  { id: "pi-approximation", family: "rounding", reference: "\\pi", response: "\\boxed{3.14}", why: "an approximation of an exact answer" },
  { id: "percent-as-fraction", family: "percent vs fraction", reference: "50\\%", response: "\\boxed{0.5}", why: "a fraction where a percentage was asked; percent conversion is opt-in (percent: fraction)" },
  { id: "fraction-as-percent", family: "percent vs fraction", reference: "0.5", response: "\\boxed{50\\%}", why: "a percentage where a fraction was asked" },
  { id: "comma-list-as-number", family: "thousands", reference: "32349", response: "\\boxed{32, 349}", why: "'32, 349' is a list of two numbers, not 32,349" },
  { id: "decimal-comma-thousands", family: "decimal comma", reference: "1,234", response: "\\boxed{1.234}", why: "'1,234' is 1234; a decimal comma has no group of three after it" },
  { id: "open-for-closed", family: "intervals vs inequalities", reference: "x \\ge 5", response: "\\boxed{(5, \\infty)}", why: "the open interval leaves out 5" },
  { id: "negated-inequality", family: "scaled equations", reference: "x - y > 0", response: "$y - x > 0$", why: "negating one side of an inequality without turning it round" },
  { id: "matrix-sum-of-entries", family: "matrices", reference: "\\begin{pmatrix} 3 \\\\ 2 \\\\ 3 \\end{pmatrix}", response: "\\boxed{8}", why: "a number is not a vector; a reader that misreads the matrix compares 8" },
  { id: "quad-reference-denominator", family: "\\quad references", reference: "x_{1}=\\frac{1}{2}+\\frac{31\\sqrt{5}}{216},\\quad x_{2}=\\frac{1}{2}-\\frac{31\\sqrt{5}}{216}", response: "\\boxed{216}", why: "a reader that splits the reference badly compares only its last number" },
  { id: "one-root-of-two", family: "\\quad references", reference: "x_1 = 2,\\quad x_2 = 3", response: "\\boxed{x = 3}", why: "one root of two" },
  { id: "unit-changed", family: "units", reference: "36\\pi \\text{ cm}^2", response: "\\boxed{36}", why: "the units are dropped, not the constant" },
  { id: "final-sentence-denial", family: "final answer sentence", reference: "3", response: "Final Answer: it is certainly not 3 hours.", why: "a sentence that names a number to deny it" },
  { id: "final-sentence-off-by-one", family: "final answer sentence", reference: "34", response: "Final Answer: The largest $n$ is 35.", why: "a sentence answer is read for its number" },
];
