import { describe, expect, it } from "vitest";
import { score, scoreSample, scoreStream } from "../../src/score/score.js";
import { RubricateError } from "../../src/errors.js";
import type { Judge, JudgeAnswer, JudgeRequest } from "../../src/judge/types.js";
import { parseRubric } from "../../src/rubric/load.js";
import { emptyUsage, type Sample, type Verdict } from "../../src/types.js";

/** A scripted judge: answers each question with `decide`, records what it was asked. */
function fakeJudge(decide: (question: string, id: string, sample: Sample) => boolean | Error): Judge & { asked: JudgeRequest[] } {
  const asked: JudgeRequest[] = [];
  return {
    id: "fake",
    asked,
    async answer(request): Promise<JudgeAnswer> {
      asked.push(request);
      const verdicts = new Map<string, Verdict | RubricateError>();
      for (const q of request.questions) {
        const answer = decide(q.question, q.id, request.sample);
        verdicts.set(q.id, answer instanceof Error ? (answer as RubricateError) : { pass: answer, source: "llm", reasoning: `judged ${answer}` });
      }
      return { verdicts, usage: { ...emptyUsage(), calls: 1 } };
    },
    usage: emptyUsage,
  };
}

const QUESTIONS = parseRubric(`
id: q
inputs: [question, response]
criteria:
  - id: answers
    question: "Does the response answer <{{question}}> & quote \\"it\\"?"
    points: 3
  - id: cites
    question: Does the response cite a source?
    points: 1
    when: answers
  - id: ok-length
    check: { length: { max: 50 } }
    points: 1
`);

describe("scoreSample with a judge", () => {
  it("renders questions without escaping, asks `when` dependants in a later round, aggregates", async () => {
    const judge = fakeJudge(() => true);
    const r = await scoreSample(QUESTIONS, { question: "is 2 < 3 & 4 > 1", response: "yes" }, { judge });
    expect(judge.asked.map((a) => a.questions.map((q) => q.id))).toEqual([["answers"], ["cites"]]);
    expect(judge.asked[0].questions[0].question).toBe('Does the response answer <is 2 < 3 & 4 > 1> & quote "it"?');
    expect(r.reward).toBe(1);
    expect(r.verdicts.find((v) => v.id === "answers")?.question).toBe('Does the response answer <is 2 < 3 & 4 > 1> & quote "it"?');
    expect(r.usage?.calls).toBe(2);
  });

  it("a failed `when` condition skips its dependant: not asked, not counted", async () => {
    const judge = fakeJudge((_q, id) => id !== "answers");
    const r = await scoreSample(QUESTIONS, { question: "q", response: "yes" }, { judge });
    expect(judge.asked.flatMap((a) => a.questions.map((q) => q.id))).toEqual(["answers"]);
    expect(r.verdicts.find((v) => v.id === "cites")?.status).toBe("skipped");
    expect(r.reward).toBe(1 / 4);
  });

  it("a judge error for one question is an error verdict; the reward is null by default", async () => {
    const judge = fakeJudge((_q, id) => (id === "answers" ? new RubricateError("JUDGE_PARSE", "unreadable") : true));
    const r = await scoreSample(QUESTIONS, { question: "q", response: "yes" }, { judge });
    expect(r.reward).toBeNull();
    expect(r.errors).toEqual([{ criterion: "answers", code: "JUDGE_PARSE", message: "unreadable" }]);
  });

  it("a judge that throws makes every asked question an error (reward null), not a crash", async () => {
    const judge: Judge = { id: "down", usage: emptyUsage, answer: async () => Promise.reject(new RubricateError("PROVIDER_HTTP", "503")) };
    const r = await scoreSample(QUESTIONS, { question: "q", response: "yes" }, { judge });
    expect(r.reward).toBeNull();
    expect(r.errors.map((e) => [e.criterion, e.code])).toEqual([["answers", "PROVIDER_HTTP"]]);
  });
});

describe("no judge", () => {
  it("every LLM criterion is a NO_JUDGE error and the reward is null; code checks still run", async () => {
    const r = await scoreSample(QUESTIONS, { question: "q", response: "yes" });
    expect(r.reward).toBeNull();
    expect(r.errors.map((e) => [e.criterion, e.code])).toEqual([["answers", "NO_JUDGE"]]);
    expect(r.verdicts.find((v) => v.id === "ok-length")?.status).toBe("met");
    // `cites` waits on `answers`, which errored: it is not asked (and not an extra error).
    expect(r.verdicts.find((v) => v.id === "cites")?.status).toBe("skipped");
  });
});

