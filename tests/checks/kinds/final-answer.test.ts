import { describe, expect, it } from "vitest";
import { statedAnswerSentences } from "../../../src/checks/kinds/final-answer.js";
import { runCheck } from "../../../src/checks/run.js";

const stated = async (response: string, format: "any" | "boxed" = "boxed") => (await runCheck({ final_answer: { format } }, { response })).pass;

describe("final_answer: a box painted in a colour no page shows states nothing", () => {
  it.each(["\\color{#ffff}{42}", "\\color{#FFFFFFFF}{42}", "\\color{#0000}{42}", "\\color{#12345600}{42}", "\\textcolor{#abc0}{42}", "\\color[RGB]{255,255,255}{42}", "\\color[RGB]{255, 255, 255} 42"])("\\boxed{%s}", async (content) => {
    for (const format of ["boxed", "any"] as const) expect(await stated(`So \\boxed{${content}}.`, format), format).toBe(false);
  });

  it("a colour a page shows still leaves the answer stated", async () => {
    for (const content of ["\\color{#fff1}{42}", "\\color{#ffffff01}{42}", "\\color{#f00}{42}", "\\color[RGB]{255,0,0}{42}", "\\color{#ffffe0}{42}"]) expect(await stated(`So \\boxed{${content}}.`), content).toBe(true);
  });
});

describe("final_answer: an answer a page hides is not stated", () => {
  const passes = async (response: string, format: "any" | "boxed" | "line" | "gsm8k") => (await runCheck({ final_answer: { format } }, { response })).pass;
  it.each([
    ["a box in a hidden element", "I could not solve it.<span hidden>\\boxed{7}</span>", ["any", "boxed"]],
    ["a box in an element a <style> rule hides", "<style>.a{display:none}</style>No idea.<b class=a>\\boxed{7}</b>", ["any", "boxed"]],
    ["a '####' line in an HTML comment", "I could not solve it.\n<!--\n#### 7\n-->", ["any", "gsm8k"]],
    ["an 'Answer:' line in an element with display: none", "I could not solve it.\n<div style=\"display:none\">\nAnswer: 7\n</div>", ["any", "line"]],
  ] as const)("%s", async (_, response, formats) => {
    for (const format of formats) expect(await passes(response, format), format).toBe(false);
  });

  it("an answer a page shows is stated, beside a comment or written with a character reference", async () => {
    expect(await passes("So \\boxed{7}. <!-- checked twice -->", "boxed")).toBe(true);
    expect(await passes("<!-- work -->\nAnswer: 7", "line")).toBe(true);
    expect(await passes("Answer&#58; 7", "line")).toBe(true);
    expect(await passes("Work.\n#### 7", "gsm8k")).toBe(true);
  });
});

describe("final_answer: a sentence that denies or doubts the answer does not state it", () => {
  it.each([
    "I don't think the answer is 7.",
    "I do not believe the answer is 7.",
    "I don’t think the answer is 7.",
    "I'm not sure the answer is 7.",
    "Not sure the answer is 7.",
    "It isn't true that the answer is 7.",
    "I doubt that the answer is 7.",
    "I can't say the answer is 7.",
    "I never said the answer is 7.",
    "There is no way the answer is 7.",
    "I wonder if the answer is 7.",
    "I'm unsure whether the answer is 7.",
    // Held before: the content after "the answer is" denies it.
    "The answer is not 7",
  ])("%j is no final answer", async (response) => {
    expect(await stated(response, "any")).toBe(false);
  });

  it.each([
    "I think the answer is 7.",
    "So, the answer is 7.",
    "No, the answer is 7.",
    "I don't think so. The answer is 7.",
    "I'm not certain, but the answer is 7.",
    "We cannot simplify further so the answer is 7.",
    "It's not hard to see that the answer is 7.",
    "It isn't difficult to check that the answer is 7.",
    "I have no doubt the answer is 7.",
    "Beyond doubt the answer is 7.",
    "It doesn't matter how we round: the answer is 7.",
    "I don't think the answer is 8.\nThe answer is 7.",
  ])("%j still states one", async (response) => {
    expect(await stated(response, "any")).toBe(true);
  });

  it("finds the stated sentences in one pass, however many doubts and sentences there are", () => {
    // No clock: testing each sentence's prefix for a doubt again (60,000 sentences after a million
    // characters; 3,000 of them took 3 s) would outlast the test's 60 s limit.
    expect(statedAnswerSentences(`${"a ".repeat(500_000)}${"I don't think the answer is 7\n".repeat(60_000)}`)).toHaveLength(0);
    expect(statedAnswerSentences(`${"not ".repeat(250_000)}${"so I think the answer is 7\n".repeat(60_000)}`)).toHaveLength(60_000);
    expect(statedAnswerSentences(`${"no ".repeat(100_000)}${" ".repeat(100_000)}the answer is 7`)).toHaveLength(0);
  });
});

