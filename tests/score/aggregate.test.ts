import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RubricateError } from "../../src/errors.js";
import { aggregate, type ErrorPolicy, type Outcome } from "../../src/score/aggregate.js";
import type { Criterion, Scoring } from "../../src/rubric/schema.js";

type Spec = { id: string; points?: number; required?: boolean; weight?: number; question?: string };
/** "error": one of the machinery (a judge that timed out); "refused", "unreadable": ones the response can cause. */
type Answer = boolean | "skip" | "error" | "refused" | "unreadable";

function criteria(specs: Spec[]): Criterion[] {
  return specs.map((s) => ({ id: s.id, question: s.question ?? `Is ${s.id} true?`, points: s.points ?? 1, required: s.required ?? false, weight: s.weight }));
}

function outcomes(answers: Record<string, Answer>): Map<string, Outcome> {
  const map = new Map<string, Outcome>();
  for (const [id, a] of Object.entries(answers)) {
    if (a === "skip") map.set(id, { skipped: "asked only when x is met" });
    else if (a === "error") map.set(id, { error: new RubricateError("PROVIDER_TIMEOUT", `no answer for ${id}`) });
    else if (a === "refused") map.set(id, { error: new RubricateError("JUDGE_REFUSAL", `the judge refused to answer about ${id}`) });
    else if (a === "unreadable") map.set(id, { error: new RubricateError("JUDGE_PARSE", `no readable answer for ${id}`) });
    else map.set(id, { verdict: { pass: a, source: "llm", reasoning: a ? "it does" : "it does not" } });
  }
  return map;
}

function run(specs: Spec[], answers: Record<string, Answer>, scoring: Partial<Scoring> = {}, errors?: ErrorPolicy) {
  return aggregate(criteria(specs), outcomes(answers), { method: "points", ...scoring }, { errors });
}

describe("points (HealthBench)", () => {
  it("Σ points met ÷ Σ positive points", () => {
    const specs = [{ id: "a", points: 5 }, { id: "b", points: 3 }, { id: "c", points: 2 }];
    expect(run(specs, { a: true, b: false, c: true }).reward).toBe(7 / 10);
    expect(run(specs, { a: false, b: false, c: false }).reward).toBe(0);
    expect(run(specs, { a: true, b: true, c: true }).reward).toBe(1);
  });

  it("a met pitfall subtracts its points; an unmet one costs nothing; the reward is clipped at 0", () => {
    const specs = [{ id: "a", points: 5 }, { id: "b", points: 5 }, { id: "bad", points: -4 }];
    expect(run(specs, { a: true, b: true, bad: false }).reward).toBe(1);
    expect(run(specs, { a: true, b: true, bad: true }).reward).toBe(6 / 10);
    expect(run(specs, { a: true, b: false, bad: true }).reward).toBe(1 / 10);
    expect(run(specs, { a: false, b: false, bad: true }).reward).toBe(0);
    const r = run(specs, { a: true, b: false, bad: true });
    expect(r.verdicts.map((v) => [v.id, v.status, v.earned])).toEqual([
      ["a", "met", 5],
      ["b", "unmet", 0],
      ["bad", "met", -4],
    ]);
  });
});

describe("mean, all, weighted", () => {
  const specs = [{ id: "a", weight: 3 }, { id: "b", weight: 1 }, { id: "pit", points: -2, weight: 2 }];

  it("mean: share of good criteria (an unmet pitfall is good)", () => {
    expect(run(specs, { a: true, b: false, pit: false }, { method: "mean" }).reward).toBe(2 / 3);
    expect(run(specs, { a: true, b: false, pit: true }, { method: "mean" }).reward).toBe(1 / 3);
  });

  it("all: 1 only when every criterion is good", () => {
    expect(run(specs, { a: true, b: true, pit: false }, { method: "all" }).reward).toBe(1);
    expect(run(specs, { a: true, b: true, pit: true }, { method: "all" }).reward).toBe(0);
    expect(run(specs, { a: true, b: false, pit: false }, { method: "all" }).reward).toBe(0);
  });

  it("weighted: weights of good criteria ÷ all weights (default weight 1)", () => {
    expect(run(specs, { a: true, b: false, pit: false }, { method: "weighted" }).reward).toBe(5 / 6);
    expect(run(specs, { a: false, b: true, pit: true }, { method: "weighted" }).reward).toBe(1 / 6);
    expect(run([{ id: "x" }, { id: "y", weight: 3 }], { x: true, y: false }, { method: "weighted" }).reward).toBe(1 / 4);
  });
});

