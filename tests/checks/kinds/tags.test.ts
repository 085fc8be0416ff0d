import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tagSpans, type TagSpan } from "../../../src/checks/format.js";
import { overlaps } from "../../../src/checks/kinds/tags.js";
import { runCheck } from "../../../src/checks/run.js";

/** The definition overlaps() once computed directly, comparing every pair: the oracle. */
function overlapsPairwise(found: { name: string; span: TagSpan }[]): string[] {
  const problems = new Set<string>();
  for (const a of found) {
    for (const b of found) {
      if (a.name === b.name || a.span.start > b.span.start) continue;
      if (b.span.start < a.span.end) problems.add(b.span.end <= a.span.end ? `<${b.name}> is inside <${a.name}>` : `<${a.name}> and <${b.name}> overlap`);
    }
  }
  return [...problems];
}

const span = fc.tuple(fc.nat({ max: 30 }), fc.integer({ min: 1, max: 12 })).map(([start, length]): TagSpan => ({ start, end: start + length, content: "x" }));
const name = fc.constantFrom("reasoning", "answer", "Answer", "a");

describe("tags: sections inside or overlapping others", () => {
  it("are the problems, in the order, that comparing every pair gives: any sections, any names", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ name, span }), { maxLength: 12 }), (found) => {
        expect(overlaps(found)).toEqual(overlapsPairwise(found));
      }),
      { numRuns: 5000 },
    );
  });

  it("are the same on texts of random tags, as the check finds them", () => {
    const token = fc.constantFrom("<r>", "</r>", "<a>", "</a>", "<b>", "</b>", "x", " ");
    fc.assert(
      fc.property(fc.array(token, { maxLength: 24 }), (tokens) => {
        const text = tokens.join("");
        const found = ["r", "a", "b"].flatMap((n) => tagSpans(text, n).map((s) => ({ name: n, span: s })));
        expect(overlaps(found)).toEqual(overlapsPairwise(found));
      }),
      { numRuns: 2000 },
    );
  });

  it("reads the sections a number of times that grows as n log n, not with every pair (n²)", () => {
    let reads = 0;
    const counted = (name: string, start: number, end: number) => ({ get name() { reads++; return name; }, span: { get start() { reads++; return start; }, get end() { reads++; return end; }, content: "x" } });
    const n = 4000;
    const found = [counted("r", 0, 10), ...Array.from({ length: n }, (_, i) => counted("a", 10 + 8 * i, 18 + 8 * i))];
    expect(overlaps(found)).toEqual([]);
    // Sorting takes about n log2 n comparisons of two starts; comparing every pair reads a name n² = 16,000,000 times.
    expect(reads).toBeLessThan(8 * n * Math.log2(n));
  });

  it("a response of 60,000 sections is checked (comparing every pair took seconds on the main thread)", async () => {
    const response = "<r>x</r>" + "<a>1</a>".repeat(60_000);
    expect(await runCheck({ tags: { required: ["r", "a"] } }, { response })).toMatchObject({ pass: false, reasoning: "<a> appears 60000 times" });
    const nested = `<r>${"<a>1</a>".repeat(60_000)}</r>`;
    expect(await runCheck({ tags: { required: ["r", "a"], once: false } }, { response: nested })).toMatchObject({ pass: false, reasoning: "<a> is inside <r>" });
  });
});

describe("tags: a section holding only what a page hides is empty", () => {
  const tags = (response: string) => runCheck({ tags: { required: ["reasoning", "answer"] } }, { response });
  it.each([
    ["a hidden element", "<reasoning>because</reasoning><answer><span hidden>42</span></answer>"],
    ["an element a <style> rule inside it hides", "<reasoning>because</reasoning><answer><style>.x{display:none}</style><b class=x>42</b></answer>"],
    ["an element a <style> rule before the sections hides", "<style>.x{display:none}</style><reasoning>because</reasoning><answer><b class=x>42</b></answer>"],
    ["an element a <style> rule after the sections hides", "<reasoning>because</reasoning><answer><b class=x>42</b></answer><style>.x{display:none}</style>"],
    ["a tag that closes itself with no space (<hr/>), which was read as text", "<reasoning>because</reasoning><answer><hr/><br/></answer>"],
    ["an element an inline style with an escape hides", "<reasoning>because</reasoning><answer><b style=\"disp\\lay:none\">42</b></answer>"],
  ])("%s", async (_, response) => {
    expect(await tags(response)).toMatchObject({ pass: false, reasoning: "<answer> is empty" });
  });

  it("a <style> rule that hides other elements, or colours the answer, leaves it", async () => {
    expect(await tags("<style>.y{display:none} .x{color:red}</style><reasoning>because</reasoning><answer><b class=x>42</b></answer>")).toMatchObject({ pass: true });
    expect(await tags("<template><style>.x{display:none}</style></template><reasoning>because</reasoning><answer><b class=x>42</b></answer>")).toMatchObject({ pass: true });
  });
});