describe("templating at scoring time", () => {
  const rubric = parseRubric(`
id: t
inputs: [meta, response]
criteria:
  - id: lang
    question: Is the response written in {{meta.lang}}?
  - id: ref
    check: { equals: "{{meta.reference}}" }
`);

  it("dotted paths fill from nested inputs", async () => {
    const judge = fakeJudge((q) => q === "Is the response written in French?");
    const r = await scoreSample(rubric, { meta: { lang: "French", reference: "Bonjour" }, response: "bonjour" }, { judge });
    expect(r.reward).toBe(1);
  });

  it("a variable the sample lacks is a TEMPLATE_MISSING_VAR error verdict, never an empty string", async () => {
    const judge = fakeJudge(() => true);
    const r = await scoreSample(rubric, { meta: { reference: "Bonjour" }, response: "bonjour" }, { judge });
    expect(judge.asked).toHaveLength(0);
    expect(r.reward).toBeNull();
    expect(r.errors).toEqual([{ criterion: "lang", code: "TEMPLATE_MISSING_VAR", message: "template variable {{meta.lang}} is not in the sample" }]);
  });

  it("a missing declared input makes the sample an error (MISSING_INPUT)", async () => {
    const r = await scoreSample(rubric, { response: "x" }, { judge: fakeJudge(() => true) });
    expect(r.reward).toBeNull();
    expect(r.errors).toEqual([{ criterion: "*", code: "MISSING_INPUT", message: 'the sample lacks input "meta"' }]);
  });
});

describe("per-sample criteria (HealthBench-style)", () => {
  const rubric = parseRubric(`
id: base
criteria:
  - id: short
    check: { length: { max: 100 } }
    points: 1
`);

  it("are merged after the rubric's and scored with them", async () => {
    const sample = {
      id: "s1",
      response: "Call 911 now.",
      criteria: [
        { id: "emergency", check: { contains: "911" }, points: 5 },
        { id: "dose", check: { regex: "\\d+ ?mg" }, points: -2 },
        { id: "after", check: { contains: "now" }, points: 2, when: "emergency" },
      ],
    };
    const r = await scoreSample(rubric, sample);
    expect(r.id).toBe("s1");
    expect(r.verdicts.map((v) => [v.id, v.status])).toEqual([
      ["short", "met"],
      ["emergency", "met"],
      ["dose", "unmet"],
      ["after", "met"],
    ]);
    expect(r.reward).toBe(1);
    const other = await scoreSample(rubric, { response: "Take 500 mg.", criteria: sample.criteria });
    expect(other.reward).toBe(0); // (1 - 2) / 8 → clipped
    // The rubric itself is unchanged by a sample's criteria.
    expect(rubric.criteria.map((c) => c.id)).toEqual(["short"]);
  });

  it("their questions go to the judge with the rest", async () => {
    const judge = fakeJudge((q) => q.includes("kind"));
    const r = await scoreSample(rubric, { response: "x", criteria: [{ id: "kind", question: "Is it kind?", points: 2 }] }, { judge });
    expect(judge.asked[0].questions.map((q) => q.id)).toEqual(["kind"]);
    expect(r.reward).toBe(1);
  });

  it.each([
    ["not a list", { criteria: { id: "x" } }, "BAD_INPUT", "the sample's `criteria` must be a list of criteria"],
    ["invalid criterion", { criteria: [{ id: "x" }] }, "BAD_INPUT", /^sample criterion 1: /],
    ["unknown key", { criteria: [{ id: "x", question: "Q?", pionts: 1 }] }, "BAD_INPUT", /^sample criterion 1: .*pionts/],
    ["repeats a rubric id", { criteria: [{ id: "short", question: "Q?" }] }, "DUPLICATE_ID", 'sample criterion "short" repeats an id already in the rubric or sample'],
    ["repeats its own id", { criteria: [{ id: "x", question: "Q?" }, { id: "x", question: "R?" }] }, "DUPLICATE_ID", 'sample criterion "x" repeats an id already in the rubric or sample'],
    ["when names nothing", { criteria: [{ id: "x", question: "Q?", when: "nope" }] }, "WHEN_MISSING", 'sample criterion "x" has when: nope, which names no criterion'],
    ["when on itself", { criteria: [{ id: "x", check: { contains: "a" }, when: "x" }] }, "WHEN_CYCLE", "sample criteria form a `when` cycle: x -> x"],
    [
      "when cycle",
      { criteria: [{ id: "x", check: { contains: "a" }, when: "y" }, { id: "y", check: { contains: "a" }, when: "x" }] },
      "WHEN_CYCLE",
      "sample criteria form a `when` cycle: x -> y -> x",
    ],
  ] as const)("an invalid per-sample criterion (%s) makes that sample an error, not the run", async (_name, extra, code, message) => {
    const results = await score(rubric, [{ response: "ok" }, { response: "x", ...(extra as unknown as Sample) }, { response: "fine" }]);
    expect(results.map((r) => r.reward)).toEqual([1, null, 1]);
    expect(results[1].errors).toHaveLength(1);
    expect(results[1].errors[0].criterion).toBe("*");
    expect(results[1].errors[0].code).toBe(code);
    if (typeof message === "string") expect(results[1].errors[0].message).toBe(message);
    else expect(results[1].errors[0].message).toMatch(message);
  });

  it("a rubric file with no criteria of its own loads when it says `criteria_from_samples: true`", async () => {
    expect(() => parseRubric("id: bare\n", { filename: "bare.yaml" })).toThrow(/the rubric has no criteria/);
    const perSample = parseRubric("id: hb\ncriteria_from_samples: true\n", { filename: "hb.yaml" });
    const judge = fakeJudge((q) => q.includes("kind"));
    const results = await score(perSample, [
      { response: "x", criteria: [{ id: "kind", question: "Is it kind?", points: 2 }, { id: "dose", check: { contains: "mg" }, points: 1 }] },
      { response: "y" },
      { response: "z", criteria: [] },
    ], { judge });
    expect(results[0].reward).toBe(2 / 3);
    expect(results.slice(1).map((r) => r.reward)).toEqual([null, null]);
    expect(results[1].errors[0]).toMatchObject({ code: "BAD_INPUT", message: expect.stringMatching(/criteria_from_samples.*no `criteria`/) });
    expect(results[2].errors[0]).toMatchObject({ code: "BAD_INPUT", message: expect.stringMatching(/empty/) });
  });

  it("a per-sample question with no judge is NO_JUDGE", async () => {
    const r = await scoreSample(rubric, { response: "x", criteria: [{ id: "kind", question: "Is it kind?" }] });
    expect(r.errors.map((e) => e.code)).toEqual(["NO_JUDGE"]);
  });
});

