import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLabels } from "../../../src/calibrate/inputs.js";
import type { HumanLabel } from "../../../src/calibrate/inputs.js";
import { openCache } from "../../../src/engine/cache/index.js";
import { createEngine } from "../../../src/engine/engine.js";
import { createJudge } from "../../../src/judge/create.js";
import type { Judge } from "../../../src/judge/types.js";
import { optimize } from "../../../src/optimize/optimize.js";
import { judgeQuestionTarget } from "../../../src/optimize/targets/judge-question.js";
import { questionProblems } from "../../../src/optimize/targets/question-text.js";
import { createReflector } from "../../../src/optimize/targets/reflect.js";
import { rewriteRubricQuestions } from "../../../src/optimize/targets/rubric-rewrite.js";
import { loadRubric, parseRubric } from "../../../src/rubric/load.js";
import type { Rubric } from "../../../src/rubric/schema.js";
import { emptyUsage } from "../../../src/types.js";
import type { TestServer } from "../../../src/testing/servers/common.js";
import { join } from "node:path";
import { BEST_QUESTION, FIXTURES, JUDGE_MODEL, REFLECTOR_MODEL, SEED_QUESTION, WORDINGS, labelsFixture, questionJudge, makeQuestionReflector, readFixture, rubricFixture, startServer } from "./world.js";

let server: TestServer<unknown>;
let rubric: Rubric;
let labels: HumanLabel[];
beforeAll(async () => {
  server = await startServer(questionJudge, makeQuestionReflector());
  rubric = await loadRubric(rubricFixture());
  labels = readLabels(labelsFixture());
});
afterAll(async () => server.close());

function connect(url = server.url) {
  const engine = createEngine({ cache: openCache({ path: false }), limits: { maxConcurrency: 8, maxRetries: 1, timeoutMs: 10_000 } });
  const judge = createJudge({ provider: "openai-compatible", base_url: url, model: JUDGE_MODEL, max_retries: 1 }, { engine });
  const reflectorConfig = { provider: "openai-compatible" as const, base_url: url, model: REFLECTOR_MODEL, max_retries: 1 };
  return { engine, judge, reflectorConfig };
}

describe("judge-question target: data", () => {
  it("one component per criterion, a valset balanced by label, ties left out", () => {
    const { engine, judge } = connect();
    const t = judgeQuestionTarget({ rubric, labels, judge, criteria: ["cites-source"] });
    expect(t.seed).toEqual({ "cites-source": SEED_QUESTION });
    const yes = t.valset.filter((i) => i.label).length;
    expect(yes).toBe(4);
    expect(t.valset).toHaveLength(8);
    expect(t.trainset).toHaveLength(15); // 23 items (the tied one dropped) minus 8
    const ids = [...t.trainset, ...t.valset].map((i) => i.id);
    expect(new Set(ids).size).toBe(23);
    expect(ids).not.toContain("s23/cites-source");
    expect(t.warnings.join("\n")).toMatch(/1 item\(s\) left out/);
    // Majorities: s00 is YES (2 of 3), s08 is NO (2 of 3).
    const all = [...t.trainset, ...t.valset];
    expect(all.find((i) => i.sampleId === "s00")!.label).toBe(true);
    expect(all.find((i) => i.sampleId === "s08")!.label).toBe(false);
    engine.close();
  });

  it("shows the reflector only the rewritten criterion's items: none for another criterion (the proposal is then skipped)", () => {
    const { engine, judge } = connect();
    const t = judgeQuestionTarget({ rubric, labels, judge, criteria: ["cites-source"] });
    const instances = t.trainset.slice(0, 3);
    const result = { scores: [1, 0, 1], feedback: ["ok", "humans: YES, judge: NO", "ok"], traces: ["judge: YES", "judge: NO", "judge: YES"] };
    expect(t.makeReflectiveDataset({ candidate: t.seed, component: "cites-source", instances, result })).toHaveLength(3);
    expect(t.makeReflectiveDataset({ candidate: t.seed, component: "other-criterion", instances, result })).toEqual([]);
    engine.close();
  });

  it("defaults to every labelled question criterion and refuses unknown or code criteria", () => {
    const { engine, judge } = connect();
    expect(Object.keys(judgeQuestionTarget({ rubric, labels, judge }).seed)).toEqual(["cites-source"]);
    expect(() => judgeQuestionTarget({ rubric, labels, judge, criteria: ["nope"] })).toThrow(/no criterion "nope"/);
    expect(() => judgeQuestionTarget({ rubric, labels, judge, criteria: ["is-brief"] })).toThrow(/no labelled items/);
    engine.close();
  });

  it("warns when every label is the same and the valset cannot be balanced", () => {
    const { engine, judge } = connect();
    const allNo = labels.filter((l) => !l.label);
    const t = judgeQuestionTarget({ rubric, labels: allNo, judge });
    expect(t.warnings.join("\n")).toMatch(/every label is NO/);
    expect(t.valset.every((i) => !i.label)).toBe(true);
    engine.close();
  });
});

