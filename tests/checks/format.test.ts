import { describe, expect, it } from "vitest";
import { runCheck } from "../../src/checks/run.js";
import { tagContent } from "../../src/checks/format.js";

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
  ])("%j in %s form → %s", async (response, format, pass) => {
    expect((await runCheck({ final_answer: { format: format as "any" } }, { response })).pass).toBe(pass);
  });
});
