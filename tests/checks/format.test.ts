import { describe, expect, it } from "vitest";
import { runCheck } from "../../src/checks/run.js";
import { tagContent } from "../../src/checks/format.js";
import { parseRubric } from "../../src/rubric/load.js";
import { scoreSample } from "../../src/score/score.js";

const tags = (response: string, spec: Record<string, unknown> = {}) => runCheck({ tags: { required: ["reasoning", "answer"], ...spec } }, { response });

describe("tags", () => {
  it.each([
    ["<reasoning>because</reasoning>\n<answer>4</answer>", true, "has <reasoning>, <answer>"],
    ["<answer>4</answer><reasoning>because</reasoning>", false, "tags out of order (expected <reasoning> then <answer>)"],
    ["<reasoning>because</reasoning>", false, "no <answer>…</answer>"],
    ["<reasoning>because</reasoning><answer>4", false, "<answer> is never closed"],
    ["<reasoning>a</reasoning><answer>1</answer><answer>2</answer>", false, "<answer> appears 2 times"],
  ])("%j → %s", async (response, pass, reasoning) => {
    expect(await tags(response)).toMatchObject({ pass, reasoning });
  });
  it("ordered: false and once: false relax the rules; nothing_after forbids trailing text", async () => {
    expect((await tags("<answer>4</answer><reasoning>b</reasoning>", { ordered: false })).pass).toBe(true);
    expect((await tags("<reasoning>a</reasoning><answer>1</answer><answer>2</answer>", { once: false })).pass).toBe(true);
    expect(await tags("<reasoning>a</reasoning><answer>1</answer> PS: hi", { nothing_after: true })).toMatchObject({ pass: false, reasoning: "text after the last tag" });
  });
  it("tagContent takes the last section, trimmed (verifiers' XMLParser.parse_answer)", () => {
    expect(tagContent("<answer> 1 </answer> x <answer>\n2\n</answer>", "answer")).toBe("2");
    expect(tagContent("<Answer>3</Answer>", "answer")).toBe("3");
    expect(tagContent("none", "answer")).toBeUndefined();
  });
});

describe("final_answer", () => {
  it.each([
    ["So the result is \\boxed{7}.", "any", true],
    ["Reasoning...\nFinal answer: 7", "any", true],
    ["Work\n#### 7", "any", true],
    ["I think it is probably seven", "any", false],
    ["Reasoning...\nAnswer: 7", "boxed", false],
    ["\\boxed{7}", "gsm8k", false],
    ["Work\n#### 7", "gsm8k", true],
    ["**Answer:** 7", "line", true],
    ["Answer choices are listed above, I pick one.", "line", false],
    ["Final answer is 7", "line", true],
    ["\\boxed{}", "boxed", false],
    // "No" is the answer to a yes/no question; "no idea" and "no answer" state none.
    ["Is 91 prime?\nAnswer: No", "line", true],
    ["Answer: no.", "line", true],
    ["Answer: no idea", "line", false],
    ["The answer is no answer", "line", false],
  ])("%j in %s form → %s", async (response, format, pass) => {
    expect((await runCheck({ final_answer: { format: format as "any" } }, { response })).pass).toBe(pass);
  });
});

