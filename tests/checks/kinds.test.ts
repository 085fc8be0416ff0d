/**
 * The table of kinds is the one place a kind is declared: a fake kind added to the table (and
 * nowhere else) is accepted by the rubric schema, validated at load, run, linted, allowed or
 * refused per sample by its `pure` flag, probed with its hacks, and listed in the docs table.
 */
import { describe, expect, it, vi } from "vitest";

vi.mock("../../src/checks/kinds.js", async (importOriginal) => {
  const { z } = await import("zod");
  const { RubricateError } = await import("../../src/errors.js");
  const original = await importOriginal<typeof import("../../src/checks/kinds.js")>();
  const Shout = z.strictObject({ word: z.string().min(1) });
  const shout = {
    key: "shout",
    spec: Shout,
    summary: "the text shouts a word (a fake kind for this test)",
    options: { loud: z.boolean().optional() },
    tag: true,
    pure: true,
    validate: (spec: { word: string }) => (spec.word === "forbidden" ? { message: "that word cannot be shouted", path: ["word"] } : undefined),
    lint: (spec: { word: string }) => (spec.word.length < 3 ? [{ rule: "short-shout", severity: "warning" as const, message: "a short word", suggestion: "shout a longer word" }] : []),
    fix: (_spec: unknown, context: { criterionId: string; category: string }) => `shout louder in "${context.criterionId}" (${context.category})`,
    keywords: (spec: { word: string }) => [spec.word.toUpperCase()],
    hacks: [{ id: "whisper", description: "the word in lower case", build: (spec: { word: string }) => ({ response: spec.word.toLowerCase() }) }],
    run(spec: { word: string }, input: { text: string; options: Record<string, unknown> }) {
      if (spec.word === "explode") throw new RubricateError("CHECK_FAILED", "boom");
      const pass = input.text.includes(spec.word.toUpperCase()) && (input.options.loud !== true || input.text.endsWith("!"));
      return { pass, reasoning: pass ? "shouted" : "not shouted" };
    },
  };
  const secret = { ...shout, key: "secret_shout", pure: false, summary: "a fake kind that is not pure" };
  return { ...original, CHECK_KINDS: [...original.CHECK_KINDS, shout, secret] };
});

const { parseRubric } = await import("../../src/rubric/load.js");
const { scoreSample } = await import("../../src/score/score.js");
const { lintRubric } = await import("../../src/rubric/lint.js");
const { refusedSampleCriterion } = await import("../../src/bridge/sample-criteria.js");
const { checkKindsTable } = await import("../../src/checks/docs.js");
const { rubricJsonSchema } = await import("../../src/rubric/json-schema.js");
const { runHacks } = await import("../../src/probe/hacks.js");
const { suggestFix } = await import("../../src/probe/fixes.js");
const { attackVars, probeFields } = await import("../../src/probe/vars.js");

const rubric = (check: string) => parseRubric(`id: r\ninputs: [response]\ncriteria:\n  - { id: c, check: ${check}, points: 1 }\n`, { filename: "fake.yaml" });

describe("a kind added to the table and nowhere else", () => {
  it("is a valid check in the rubric schema, with its options, field and tag; a typo in its settings is located", () => {
    expect(rubric("{ shout: { word: hi }, loud: true, tag: answer }").criteria[0].check).toEqual({ shout: { word: "hi" }, loud: true, tag: "answer" });
    expect(() => rubric("{ shout: { wrd: hi } }")).toThrow(/fake\.yaml:4:.*did you mean "word"/s);
    expect(() => rubric("{ shuot: { word: hi } }")).toThrow(/unknown check kind "shuot".*did you mean "shout"/s);
    const anyOf = JSON.stringify(rubricJsonSchema());
    expect(anyOf).toContain('"shout"');
  });

  it("is validated at load through its own validate, at the path it names", () => {
    expect(() => rubric("{ shout: { word: forbidden } }")).toThrow(/fake\.yaml:4:\d+.*that word cannot be shouted/s);
  });

  it("runs through runCheck, with its options and the shared tag reading", async () => {
    const r = rubric("{ shout: { word: hi }, loud: true, tag: answer }");
    expect((await scoreSample(r, { response: "<answer>HI!</answer>" })).verdicts[0].status).toBe("met");
    expect((await scoreSample(r, { response: "<answer>HI</answer>" })).verdicts[0].status).toBe("unmet");
    expect((await scoreSample(r, { response: "HI! but no tag" })).verdicts[0].status).toBe("unmet");
    const broken = await scoreSample(rubric("{ shout: { word: explode } }"), { response: "x" });
    expect(broken.verdicts[0].status).toBe("error");
  });

  it("brings its own lint findings", () => {
    const findings = lintRubric(rubric("{ shout: { word: hi } }"));
    expect(findings).toContainEqual(expect.objectContaining({ criterion: "c", rule: "short-shout", severity: "warning" }));
  });

  it("is allowed per sample when pure, refused when not", () => {
    const sample = (check: object) => [{ response: "x", criteria: [{ id: "k", check }] }];
    expect(refusedSampleCriterion(sample({ shout: { word: "hi" } }), "checks")).toBeUndefined();
    const refused = refusedSampleCriterion(sample({ secret_shout: { word: "hi" } }), "checks");
    expect(refused?.code).toBe("SAMPLE_CHECK_REFUSED");
    expect(refused?.message).toMatch(/secret_shout/);
    expect(refused?.message).toMatch(/shout/);
  });

  it("has its hacks run by the probe", async () => {
    const runs = await runHacks(rubric("{ shout: { word: hi } }"), [{ response: "" }]);
    expect(runs).toEqual([expect.objectContaining({ criterion: "c", kind: "shout", hack: "whisper", passed: false })]);
  });

  it("gives the probe its fix and its keywords", () => {
    const r = rubric("{ shout: { word: hi } }");
    const attack = { id: "k", category: "keywords" as const, description: "d", deserves_zero: true, template: "" };
    expect(suggestFix(r, attack, r.criteria[0], "keywords")).toBe('shout louder in "c" (keywords)');
    expect(attackVars(r, { response: "x" }, probeFields(r)).check_strings).toBe("HI");
  });

  it("is listed in the docs table with its summary, settings and flags", () => {
    const table = checkKindsTable();
    expect(table).toContain("| `shout` | the text shouts a word (a fake kind for this test) | `word`; beside it: `loud` | yes | yes | 1 |");
    expect(table).toContain("| `secret_shout` | a fake kind that is not pure | `word`; beside it: `loud` | yes | no | 1 |");
  });
});