describe("final_answer: a box inside a sentence that doubts it states nothing", () => {
  it.each(["I don't think the answer is \\boxed{7}.", "I'm not sure the final answer is $\\boxed{7}$.", "I doubt that the answer is: \\boxed{7}", "I don't think the answer is \\fbox{7}."])("%j", async (response) => {
    for (const format of ["boxed", "any"] as const) expect(await stated(response, format), format).toBe(false);
  });

  it.each([
    "No doubt the answer is \\boxed{7}.",
    "So the answer is \\boxed{7}.",
    "The answer is \\boxed{7}.",
    "Adding them up gives \\boxed{7}.",
    "The number of integers not divisible by 3 is \\boxed{7}.",
    "I don't think the answer is \\boxed{8}. The answer is \\boxed{7}.",
    "I don't think the answer is \\boxed{8}.\n\nSo we get \\boxed{7}.",
    "I don't think the answer is 8, so \\boxed{7}.",
    "I'm not sure at first, but the answer is \\boxed{7}.",
    // A label line opens a statement of its own.
    "I don't think the answer is 8\nAnswer: \\boxed{7}",
  ])("%j still states one", async (response) => {
    for (const format of ["boxed", "any"] as const) expect(await stated(response, format), format).toBe(true);
  });

  it("the last box is the answer: a doubted one after a stated one states nothing in boxed form", async () => {
    expect(await stated("We get \\boxed{5}. I don't think the answer is \\boxed{7}.", "boxed")).toBe(false);
  });

  it("a box asked about is not stated", async () => {
    for (const format of ["boxed", "any"] as const) {
      expect(await stated("Is the answer \\boxed{7}?", format), format).toBe(false);
      expect(await stated("Could it be that the answer is \\boxed{7}?", format), format).toBe(false);
      expect(await stated("Is the answer \\boxed{7}? Let me check: yes, \\boxed{7}.", format), format).toBe(true);
    }
  });
});

describe("final_answer: a doubt reaches across a line break inside its sentence", () => {
  it.each([
    ["I don't think\nthe answer is 7", "any"],
    ["I don't think\nthe answer is 7.", "line"],
    ["I'm not sure\nThe answer is 7.", "any"],
    ["I don't think\r\nthe final answer is 7", "any"],
    ["I don't really believe that\nthe answer is \\boxed{7}.", "boxed"],
    ["I don't think\nthe answer is \\boxed{7}.", "any"],
  ] as const)("%j is no final answer (%s)", async (response, format) => {
    expect((await runCheck({ final_answer: { format } }, { response })).pass).toBe(false);
  });

  it.each([
    ["I don't think so.\nThe answer is 7.", "any"],
    ["I don't think so!\nthe answer is 7", "any"],
    ["I don't think this is hard\n\nThe answer is 7.", "any"],
    ["I don't think this is hard\n \nthe answer is 7", "line"],
    ["I'm not sure about step 2.\nAnswer: 7", "any"],
    ["I'm not sure about step 2.\nAnswer: 7", "line"],
    // A label on its own line states its answer whatever the line before says.
    ["Step 2 is not needed\nAnswer: 7", "any"],
    ["Step 2 is not needed\n**Final answer:** 7", "line"],
    // A heading, a display and a list item are blocks of their own.
    ["## Why the first guess does not work\nThe answer is 7.", "any"],
    ["$$7 \\not\\equiv 0 \\pmod 2$$\nThe answer is 7.", "any"],
    ["It is not 5\n- the answer is 7", "any"],
    ["It is not 5\n\\[x = \\boxed{7}\\]", "boxed"],
  ] as const)("%j still states one (%s)", async (response, format) => {
    expect((await runCheck({ final_answer: { format } }, { response })).pass).toBe(true);
  });
});