describe("judge-question target: evaluation", () => {
  it("scores agreement and explains each disagreement with the judge's reasoning", async () => {
    const { engine, judge } = connect();
    const t = judgeQuestionTarget({ rubric, labels, judge });
    const items = [...t.trainset, ...t.valset];
    const studies = items.find((i) => String(i.sample.response).startsWith("Studies show"))!;
    const named = items.find((i) => String(i.sample.response).startsWith("According to Dr."))!;
    const out = await t.evaluate(t.seed, [studies, named], { captureTraces: true });
    expect(out.scores).toEqual([0, 1]);
    expect(out.feedback![0]).toBe("humans: NO, judge: YES — it says 'studies show', which is evidence");
    expect(out.feedback![1]).toBe("agrees with the experts: humans YES, judge YES");
    expect(out.traces![0]).toMatch(/^judge: YES — /);
    const fixed = await t.evaluate({ "cites-source": WORDINGS.named }, [studies], { captureTraces: false });
    expect(fixed.scores).toEqual([1]);
    expect(fixed.traces).toBeUndefined();
    engine.close();
  });

  it("a re-asked wording costs no judge call", async () => {
    const { engine, judge } = connect();
    const t = judgeQuestionTarget({ rubric, labels, judge });
    await t.evaluate(t.seed, t.valset, { captureTraces: false });
    const before = server.requests.length;
    await t.evaluate(t.seed, t.valset, { captureTraces: true });
    expect(server.requests.length).toBe(before);
    engine.close();
  });

  it("scores 1 − |P(yes) − label| when the judge gives a probability", async () => {
    const judge: Judge = {
      id: "fake",
      usage: emptyUsage,
      answer: async (req) => ({ verdicts: new Map(req.questions.map((q) => [q.id, { pass: true, probability: 0.8, source: "llm" as const, reasoning: "likely" }])), usage: emptyUsage() }),
    };
    const t = judgeQuestionTarget({ rubric, labels, judge });
    const yes = t.valset.find((i) => i.label)!;
    const no = t.valset.find((i) => !i.label)!;
    const out = await t.evaluate(t.seed, [yes, no], { captureTraces: false });
    expect(out.scores[0]).toBeCloseTo(0.8);
    expect(out.scores[1]).toBeCloseTo(0.2);
    expect(out.feedback![1]).toBe("humans: NO, judge: YES (P(yes) 0.80) — likely");
    const plain = judgeQuestionTarget({ rubric, labels, judge, useProbability: false });
    expect((await plain.evaluate(plain.seed, [yes, no], { captureTraces: false })).scores).toEqual([1, 0]);
  });

  it("a judge error fails the evaluation instead of counting as a disagreement", async () => {
    const { RubricateError } = await import("../../../src/errors.js");
    const judge: Judge = {
      id: "broken",
      usage: emptyUsage,
      answer: async (req) => ({ verdicts: new Map(req.questions.map((q) => [q.id, new RubricateError("PROVIDER_HTTP", "HTTP 500")])), usage: emptyUsage() }),
    };
    const t = judgeQuestionTarget({ rubric, labels, judge });
    await expect(t.evaluate(t.seed, t.valset.slice(0, 1), { captureTraces: false })).rejects.toMatchObject({ code: "PROVIDER_HTTP", message: expect.stringMatching(/no verdict/) });
  });
});