describe("required gates", () => {
  it("a failed required criterion makes the reward 0 and says so", () => {
    const specs = [{ id: "gate", points: 1, required: true }, { id: "b", points: 9 }];
    const r = run(specs, { gate: false, b: true });
    expect(r.reward).toBe(0);
    expect(r.gated).toBe(true);
    expect(r.feedback.split("\n")[0]).toBe("reward 0.000 (a required criterion failed)");
    expect(r.feedback).toContain("- FAILED (required) gate (+1 pts): Is gate true? — it does not");
    const ok = run(specs, { gate: true, b: true });
    expect(ok.reward).toBe(1);
    expect(ok.gated).toBeUndefined();
  });

  it("a required pitfall gates when it is met", () => {
    const specs = [{ id: "a", points: 4 }, { id: "leak", points: -1, required: true }];
    expect(run(specs, { a: true, leak: true }).reward).toBe(0);
    expect(run(specs, { a: true, leak: true }).gated).toBe(true);
    expect(run(specs, { a: true, leak: false }).reward).toBe(1);
  });

  it("gates every method", () => {
    for (const method of ["mean", "all", "weighted"] as const) {
      expect(run([{ id: "g", required: true }, { id: "b" }], { g: false, b: true }, { method }).reward).toBe(0);
    }
  });

  it("a skipped required criterion does not gate", () => {
    expect(run([{ id: "a" }, { id: "g", required: true }], { a: true, g: "skip" }).reward).toBe(1);
  });
});

describe("when-skipped criteria are neither met nor counted", () => {
  it("drops out of numerator and denominator for every method", () => {
    const specs = [{ id: "a", points: 2 }, { id: "b", points: 2 }, { id: "dep", points: 6 }];
    const r = run(specs, { a: true, b: false, dep: "skip" });
    expect(r.reward).toBe(2 / 4);
    const dep = r.verdicts.find((v) => v.id === "dep")!;
    expect(dep).toMatchObject({ status: "skipped", earned: 0, reasoning: "asked only when x is met" });
    expect(run(specs, { a: true, b: false, dep: "skip" }, { method: "mean" }).reward).toBe(1 / 2);
    expect(run(specs, { a: true, b: true, dep: "skip" }, { method: "all" }).reward).toBe(1);
    expect(r.feedback).not.toContain("dep");
  });

  it("a skipped pitfall costs nothing", () => {
    expect(run([{ id: "a", points: 2 }, { id: "pit", points: -2 }], { a: true, pit: "skip" }).reward).toBe(1);
  });
});

describe("pass_threshold", () => {
  const specs = [{ id: "a", points: 3 }, { id: "b", points: 1 }];
  it("passed is reward ≥ threshold; absent without a threshold; null without a reward", () => {
    expect(run(specs, { a: true, b: false }, { pass_threshold: 0.75 }).passed).toBe(true);
    expect(run(specs, { a: false, b: true }, { pass_threshold: 0.75 }).passed).toBe(false);
    expect("passed" in run(specs, { a: true, b: false })).toBe(false);
    expect(run(specs, { a: "error", b: true }, { pass_threshold: 0.5 }).passed).toBeNull();
  });
});