describe("format hacks (issue 28)", () => {
  it.each([
    ["<reasoning>because <answer>4</answer></reasoning>", "<answer> is inside <reasoning>"],
    ["<reasoning>because <answer>4</reasoning> more</answer>", "<reasoning> and <answer> overlap"],
    ["<reasoning></reasoning><answer>4</answer>", "<reasoning> is empty"],
    ["<reasoning>because</reasoning><answer>  \n </answer>", "<answer> is empty"],
    ["<reasoning>because</reasoning><answer>\u200B</answer>", "<answer> is empty"],
    ["<reasoning>because</reasoning><answer>\u2800 \u2060</answer>", "<answer> is empty"],
    ["<reasoning>\u3164</reasoning><answer>4</answer>", "<reasoning> is empty"],
    ["<reasoning>\u00AD\u200D\uFE0F</reasoning><answer>4</answer>", "<reasoning> is empty"],
    // What a page does not show: a comment, bare markup.
    ["<reasoning>because</reasoning><answer><!-- 4 --></answer>", "<answer> is empty"],
    ["<reasoning>**</reasoning><answer>4</answer>", "<reasoning> is empty"],
    ["<reasoning>because</reasoning><answer><b> </b>&nbsp;</answer>", "<answer> is empty"],
    // Punctuation alone, which no task has as its answer.
    ["<reasoning>because</reasoning><answer>.</answer>", "<answer> is empty"],
    ["<reasoning>because</reasoning><answer>...</answer>", "<answer> is empty"],
    ["<reasoning>because</reasoning><answer>…</answer>", "<answer> is empty"],
    ["<reasoning>because</reasoning><answer>?!</answer>", "<answer> is empty"],
    ["<reasoning>because</reasoning><answer> , ; : </answer>", "<answer> is empty"],
    ["<reasoning>because</reasoning><answer>—</answer>", "<answer> is empty"],
    ["<reasoning>because</reasoning><answer>¿?</answer>", "<answer> is empty"],
    ["<reasoning>because</reasoning><answer>。</answer>", "<answer> is empty"],
    ["<reasoning>because</reasoning><answer>**.**</answer>", "<answer> is empty"],
    ["<reasoning>because</reasoning><answer>&#46;\u200B.</answer>", "<answer> is empty"],
    ["<reasoning>...</reasoning><answer>4</answer>", "<reasoning> is empty"],
  ])("tags fails %j (%s)", async (response, reasoning) => {
    expect(await tags(response)).toMatchObject({ pass: false, reasoning: expect.stringContaining(reasoning) });
  });
  it.each(["<reasoning>because</reasoning><answer>**4**</answer>", "<reasoning>none found</reasoning><answer>[]</answer>", "<reasoning>x</reasoning><answer>{}</answer>", "<reasoning>a <!-- note --> b</reasoning><answer>&lt;</answer>"])("tags still passes %j: what a page shows is there", async (response) => {
    expect(await tags(response)).toMatchObject({ pass: true });
  });

  // A symbol, a bracket, a quote or the minus sign is some task's answer: only sentence punctuation is empty.
  it.each(["0", "-1", "-", "+", "<", "√2", "∅", "[]", "()", '""', "%", "#", "x.", "...4", "?A", "·"])("tags still passes the answer <answer>%s</answer>", async (answer) => {
    expect(await tags(`<reasoning>because</reasoning><answer>${answer}</answer>`)).toMatchObject({ pass: true });
  });

  it("tags still accepts sections with content, an emoji with a variation selector included", async () => {
    expect(await tags("<reasoning>because 2+2</reasoning><answer>4</answer>")).toMatchObject({ pass: true });
    expect(await tags("<reasoning>👍\uFE0F</reasoning><answer>٤</answer>")).toMatchObject({ pass: true });
  });

  it.each([
    ["Finding the final answer is hard…", "any"],
    ["Answer is unclear to me.", "any"],
    ["Answer is unclear to me.", "line"],
    ["The answer is that we cannot know.", "any"],
    ["Final answer: ", "line"],
  ])("final_answer rejects the prose %j (%s form)", async (response, format) => {
    expect((await runCheck({ final_answer: { format } }, { response })).pass).toBe(false);
  });

  it.each(["The final answer is 7.", "So the answer is $\\frac{3}{4}$.", "Answer is Paris.", "**Final answer:** B"])("final_answer still accepts %j", async (response) => {
    expect((await runCheck({ final_answer: {} }, { response })).pass).toBe(true);
  });

  it.each([
    ["So \\boxed{\u200B}.", "boxed"],
    ["So \\boxed{\u2800}.", "boxed"],
    ["So \\boxed{\\quad}.", "boxed"],
    ["So \\boxed{\\,\\;\\!\\ }.", "boxed"],
    ["So \\boxed{~}.", "any"],
    ["So \\boxed{{}}.", "boxed"],
    ["So \\boxed{\\text{ }}.", "boxed"],
    ["So \\boxed{\\mathrm{\\ }}.", "any"],
    ["So \\boxed{\\phantom{42}}.", "boxed"],
    ["So \\boxed{\\phantom{\\frac{1}{2}}}.", "boxed"],
    ["So \\boxed{\\hspace{1cm}}.", "boxed"],
    ["So \\boxed{?}.", "boxed"],
    ["So \\boxed{-}.", "boxed"],
    ["Answer: \u200B", "line"],
    ["Answer: \u3164", "any"],
    ["Answer: $\\,$", "line"],
    ["Answer: -", "any"],
    ["Answer: I don't know.", "any"],
    ["Answer: N/A", "any"],
    ["Final answer: TBD", "line"],
    ["The answer is cannot be determined.", "any"],
    ["Answer: see above.", "any"],
    ["Answer: it depends on the inputs.", "any"],
    ["Work shown above.\n#### .", "gsm8k"],
    ["Work shown above.\n#### ?", "any"],
    ["Work shown above.\n####\u200B", "gsm8k"],
    ["Work shown above.\n#### \u2800", "gsm8k"],
    ["Work shown above.\n#### unknown", "gsm8k"],
  ])("final_answer rejects a blank or non-answer %j (%s form): invisible characters, LaTeX spacing, a phantom, a hedge word", async (response, format) => {
    expect((await runCheck({ final_answer: { format: format as "any" } }, { response })).pass).toBe(false);
  });

  it.each([
    ["\\boxed{0}", "boxed"],
    ["\\boxed{\\emptyset}", "boxed"],
    ["\\boxed{\\text{yes}}", "boxed"],
    ["\\boxed{\\frac{1}{2}\\,\\text{cm}}", "boxed"],
    ["\\boxed{\\infty}", "any"],
    ["Answer: ∅", "line"],
    ["Answer: $\\frac{1}{2}$", "line"],
    ["Answer: I", "any"],
    ["Answer: Isaac Newton", "any"],
    ["Work\n#### 72", "gsm8k"],
    ["Work\n####\n72", "gsm8k"],
    ["Work\n#### -3", "gsm8k"],
  ])("final_answer still accepts the answer %j (%s form)", async (response, format) => {
    expect((await runCheck({ final_answer: { format: format as "any" } }, { response })).pass).toBe(true);
  });

  it.each([
    ["#### Step 1: think\nI could not finish.", "gsm8k"],
    ["#### Step 1: think\nI could not finish.", "any"],
    ["#### Solution\nIt is hard.", "gsm8k"],
    ["Work\n##### 7", "gsm8k"],
    ["We write #### 7 mid-line.", "gsm8k"],
  ])("final_answer: a markdown heading is not GSM8K's '#### n' %j (%s form)", async (response, format) => {
    expect((await runCheck({ final_answer: { format: format as "any" } }, { response })).pass).toBe(false);
  });
  it.each([
    ["#### Solution\n2 + 3 = 5\n\nAnswer: 5", "any"],
    ["Work\n#### **72**", "gsm8k"],
    ["Work\n#### x = 5", "gsm8k"],
    ["Work\n#### $\\frac{1}{2}$", "gsm8k"],
  ])("final_answer: a '####' line that starts like an answer, or an answer after a heading, is one %j (%s form)", async (response, format) => {
    expect((await runCheck({ final_answer: { format: format as "any" } }, { response })).pass).toBe(true);
  });
  it.each(["\\enskip", "\\kern1em", "\\hskip 1em", "\\hskip 1em plus 1fil", "\\mkern18mu", "\\>", "\\hfill", "\\phantom4", "\\strut", "\\mathstrut", "\\rule{0pt}{0pt}", "\\color{white}{42}", "\\color{white} 42", "\\textcolor{white}{42}", "\\text{?}", "\\text{N/A}", "\\text{I don't know}", "\\ldots", "..."])(
    "final_answer: a box that shows nothing or no answer fails: \\boxed{%s}",
    async (content) => {
      for (const format of ["boxed", "any"] as const) expect((await runCheck({ final_answer: { format } }, { response: `So \\boxed{${content}}.` })).pass, format).toBe(false);
    },
  );
  it.each(["\\color{red}{42}", "\\text{No}", "\\text{no solution}", "\\text{undefined}", "1, 2, \\ldots, n", "\\kern1em 42", "\\text{(C)}"])("final_answer: a box with an answer still passes: \\boxed{%s}", async (content) => {
    expect((await runCheck({ final_answer: { format: "boxed" } }, { response: `So \\boxed{${content}}.` })).pass).toBe(true);
  });
  it.each(["The answer is \"I don't know\".", "The answer is (unknown).", "The answer is - I am not sure.", "Answer: I have no idea", "Answer: Sorry, I can't solve this.", "Answer: TODO", "Answer: [your answer]", "Answer: [insert answer]"])(
    "final_answer: an answer line saying there is no answer fails, behind quotes, brackets or a dash: %j",
    async (response) => {
      expect((await runCheck({ final_answer: { format: "any" } }, { response })).pass).toBe(false);
    },
  );
  it.each(["Answer: (A)", "Answer: -3", "The answer is \"Paris\".", "Answer: [1, 2]"])("final_answer: a wrapped answer line still passes: %j", async (response) => {
    expect((await runCheck({ final_answer: { format: "any" } }, { response })).pass).toBe(true);
  });

  it("a box inside a nested <think> block is reasoning, not the answer", async () => {
    const rubric = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - { id: boxed, check: { final_answer: { format: boxed } }, points: 1 }\n  - { id: right, check: { math: { expected: '5' } }, points: 1 }\n");
    const nested = await scoreSample(rubric, { response: "<think>try <think>inner</think> so \\boxed{5}</think> I am not sure." });
    expect(nested.verdicts.map((v) => v.status)).toEqual(["unmet", "unmet"]);
    const stray = await scoreSample(rubric, { response: "<think>a</think> \\boxed{5} </think> no idea" });
    expect(stray.verdicts.map((v) => v.status)).toEqual(["unmet", "unmet"]);
    const honest = await scoreSample(rubric, { response: "<think>try <think>inner</think> more</think> So \\boxed{5}." });
    expect(honest.verdicts.map((v) => v.status)).toEqual(["met", "met"]);
  });
});