describe("judge-question target: several criteria", () => {
  it("asks each item its own criterion's candidate question and reflects only on that criterion's items", async () => {
    const asked: string[] = [];
    const judge: Judge = {
      id: "recording",
      usage: emptyUsage,
      answer: async (req) => {
        asked.push(...req.questions.map((q) => `${q.id}=${q.question}`));
        return { verdicts: new Map(req.questions.map((q) => [q.id, { pass: false, source: "llm" as const }])), usage: emptyUsage() };
      },
    };
    const brief = labels.filter((l) => l.criterion === "cites-source").map((l) => ({ ...l, criterion: "is-brief", label: String(l.sample?.response).length < 50 }));
    const t = judgeQuestionTarget({ rubric, labels: [...labels, ...brief], judge });
    expect(Object.keys(t.seed)).toEqual(["cites-source", "is-brief"]);
    const a = t.trainset.find((i) => i.criterion === "cites-source")!;
    const b = t.trainset.find((i) => i.criterion === "is-brief")!;
    const candidate = { "cites-source": "Does it name a source?", "is-brief": "Is it under 50 characters?" };
    const result = await t.evaluate(candidate, [a, b], { captureTraces: true });
    expect(asked).toEqual(["cites-source=Does it name a source?", "is-brief=Is it under 50 characters?"]);
    const rows = t.makeReflectiveDataset({ candidate, component: "is-brief", instances: [a, b], result: { ...result, traces: result.traces ?? [], feedback: result.feedback ?? [] } });
    expect(rows.map((r) => r.input.id)).toEqual([b.id]);
    expect(t.rubricWith(candidate).criteria.map((c) => c.question)).toEqual(["Does it name a source?", "Is it under 50 characters?"]);
  });
});

describe("judge-question target: GEPA over the wire", () => {
  it("rewords the question until the judge agrees with every expert label, refusing vague rewrites", async () => {
    for (const rngSeed of [0, 1, 2]) {
      const fresh = await startServer(questionJudge, makeQuestionReflector());
      const { engine, judge, reflectorConfig } = connect(fresh.url);
      const t = judgeQuestionTarget({ rubric, labels, judge, splitSeed: rngSeed });
      const reflector = createReflector(reflectorConfig, { engine, prompt: t.reflectionPrompt });
      const result = await optimize({ ...t, reflect: reflector.reflect, budget: 150, rngSeed, onWarning: () => {} });
      expect(result.candidates[0].meanScore).toBeLessThan(1);
      expect(result.best.meanScore).toBe(1);
      expect(result.best.candidate["cites-source"]).toBe(BEST_QUESTION);
      expect(result.budget.metricCalls).toBeLessThanOrEqual(150);
      expect(result.candidates.every((c) => !c.candidate["cites-source"].includes("good"))).toBe(true);
      const invalid = result.failedProposals.filter((f) => f.reason === "invalid");
      expect(invalid.length).toBeGreaterThan(0);
      for (const f of invalid) expect(f.detail).toMatch(/^vague-word: "good" has no standard/);
      const rewritten = parseRubric(rewriteRubricQuestions(readFixture("cites-source.yaml"), result.best.candidate), { filename: "r.yaml" });
      expect(rewritten.criteria.find((c) => c.id === "cites-source")!.question).toBe(BEST_QUESTION);
      engine.close();
      await fresh.close();
    }
  });

  it("the reflection prompt shows the sample, the expert label and the judge's answer", () => {
    const { engine, judge } = connect();
    const t = judgeQuestionTarget({ rubric, labels, judge });
    const item = t.trainset.find((i) => !i.label)!;
    const text = t.reflectionPrompt({ candidate: t.seed, component: "cites-source", reflectiveDataset: [{ input: item, output: "judge: YES — x", score: 0, feedback: "humans: NO, judge: YES — x" }] });
    expect(text).toContain(`### response\n${item.sample.response}`);
    expect(text).toContain("### Expert label\nNO");
    expect(text).toContain("### Output\njudge: YES — x");
    expect(text).toContain("Rewrite this yes/no judge question so a judge agrees with the expert labels");
    expect(text).toContain("```\n" + SEED_QUESTION + "\n```");
    engine.close();
  });
});