describe("error policies", () => {
  const specs = [{ id: "a", points: 2 }, { id: "b", points: 2 }, { id: "c", points: 4 }];
  const answers: Record<string, Answer> = { a: true, b: false, c: "error" };

  it("default (null): no reward, errors listed, feedback says the reward is withheld", () => {
    const r = run(specs, answers);
    expect(r.reward).toBeNull();
    expect(r.errors).toEqual([{ criterion: "c", code: "PROVIDER_TIMEOUT", message: "no answer for c" }]);
    expect(r.verdicts.find((v) => v.id === "c")).toMatchObject({ status: "error", earned: 0, error: { code: "PROVIDER_TIMEOUT", message: "no answer for c" } });
    expect(r.feedback).toBe(["no reward (errors)", "- FAILED b (+2 pts): Is b true? — it does not", "- ERROR c [PROVIDER_TIMEOUT] (reward withheld): no answer for c"].join("\n"));
  });

  it("zero: the reward is 0, errors still listed", () => {
    const r = run(specs, answers, {}, "zero");
    expect(r.reward).toBe(0);
    expect(r.errors).toHaveLength(1);
    expect(r.feedback).toContain("- ERROR c [PROVIDER_TIMEOUT] (reward set to 0): no answer for c");
  });

  it("skip-criterion: the errored criterion counts in neither sum", () => {
    const r = run(specs, answers, {}, "skip-criterion");
    expect(r.reward).toBe(2 / 4);
    expect(r.errors).toHaveLength(1);
    expect(r.feedback).toContain("- ERROR c [PROVIDER_TIMEOUT] (not counted): no answer for c");
  });

  it("skip-criterion does not leave out an error the response can cause (a judge that refused it, or whose answers stayed unreadable): the reward is withheld, so a response cannot drop the criteria it fails by derailing the judge", () => {
    for (const caused of ["refused", "unreadable"] as const) {
      const r = run(specs, { a: true, b: false, c: caused }, {}, "skip-criterion");
      expect(r.reward).toBeNull();
      expect(r.feedback).toMatch(/- ERROR c \[JUDGE_(REFUSAL|PARSE)\] \(reward withheld: the response may have caused it\)/);
      // Beside an error of the machinery too; and `zero` still gives 0.
      expect(run(specs, { a: true, b: "error", c: caused }, {}, "skip-criterion").reward).toBeNull();
      expect(run(specs, { a: true, b: false, c: caused }, {}, "zero").reward).toBe(0);
    }
  });

  it("skip-criterion: a sample whose every criterion errored has no reward (null), not 0", () => {
    const two = [{ id: "a", points: 2 }, { id: "b", points: 3 }];
    for (const method of ["points", "mean", "all", "weighted"] as const) {
      const r = run(two, { a: "error", b: "error" }, { method }, "skip-criterion");
      expect(r.reward).toBeNull();
      expect(r.passed === undefined || r.passed === null).toBe(true);
      expect(r.errors).toHaveLength(2);
    }
    // Only a pitfall left answered: nothing positive to earn, so still no reward.
    expect(run([{ id: "a", points: 2 }, { id: "bad", points: -1 }], { a: "error", bad: false }, {}, "skip-criterion").reward).toBeNull();
    // Errors beside a `when`-skipped criterion: nothing measured either.
    expect(run(two, { a: "error", b: "skip" }, {}, "skip-criterion").reward).toBeNull();
    // Without errors an empty measure stays 0, as before.
    expect(run(two, { a: "skip", b: "skip" }, {}, "skip-criterion").reward).toBe(0);
  });

  it("a criterion with no outcome at all is an INTERNAL error, not a 'no'", () => {
    const r = aggregate(criteria([{ id: "a" }, { id: "b" }]), outcomes({ a: true }), { method: "points" });
    expect(r.reward).toBeNull();
    expect(r.errors).toEqual([{ criterion: "b", code: "INTERNAL", message: "criterion was never evaluated" }]);
  });
});

