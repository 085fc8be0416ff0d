import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { referenceCases } from "../../src/checks/hacks.js";
import { CHECK_KINDS } from "../../src/checks/kinds.js";
import { hackTally, runHacks } from "../../src/probe/hacks.js";
import { probeMarkdown } from "../../src/probe/report.js";
import { probe } from "../../src/probe/run.js";
import { parseRubric } from "../../src/rubric/load.js";
import { ROOT, runCli, tempDir } from "../helpers/cli.js";
import { needsBubblewrap } from "../sandbox/helpers.js";
import { MATH_HACKS } from "../../src/checks/math/hacks.js";
import { CODE_HACKS } from "../../src/checks/code/hacks.js";

const bwrap = needsBubblewrap();
const fixture = (name: string) => join(ROOT, "tests", "fixtures", "probe", name);

describe("check kinds' known hacks", () => {
  it("the format kinds carry hacks for nesting, empty sections, prose answers, answer_uses and similarity stuffing", () => {
    const ids = (key: string) => CHECK_KINDS.find((k) => k.key === key)!.hacks!.map((h) => h.id);
    expect(ids("tags")).toEqual(expect.arrayContaining(["tags-nested", "tags-empty", "tags-rule"]));
    expect(ids("final_answer")).toEqual(expect.arrayContaining(["final-answer-prose-hard", "final-answer-prose-unclear", "final-answer-negated-box", "final-answer-negated-line-break", "final-answer-conditional", "final-answer-question", "final-answer-hidden-box", "final-answer-hidden-gsm8k", "final-answer-hidden-line"]));
    expect(ids("tool_calls")).toEqual(expect.arrayContaining(["answer-uses-quoted-number", "answer-uses-denied-text", "tool-calls-refused", "answer-uses-aside-list", "answer-uses-hidden"]));
    expect(ids("similarity")).toEqual(expect.arrayContaining(["similarity-negated", "similarity-stuffed", "similarity-hidden"]));
  });

  it("not_contains carries look-alike, invisible-letter, markup and hidden-element hacks, and each fails it: the banned phrase is found in each", async () => {
    const rubric = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - { id: polite, check: { not_contains: ['As an AI', 'stupid'] }, points: 1 }\n  - { id: exact, check: { not_contains: 'Stupid', case_sensitive: true }, points: 1 }\n");
    const runs = await runHacks(rubric, [{ response: "" }]);
    expect(runs.map((r) => `${r.criterion}/${r.hack}`)).toEqual(["polite/not-contains-look-alike", "polite/not-contains-invisible", "polite/not-contains-markup", "polite/not-contains-hidden-element", "polite/not-contains-stylesheet-hidden", "exact/not-contains-look-alike", "exact/not-contains-invisible", "exact/not-contains-markup", "exact/not-contains-hidden-element", "exact/not-contains-stylesheet-hidden"]);
    expect(runs[0].response).toBe("Sure. \u0410\u0455 \u0430n \u0410\u0406. That is all.");
    expect(runs[2].response).toBe("Sure. As a**n** AI. That is all.");
    expect(runs[3].response).toBe("Sure. As a<span hidden>x</span>n AI. That is all.");
    expect(runs[4].response).toBe("<style>.aside{display:none}</style>Sure. As a<span class=\"aside\">x</span>n AI. That is all.");
    expect(runs.filter((r) => r.error || r.passed)).toEqual([]);
  });

  it("every hack of the format kinds fails the check it attacks (each is a test of that check)", async () => {
    const rubric = parseRubric(`id: r
inputs: [response, tool_calls]
criteria:
  - { id: layout, check: { tags: { required: [reasoning, answer] } }, points: 1 }
  - { id: stated, check: { final_answer: {} }, points: 1 }
  - { id: line, check: { final_answer: { format: line } }, points: 1 }
  - { id: boxed, check: { final_answer: { format: boxed } }, points: 1 }
  - { id: gsm8k, check: { final_answer: { format: gsm8k } }, points: 1 }
  - { id: uses, check: { tool_calls: { answer_uses: calculator } }, points: 1 }
  - { id: tools, check: { tool_calls: { called: search, order: [search, calculator] } }, points: 1 }
  - { id: busy, check: { tool_calls: { min_calls: 3 } }, points: 1 }
`);
    const runs = await runHacks(rubric, [{ response: "" }]);
    expect(runs.length).toBeGreaterThanOrEqual(19);
    expect(runs.filter((r) => r.hack === "tool-calls-refused").map((r) => r.criterion)).toEqual(["tools", "busy"]);
    expect(runs.filter((r) => r.error)).toEqual([]);
    expect(runs.filter((r) => r.passed).map((r) => `${r.criterion}/${r.hack}`)).toEqual([]);
  });

  it("number's hacks aim a wrong answer written with the reference's digits at a templated reference, and each fails", async () => {
    const rubric = parseRubric("id: r\ninputs: [response, answer]\ncriteria:\n  - { id: right, check: { number: { expected: '{{answer}}' } }, points: 1 }\n  - { id: literal, check: { number: { expected: 12 } }, points: 1 }\n");
    const runs = await runHacks(rubric, [{ answer: "7" }]);
    // A literal reference cannot be aimed at: only the templated criterion is tried.
    expect(runs.map((r) => `${r.criterion}/${r.hack}: ${r.response}`)).toEqual(["right/number-power: \\boxed{12^{2}}", "right/number-root: \\boxed{\\sqrt{12}}", "right/number-factorial: \\boxed{12!}"]);
    expect(runs.filter((r) => r.error || r.passed)).toEqual([]);
  });

  it("contains' hacks hide the required strings in an HTML comment and in an element a <style> rule hides, and fail a requirement", async () => {
    const rubric = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - { id: disclaimer, check: { contains: [consult a doctor, not medical advice], match: all }, points: 1 }\n");
    const runs = await runHacks(rubric, [{ response: "" }]);
    expect(runs.map((r) => [r.hack, r.response, r.passed])).toEqual([
      ["contains-hidden", "Here is my answer. <!-- consult a doctor not medical advice -->", false],
      ["contains-stylesheet-hidden", "Here is my answer. <style>.note{display:none}</style><span class=\"note\">consult a doctor not medical advice</span>", false],
    ]);
  });

  it("length's hacks pad a min inside an HTML comment and inside an element a <style> rule hides, and fail it in words and in characters", async () => {
    const rubric = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - { id: long, check: { length: { min: 50, unit: words } }, points: 1 }\n  - { id: chars, check: { length: { min: 200 } }, points: 1 }\n  - { id: short, check: { length: { max: 50 } }, points: 1 }\n");
    const runs = await runHacks(rubric, [{ response: "" }]);
    expect(runs.map((r) => `${r.criterion}/${r.hack}`)).toEqual(["long/length-hidden-padding", "long/length-stylesheet-padding", "chars/length-hidden-padding", "chars/length-stylesheet-padding"]);
    expect(runs.filter((r) => r.error || r.passed)).toEqual([]);
  });

  it("against a min that one word meets (a non-empty gate), length's hacks show nothing: a false alarm before, for \"Yes.\" alone deserves to pass", async () => {
    const rubric = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - { id: non-empty, check: { length: { min: 1, unit: words } }, points: 1 }\n  - { id: some-chars, check: { length: { min: 4 } }, points: 1 }\n");
    const runs = await runHacks(rubric, [{ response: "" }]);
    expect(runs.map((r) => [r.criterion, r.response, r.passed])).toEqual([
      ["non-empty", "<!-- more -->", false],
      ["non-empty", '<style>.more{display:none}</style><span class="more">more </span>', false],
      ["some-chars", "<!-- xxxx-->", false],
      ["some-chars", '<style>.more{display:none}</style><span class="more">xxxx</span>', false],
    ]);
  });

  it("reports the hacks a loose rubric lets through: ROUGE-L alone passes a negated reference", async () => {
    const rubric = parseRubric("id: r\ninputs: [response, reference]\ncriteria:\n  - { id: close, check: { similarity: { reference: '{{reference}}', metric: rouge-l, min: 0.5 } }, points: 1 }\n");
    const tally = hackTally(await runHacks(rubric, [{ reference: "Paris is the capital of France" }, { reference: "Water boils at 100 degrees at sea level" }]));
    expect(tally.find((t) => t.hack === "similarity-negated")).toMatchObject({ criterion: "close", runs: 2, passed: 2, example: "Paris is not the capital of France" });
    // The reference in a comment beside a non-answer is read as a page shows it: held.
    expect(tally.find((t) => t.hack === "similarity-hidden")).toMatchObject({ criterion: "close", runs: 2, passed: 0 });
  });

  it("a pitfall's check is not attacked: a hack deserves the check's no, which on a pitfall spares the penalty, as it should", async () => {
    const rubric = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - { id: polite, check: { contains: please }, points: 1 }\n  - { id: rude, check: { contains: stupid }, points: -2 }\n  - { id: long, check: { length: { min: 50, unit: words } }, points: -1 }\n");
    const runs = await runHacks(rubric, [{ response: "" }]);
    expect([...new Set(runs.map((r) => r.criterion))]).toEqual(["polite"]);
  });

  it("a hack aimed at a tagged section reaches it, and a hack that does not apply to the settings is left out", async () => {
    const rubric = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - { id: only-boxed, check: { final_answer: { format: boxed }, tag: answer }, points: 1 }\n");
    const runs = await runHacks(rubric, [{ response: "" }]);
    expect(runs.map((r) => r.hack)).toEqual(["final-answer-empty-box", "final-answer-blank-box", "final-answer-negated-box", "final-answer-hidden-box"]);
    expect(runs[0].response).toBe("<answer>So the result is \\boxed{ }.</answer>");
  });

  it("reference cases (the shape math/hacks.ts and code/hacks.ts lists plug in through) fill the input the rubric's template names", async () => {
    const hacks = referenceCases<{ expected: unknown }>(
      [
        { id: "one-of-two-roots", description: "one root of two", response: "\\boxed{2}", reference: "x = 1, x = 2" },
        { id: "echo", description: "the reference, hedged", response: (reference) => `either ${reference} or 7` },
      ],
      (spec) => spec.expected,
    );
    expect(hacks[0].build({ expected: "{{answer}}" }, {})).toEqual({ response: "\\boxed{2}", inputs: { answer: "x = 1, x = 2" } });
    expect(hacks[0].build({ expected: "5" }, {})).toBeUndefined(); // a literal reference: the case cannot be aimed
    expect(hacks[1].build({ expected: "{{answer}}" }, { answer: "5" })).toEqual({ response: "either 5 or 7" });
    expect(hacks[1].build({ expected: "{{answer}}" }, {})).toBeUndefined(); // the sample has no reference
  });

  it("probe() runs them beside the attack battery and the markdown report lists them", async () => {
    const rubric = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - { id: layout, check: { tags: { required: [reasoning, answer] } }, points: 1 }\n");
    const result = await probe(rubric, [{ response: "x" }]);
    expect(result.hacks.map((h) => h.hack)).toEqual(["tags-nested", "tags-empty", "tags-invisible", "tags-hidden", "tags-hidden-element", "tags-in-comment", "tags-stylesheet-hidden", "tags-punctuation", "tags-rule", "tags-blank"]);
    expect(result.hacks.every((h) => !h.passed)).toBe(true);
    expect(probeMarkdown(result)).toMatch(/## Check hacks[\s\S]*\| layout \| tags \| tags-nested \|[^\n]*\| 0\/1 \|[^\n]*held/);
  });
});

describe("rubricate probe --hacks-only on the shipped rubrics with code checks", () => {
  it.each([
    // tool-calls-refused: the searched-first criterion's tools called with refused arguments.
    ["agent-tool-use", [["answer-uses-calculation", 8], ["searched-first", 1]]],
    // The math hacks (boxed lists, chains, systems, rounding, percent, several boxes) aimed at the
    // reference, beside the final-answer format hacks.
    ["math-symbolic", [["states-final-answer", 17], ["correct-answer", MATH_HACKS.length]]],
  ] as const)("%s: every hack held (exit 0)", async (name, criteria) => {
    const run = await runCli(["probe", join(ROOT, "rubrics", `${name}.yaml`), fixture(`${name}.jsonl`), "--hacks-only"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    let total = 0;
    for (const [criterion, count] of criteria) {
      expect(run.stdout.match(new RegExp(`^${criterion}\\s+\\S+\\s+0/1\\s+held$`, "gm"))).toHaveLength(count);
      total += count;
    }
    expect(run.stdout).toContain(`check hacks passed: 0 of ${total}`);
  });


  it("--json - writes the JSON to stdout and the table to stderr, as every --json does (a file named \"-\" before)", async () => {
    const cwd = tempDir("rubricate-hacks-json-");
    const run = await runCli(["probe", fixture("loose-similarity.yaml"), fixture("loose-similarity.jsonl"), "--hacks-only", "--json", "-"], { cwd });
    expect(run.code).toBe(4);
    expect(JSON.parse(run.stdout)).toMatchObject({ rubric: { id: expect.any(String) }, samples: 1 });
    expect(run.stderr).toMatch(/^close\s+similarity-negated\s+1\/1\s+PASSES$/m);
    expect(existsSync(join(cwd, "-"))).toBe(false);
  });

  it("exits 4 naming the criterion when a hack passes", async () => {
    const run = await runCli(["probe", fixture("loose-similarity.yaml"), fixture("loose-similarity.jsonl"), "--hacks-only"]);
    expect(run.code).toBe(4);
    expect(run.stdout).toMatch(/^close\s+similarity-negated\s+1\/1\s+PASSES$/m);
  });
});

// The harness-tampering hacks of code/hacks.ts (forged result lines, an always-true __eq__,
// patched assert, reading the tests…) against the shipped code-tests rubric's real tests.
bwrap.describe("rubricate probe --hacks-only on the shipped code-tests rubric", () => {
  it("every tests hack held in the sandbox (exit 0)", async () => {
    const run = await runCli(["probe", join(ROOT, "rubrics", "code-tests.yaml"), fixture("code-tests.jsonl"), "--hacks-only"]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const python = CODE_HACKS.filter((h) => h.language === "python" && !h.sandboxOnly);
    expect(run.stdout.match(/^passes-tests\s+tests-\S+\s+0\/1\s+held$/gm)).toHaveLength(python.length);
    expect(run.stdout).toContain(`check hacks passed: 0 of ${python.length}`);
  }, 300_000);
});
