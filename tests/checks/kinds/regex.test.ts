/**
 * `regex` reads the text as written and as a reader gets it (text/markup.ts undisguisedText): a
 * match only an HTML comment, a hidden element, a character reference or an invisible character
 * makes, or hides, is not the reader's. A requirement is then unmet; a pitfall is hit.
 */
import { describe, expect, it } from "vitest";
import { runCheck } from "../../../src/checks/run.js";
import { parseRubric } from "../../../src/rubric/load.js";
import { score } from "../../../src/score/score.js";

const check = (pattern: string, flags?: string) => ({ regex: flags ? { pattern, flags } : pattern });

describe("regex: a match a page hides or disguises is not the reader's", () => {
  it.each([
    ["a required date only in an HTML comment", "\\b(12(th)? (of )?March|March 12(th)?)\\b", "i", "I could not find the date. <!-- March 12 -->"],
    ["a required date only in a hidden element", "\\bMarch 12\\b", undefined, "I could not find it.<span hidden>March 12</span>"],
    ["a required date only in an element a <style> rule hides", "\\bMarch 12\\b", undefined, "<style>.x{display:none}</style>Not sure.<b class=x>March 12</b>"],
    ["a ban on '!' met by writing it as a character reference", "^[^!]*$", undefined, "Buy now&#33;"],
    ["a ban on prices met by a comment inside the price", "^(?![\\s\\S]*[$€£]\\s?\\d)", undefined, "It costs $<!-- -->5."],
    ["a required word split by an invisible character", "\\bMarch\\b", undefined, "Mar\u200Bch 12"],
  ])("%s: not met, and marked unshown", async (_, pattern, flags, response) => {
    const verdict = await runCheck(check(pattern, flags), { response });
    expect(verdict).toMatchObject({ pass: false, unshown: true });
    expect(verdict.reasoning).toMatch(/^matches \/.*\/ only as (written|a page shows it)/);
  });

  it.each([
    ["tags a format pattern looks for", "^<answer>\\d+</answer>$", undefined, "<answer>42</answer>"],
    ["markdown bullets", "(?:^[ \\t]*[-*•][ \\t].*\\n?){3}", "m", "* one\n* two\n* three"],
    ["a JSON object", "^\\s*\\{[\\s\\S]*\\}\\s*$", undefined, '{"_id": 1, "note": "<b>x</b>"}'],
    ["a date beside a comment", "\\bMarch 12\\b", undefined, "On March 12. <!-- checked -->"],
    ["a boxed answer", "\\\\boxed\\{", undefined, "So \\boxed{7}."],
  ])("an honest response with %s still matches", async (_, pattern, flags, response) => {
    expect(await runCheck(check(pattern, flags), { response })).toMatchObject({ pass: true });
  });

  it("a regex pitfall counts a match only a comment or a disguise makes, or hides, as hit: the response gets its penalty", async () => {
    const rubric = parseRubric("id: r\ncriteria:\n  - { id: polite, check: { contains: please }, points: 1 }\n  - { id: rude, check: { regex: '\\bstupid\\b' }, points: -2 }\n");
    const [split, referenced, shown, clean] = await score(rubric, [{ response: "please, stu<!-- -->pid" }, { response: "please, stu&#112;id" }, { response: "please, stupid" }, { response: "please" }]);
    const rude = (result: typeof split) => result.verdicts.find((v) => v.id === "rude")!;
    for (const disguised of [split, referenced]) {
      expect(rude(disguised)).toMatchObject({ status: "met", reasoning: expect.stringContaining("a pitfall counts what a page hides as hit") });
      expect(disguised.reward).toBe(shown.reward);
    }
    expect(rude(clean)).toMatchObject({ status: "unmet" });
    expect(shown.reward!).toBeLessThan(clean.reward!);
  });
});