describe("feedback", () => {
  it("every criterion met", () => {
    expect(run([{ id: "a" }], { a: true }).feedback).toBe("reward 1.000: every criterion met.");
  });

  it("lists failed criteria and met pitfalls with points, question and reasoning, and nothing that went well", () => {
    const specs = [{ id: "cites", points: 2, question: "Does it cite a source?" }, { id: "kind", points: 1 }, { id: "dose", points: -3, question: "Does it invent a dose?" }];
    const r = run(specs, { cites: false, kind: true, dose: true });
    expect(r.reward).toBe(0);
    expect(r.feedback).toBe(["reward 0.000", "- FAILED cites (+2 pts): Does it cite a source? — it does not", "- PITFALL dose (-3 pts): Does it invent a dose? — it does"].join("\n"));
  });

  it("uses the rendered question when given, and names code checks", () => {
    const crits: Criterion[] = [
      { id: "q", question: "Is {{name}} right?", points: 1, required: false },
      { id: "c", check: { contains: "x" }, points: 1, required: false },
    ];
    const r = aggregate(crits, new Map<string, Outcome>([["q", { verdict: { pass: false, source: "llm" } }], ["c", { verdict: { pass: false, source: "check", reasoning: 'missing "x"' } }]]), { method: "points" }, { questions: new Map([["q", "Is Ada right?"]]) });
    expect(r.verdicts[0].question).toBe("Is Ada right?");
    expect(r.verdicts[1].source).toBe("check");
    expect(r.feedback).toBe(["reward 0.000", "- FAILED q (+1 pts): Is Ada right?", '- FAILED c (+1 pts): code check — missing "x"'].join("\n"));
  });
});

// ---- properties ----

const specArb = fc.record({ points: fc.integer({ min: -10, max: 10 }), required: fc.constant(false), answer: fc.constantFrom<Answer>(true, false, "skip") });
const specsArb = fc.array(specArb, { minLength: 1, maxLength: 12 });

function pointsReward(list: { points: number; answer: Answer }[]): number {
  const specs = list.map((s, i) => ({ id: `c${i}`, points: s.points }));
  const answers = Object.fromEntries(list.map((s, i) => [`c${i}`, s.answer]));
  const r = run(specs, answers);
  expect(r.reward).not.toBeNull();
  return r.reward!;
}

describe("points properties (fast-check)", () => {
  it("the reward is always in [0, 1]", () => {
    fc.assert(
      fc.property(specsArb, fc.boolean(), (list, withGate) => {
        const specs = list.map((s, i) => ({ id: `c${i}`, points: s.points, required: withGate && i === 0 }));
        const r = run(specs, Object.fromEntries(list.map((s, i) => [`c${i}`, s.answer])));
        expect(r.reward).not.toBeNull();
        expect(r.reward!).toBeGreaterThanOrEqual(0);
        expect(r.reward!).toBeLessThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });

  it("adding a met positive-points criterion never lowers the reward", () => {
    fc.assert(
      fc.property(specsArb, fc.integer({ min: 1, max: 10 }), (list, extra) => {
        const before = pointsReward(list);
        const after = pointsReward([...list, { points: extra, answer: true }]);
        expect(after).toBeGreaterThanOrEqual(before - 1e-12);
      }),
      { numRuns: 500 },
    );
  });

  it("meeting a negative-points criterion never raises the reward (added met, or flipped from unmet)", () => {
    fc.assert(
      fc.property(specsArb, fc.integer({ min: -10, max: -1 }), (list, penalty) => {
        const before = pointsReward(list);
        expect(pointsReward([...list, { points: penalty, answer: true }])).toBeLessThanOrEqual(before + 1e-12);
        const withUnmet = pointsReward([...list, { points: penalty, answer: false }]);
        expect(withUnmet).toBe(before);
        expect(pointsReward([...list, { points: penalty, answer: true }])).toBeLessThanOrEqual(withUnmet + 1e-12);
      }),
      { numRuns: 500 },
    );
  });

  it("a mutation-sensitive check: a met positive criterion in a non-trivial rubric can raise the reward", () => {
    // Guards the properties above against a constant reward: they must be able to fail.
    expect(pointsReward([{ points: 2, answer: false }])).toBe(0);
    expect(pointsReward([{ points: 2, answer: false }, { points: 2, answer: true }])).toBe(0.5);
  });
});