describe("question checks and rubric rewriting", () => {
  const ctx = { inputs: ["question", "response"], previous: "Does the response give a clear answer?" };
  it("accepts a plain binary question", () => {
    expect(questionProblems("Does the response name a source for {{question}}?", ctx)).toEqual([]);
    expect(questionProblems("Is the answer clear?", ctx)).toEqual([]); // "clear" was already there
  });
  it("refuses several questions, no question mark, unknown variables, lint errors, new lint warnings, several lines", () => {
    expect(questionProblems("Is it short? Is it kind?", ctx)).toEqual(["one question, not several"]);
    const statement = questionProblems("The response is short.", ctx);
    expect(statement[0]).toBe('a question ends with "?"');
    expect(statement[1]).toMatch(/^not-yes-no: /);
    expect(questionProblems("Does it mention {{user}}?", ctx)[0]).toMatch(/\{\{user\}\} is not a rubric input/);
    expect(questionProblems("Is the response good?", ctx)).toEqual([expect.stringMatching(/^vague-word: "good"/)]);
    expect(questionProblems("Is the response good?", { inputs: ["response"], previous: "Is the response good for a child?" })).toEqual([]);
    expect(questionProblems("Is it\nshort?", ctx)).toContain("a question is one line");
  });
  it("rewrites only the named questions, keeps comments and bumps a numeric version", () => {
    const yaml = "# top\nid: r\ncriteria:\n  # the one\n  - id: a\n    question: Old?\n    version: 2\n  - id: b\n    question: Other?\n";
    const out = rewriteRubricQuestions(yaml, { a: "New?" });
    expect(out).toContain("# top");
    expect(out).toContain("# the one");
    expect(out).toContain("question: New?");
    expect(out).toContain("version: 3");
    expect(out).toContain("question: Other?");
    expect(() => rewriteRubricQuestions(yaml, { c: "X?" })).toThrow(/does not itself define criteria c/);
  });
});

describe("judge-question target on LLMBar items", () => {
  // A judge with a length bias: it prefers the longer output unless the question asks which one
  // follows the instruction, which it then answers like the LLMBar gold label.
  const labelsPath = join(FIXTURES, "llmbar-natural.labels.jsonl");
  const FOLLOWS = "Does output 1 follow the instruction in the input more closely than output 2 does?";
  it("moves the question off the judge's length bias to what the humans judged", async () => {
    const llmbar = readLabels(labelsPath);
    const gold = new Map(llmbar.map((l) => [`${l.sample!.input}\u0000${l.sample!.output_1}`, l.label]));
    const judge = (q: { question: string }, view: { sample: string }) => {
      const m = /### input\n([\s\S]*?)\n\n### output_1\n([\s\S]*?)\n\n### output_2\n([\s\S]*)$/.exec(view.sample)!;
      if (/follow the instruction/.test(q.question)) {
        const verdict = gold.get(`${m[1]}\u0000${m[2]}`)!;
        return { verdict, reason: `output ${verdict ? 1 : 2} follows the instruction more closely` };
      }
      const verdict = m[2].length > m[3].length;
      return { verdict, reason: `output ${verdict ? 1 : 2} is longer and more detailed` };
    };
    const reflect = (prompt: string) => (/judge: (YES|NO) — output \d is longer/.test(prompt) ? "```\n" + FOLLOWS + "\n```" : "```\nIs output 1 better than output 2?\n```");
    const srv = await startServer(judge, reflect);
    try {
      const { engine, judge: llm, reflectorConfig } = connect(srv.url);
      const t = judgeQuestionTarget({ rubric: await loadRubric(join(FIXTURES, "llmbar-pairwise.yaml")), labels: llmbar, judge: llm });
      expect(t.valset.filter((i) => i.label)).toHaveLength(4);
      expect(t.valset).toHaveLength(8);
      const reflector = createReflector(reflectorConfig, { engine, prompt: t.reflectionPrompt });
      const result = await optimize({ ...t, reflect: reflector.reflect, budget: 80, onWarning: () => {} });
      expect(result.candidates[0].meanScore).toBeLessThan(1);
      expect(result.best.candidate["output-1-better"]).toBe(FOLLOWS);
      expect(result.best.meanScore).toBe(1);
      engine.close();
    } finally {
      await srv.close();
    }
  });
});