describe("tags: a section a page hides is no section", () => {
  const tags = (response: string, options: Record<string, unknown> = {}) => runCheck({ tags: { required: ["reasoning", "answer"], ...options } }, { response });
  it.each([
    ["inside an HTML comment", "I don't know. <!-- <reasoning>because</reasoning><answer>42</answer> -->"],
    ["inside a hidden element", "I don't know.<div hidden><reasoning>because</reasoning><answer>42</answer></div>"],
    ["inside an element a <style> rule hides", "<style>.x{display:none}</style>I don't know.<div class=x><reasoning>because</reasoning><answer>42</answer></div>"],
    ["inside a <template>", "I don't know.<template><reasoning>because</reasoning><answer>42</answer></template>"],
  ])("%s", async (_, response) => {
    expect(await tags(response)).toMatchObject({ pass: false, reasoning: "no <reasoning>…</reasoning>; no <answer>…</answer>" });
  });

  it("sections a page shows pass beside a comment; written with character references they are text, not sections", async () => {
    expect(await tags("<!-- draft --><reasoning>because</reasoning><answer>42</answer>")).toMatchObject({ pass: true });
    expect(await tags("<reasoning>because</reasoning><answer>42</answer><!-- checked -->", { nothing_after: true })).toMatchObject({ pass: true });
    expect(await tags("&lt;reasoning&gt;because&lt;/reasoning&gt;&lt;answer&gt;42&lt;/answer&gt;")).toMatchObject({ pass: false });
  });
});

describe("tags: a section of punctuation alone is empty", () => {
  it("reads a section of 400,000 dots once, whatever follows them", async () => {
    // No clock: looking for the punctuation-only run from each of its starts (40,000 dots took 1.6 s; n² grows 100-fold) would outlast the test's 60 s limit.
    const dots = ".".repeat(400_000);
    const tags = (answer: string) => runCheck({ tags: { required: ["reasoning", "answer"] } }, { response: `<reasoning>because</reasoning><answer>${answer}</answer>` });
    expect(await tags(dots)).toMatchObject({ pass: false, reasoning: "<answer> is empty" });
    expect(await tags(`${dots}x`)).toMatchObject({ pass: true });
    expect(await tags(`${". ".repeat(200_000)}4`)).toMatchObject({ pass: true });
  });
});

describe("tags: a section holding only a markdown horizontal rule is empty", () => {
  const tags = (answer: string) => runCheck({ tags: { required: ["reasoning", "answer"] } }, { response: `<reasoning>because</reasoning><answer>${answer}</answer>` });
  it.each(["---", "***", "___", "- - -", "* * *", "_ _ _", "----------", " -- - ", "\n---\n", "---\n\n***", "-\u200B-\u200B-", "**---**", "---\r\n"])("<answer>%j</answer> is empty", async (answer) => {
    expect(await tags(answer)).toMatchObject({ pass: false, reasoning: "<answer> is empty" });
  });

  it.each(["-", "--", "-1", "---4", "4\n---", "--- 4", "-*-", "a - - -", "x---y"])("<answer>%j</answer> still passes: a hyphen, a minus sign or text with a rule is content", async (answer) => {
    expect(await tags(answer)).toMatchObject({ pass: true });
  });

  it("reads a rule of 400,000 hyphens, or 200,000 short lines, once", async () => {
    // No clock: reading a line of hyphens from each of its hyphens would outlast the test's 60 s limit.
    expect(await tags("- ".repeat(200_000))).toMatchObject({ pass: false });
    expect(await tags(`${"- ".repeat(200_000)}x`)).toMatchObject({ pass: true });
    expect(await tags("---\n".repeat(200_000))).toMatchObject({ pass: false });
    expect(await tags(`${"-".repeat(400_000)}4`)).toMatchObject({ pass: true });
  });
});