describe("score / scoreStream", () => {
  const rubric = parseRubric("id: s\ncriteria:\n  - id: a\n    check: { contains: yes }\n");

  it("results come back in input order with their index, even when later samples finish first", async () => {
    const judge: Judge = {
      id: "slow-first",
      usage: emptyUsage,
      async answer(request) {
        await new Promise((r) => setTimeout(r, request.sample.delay as number));
        return { verdicts: new Map(request.questions.map((q) => [q.id, { pass: true, source: "llm" as const }])), usage: emptyUsage() };
      },
    };
    const withQuestion = parseRubric("id: s\ncriteria:\n  - id: a\n    question: Q?\n");
    const samples = [30, 1, 15, 0].map((delay, i) => ({ id: i, delay, response: "x" }));
    const results = await score(withQuestion, samples, { judge, concurrency: 4 });
    expect(results.map((r) => [r.index, r.id])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it("a slow sample holds back its own slot only: the others go on until `concurrency` scored ones wait behind it", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let scoring = 0;
    let most = 0;
    const asked: number[] = [];
    const judge: Judge = {
      id: "first-is-slow",
      usage: emptyUsage,
      async answer(request) {
        asked.push(request.sample.id as number);
        most = Math.max(most, ++scoring);
        await (request.sample.id === 0 ? gate : new Promise((r) => setImmediate(r)));
        scoring--;
        return { verdicts: new Map(request.questions.map((q) => [q.id, { pass: true, source: "llm" as const }])), usage: emptyUsage() };
      },
    };
    const withQuestion = parseRubric("id: s\ncriteria:\n  - id: a\n    question: Q?\n");
    const samples = Array.from({ length: 10 }, (_, i) => ({ id: i, response: "x" }));
    const run = score(withQuestion, samples, { judge, concurrency: 2 });
    // Sample 0 waits; 1, 2 and 3 are scored beside it, and then 4 waits for it (2 × 2 held). Each
    // of the others takes one event-loop turn, so fifty turns is ample, whatever the machine's load.
    for (let turn = 0; turn < 50; turn++) await new Promise((r) => setImmediate(r));
    expect(asked).toEqual([0, 1, 2, 3]);
    release();
    const results = await run;
    expect(results.map((r) => r.id)).toEqual(samples.map((s) => s.id));
    expect(most).toBe(2);
  });

  it("while the window fills, the first samples' calls go out before every sample's prompt is built", async () => {
    const asked: number[] = [];
    let askedAtFirstTurn: number | undefined;
    const judge: Judge = {
      id: "records-turns",
      usage: emptyUsage,
      async answer(request) {
        // The first call's request would be written in the next turn of the event loop.
        if (asked.push(request.sample.id as number) === 1) setImmediate(() => (askedAtFirstTurn = asked.length));
        await new Promise((r) => setTimeout(r, 1));
        return { verdicts: new Map(request.questions.map((q) => [q.id, { pass: true, source: "llm" as const }])), usage: emptyUsage() };
      },
    };
    const withQuestion = parseRubric("id: s\ncriteria:\n  - id: a\n    question: Q?\n");
    const results = await score(withQuestion, Array.from({ length: 64 }, (_, i) => ({ id: i, response: "x" })), { judge, concurrency: 64 });
    expect(results).toHaveLength(64);
    expect(askedAtFirstTurn).toBeLessThanOrEqual(8);
  });

  it("in completion order, a slow sample comes last and the rest are not held for it", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const judge: Judge = {
      id: "first-is-slow",
      usage: emptyUsage,
      async answer(request) {
        await (request.sample.id === 0 ? gate : new Promise((r) => setImmediate(r)));
        return { verdicts: new Map(request.questions.map((q) => [q.id, { pass: true, source: "llm" as const }])), usage: emptyUsage() };
      },
    };
    const withQuestion = parseRubric("id: s\ncriteria:\n  - id: a\n    question: Q?\n");
    const seen: number[] = [];
    const stream = scoreStream(withQuestion, [0, 1, 2, 3, 4].map((id) => ({ id, response: "x" })), { judge, concurrency: 2, order: "completed" });
    for await (const r of stream) {
      seen.push(r.id as number);
      if (seen.length === 4) release();
    }
    expect(seen).toEqual([1, 2, 3, 4, 0]);
  });

  it("a sample that is not an object is a BAD_INPUT result", async () => {
    const results = [];
    for await (const r of scoreStream(rubric, [{ response: "yes" }, [] as unknown as Sample])) results.push(r);
    expect(results.map((r) => r.reward)).toEqual([1, null]);
    expect(results[1].errors[0].code).toBe("BAD_INPUT");
  });
});

describe("custom checks passed where they are used", () => {
  const rubric = parseRubric(`
id: custom
inputs: [response]
criteria:
  - id: shouts
    check: { custom: loud }
    points: 1
`);
  it("two rubrics scored at once with their own `loud` do not clash, and nothing is left behind", async () => {
    const samples = [{ response: "HI" }, { response: "hi" }];
    const [upper, lower] = await Promise.all([
      score(rubric, samples, { checks: { loud: (t) => t === t.toUpperCase() } }),
      score(rubric, samples, { checks: { loud: (t) => t === t.toLowerCase() } }),
    ]);
    expect(upper.map((r) => r.reward)).toEqual([1, 0]);
    expect(lower.map((r) => r.reward)).toEqual([0, 1]);
    const none = await scoreSample(rubric, samples[0]);
    expect(none.errors.map((e) => e.code)).toEqual(["UNKNOWN_CHECK"]);
  });
});

describe("a check the response made unable to answer (forfeit)", () => {
  const rubric = parseRubric(
    ["id: forfeit", "version: 1", "criteria:", "  - id: answers", "    check: { contains: done }", "    points: 2", "  - id: leaks", "    check: { custom: stuck }", "    points: -2", "  - id: cites", "    check: { custom: stuck }", "    points: 1"].join("\n"),
    { filename: "forfeit.yaml" },
  );
  const stuck = () => ({ pass: false, reasoning: "the response made the pattern backtrack past 1000 ms", forfeit: true });
  const wrong = () => ({ pass: false, reasoning: "no match" });

  it("is unmet for a positive criterion and hit for a pitfall, so the failure earns nothing under any error policy", async () => {
    for (const errors of ["null", "zero", "skip-criterion"] as const) {
      const result = await scoreSample(rubric, { response: "done" }, { checks: { stuck }, errors });
      expect(result.errors).toEqual([]);
      expect(result.verdicts.map((v) => [v.id, v.status])).toEqual([["answers", "met"], ["leaks", "met"], ["cites", "unmet"]]);
      expect(result.verdicts[1].reasoning).toMatch(/backtrack past 1000 ms; a pitfall counts that as hit/);
      expect(result.reward).toBe(0); // (2 − 2) / 3
    }
  });

  it("a plain no stays a no on a pitfall (no penalty)", async () => {
    const result = await scoreSample(rubric, { response: "done" }, { checks: { stuck: wrong } });
    expect(result.verdicts.map((v) => v.status)).toEqual(["met", "unmet", "unmet"]);
    expect(result.reward).toBeCloseTo(2 / 3);
  });

  it("a regex pitfall the response makes backtrack is hit, not escaped", async () => {
    const guarded = parseRubric(["id: guard", "version: 1", "criteria:", "  - id: answers", "    check: { contains: done }", "  - id: pii", "    check: { regex: '(?<!#)[a-z]+@' }", "    points: -1"].join("\n"), { filename: "guard.yaml" });
    const result = await scoreSample(guarded, { response: "done " + "a".repeat(300_000) }, { errors: "null" });
    expect(result.errors).toEqual([]);
    expect(result.verdicts.map((v) => [v.id, v.status])).toEqual([["answers", "met"], ["pii", "met"]]);
    expect(result.reward).toBe(0);
  }, 30_000);
});
