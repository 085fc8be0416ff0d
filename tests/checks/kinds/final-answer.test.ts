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