describe("final_answer: a response longer than the tail it reads", () => {
  it("a doubt cut off by the tail still doubts the clause the tail starts in", async () => {
    expect(await stated(`I don't think${" very".repeat(2_000)} clearly the answer is 7.`, "any")).toBe(false);
    expect(await stated(`I don't think${" very".repeat(2_000)} clearly the answer is \\boxed{7}.`, "boxed")).toBe(false);
  });

  it("a long honest response still states its answer", async () => {
    expect(await stated(`${"We add the terms. ".repeat(1_000)}So the answer is 7.`, "any")).toBe(true);
    expect(await stated(`${"We add the terms. ".repeat(1_000)}So the answer is \\boxed{7}.`, "boxed")).toBe(true);
  });
});

describe("final_answer: a conditional, a question or an embedded clause states no answer", () => {
  it.each([
    "If the answer is 7, then the sum is 10.",
    "Suppose the answer is 7.",
    "Supposing the answer is 7, we check the sum.",
    "Assuming the answer is 7, the rest follows.",
    "Assume the final answer is 7.",
    "Whether the answer is 7 is unclear.",
    "Unless the answer is 7, we are wrong.",
    "Is the answer 7?",
    "Could it be that the answer is 7?",
    "So the answer is 7? Let me check the units again.",
    "If the answer is \\boxed{7}, then the sum is 10.",
  ])("%j", async (response) => {
    expect(await stated(response, "any")).toBe(false);
  });

  it.each([
    "So the answer is 7.",
    "Therefore, the final answer is 7.",
    "Answer: 7",
    "If we add them, the answer is 7.",
    "If x = 2, then the answer is 7.",
    "If I'm not mistaken the answer is 7.",
    "Suppose x = 2. Then the answer is 7.",
    "Is 7 prime? Yes. The answer is 7.",
    "The answer is 7 (right?).",
    "The answer is 7 if x is positive.",
    "I don't think the answer is 8. The answer is 7.",
    "The answer is 7, whether or not we round.",
  ])("%j still states one", async (response) => {
    expect(await stated(response, "any")).toBe(true);
  });
});

describe("final_answer: the doubt, line-break and box reading stays linear", () => {
  it("reads long runs of line breaks, conditionals, questions and boxes in one pass", async () => {
    // No clock: reading each line or box against all before it again would outlast the test's 60 s limit.
    expect(statedAnswerSentences(`${"not\n".repeat(200_000)}the answer is 7`)).toHaveLength(0);
    expect(statedAnswerSentences(`${"if\n\n".repeat(200_000)}the answer is 7`)).toHaveLength(1);
    expect(statedAnswerSentences(`${" ".repeat(200_000)}\n${"the answer is ".repeat(100_000)}7`)).toHaveLength(100_000);
    // One question of 100,000 "the answer is": each is asked, none stated.
    expect(statedAnswerSentences(`I think ${"the answer is 7 ".repeat(100_000)}?`)).toHaveLength(0);
    expect(statedAnswerSentences(`I think ${"the answer is 7 ".repeat(100_000)}.`)).toHaveLength(100_000);
    expect(await stated(`${"I don't think the answer is \\boxed{7}\n".repeat(20_000)}`, "any")).toBe(false);
  });
});
