import { describe, expect, it } from "vitest";
import { calibrate } from "../../src/calibrate/calibrate.js";
import { labelledSamples, scoreLabelled } from "../../src/calibrate/judge.js";
import type { Judge } from "../../src/judge/types.js";
import { parseRubric } from "../../src/rubric/load.js";
import { emptyUsage } from "../../src/types.js";

const rubric = parseRubric(
  ["id: greet", "version: 1", "inputs: [response]", "criteria:", "  - id: polite", "    question: Is the response polite?", "    points: 1", "  - id: short", "    check: { length: { max: 10 } }", "    points: 1"].join("\n"),
);

/** A scripted judge: "yes" when the response contains "please"; costs a cent per sample. */
function scriptedJudge(): Judge {
  const usage = emptyUsage();
  return {
    id: "scripted",
    async answer(req) {
      usage.calls++;
      usage.costUsd += 0.01;
      const yes = String(req.sample.response).includes("please");
      return {
        verdicts: new Map(req.questions.map((q) => [q.id, { pass: yes, probability: yes ? 0.9 : 0.2, reasoning: yes ? "says please" : "no please", source: "llm" as const }])),
        usage: { ...emptyUsage(), calls: 1, costUsd: 0.01 },
      };
    },
    usage: () => ({ ...usage }),
  };
}

const labels = [
  { sampleId: "a", criterion: "polite", label: true, sample: { response: "please sit down" } },
  { sampleId: "b", criterion: "polite", label: true, sample: { response: "sit down now" } },
  { sampleId: "c", criterion: "polite", label: false, sample: { response: "go away" } },
  { sampleId: "a", criterion: "short", label: true },
];

describe("scoring the labelled samples now (the --judge seam)", () => {
  it("collects distinct samples with their ids, and requires inputs", () => {
    expect(labelledSamples(labels).map((s) => s.id)).toEqual(["a", "b", "c"]);
    expect(() => labelledSamples([{ sampleId: "z", criterion: "c", label: true }])).toThrow(/no `sample` inputs/);
  });
  it("scores through score() and calibrates the verdicts", async () => {
    const set = await scoreLabelled(rubric, labels, scriptedJudge());
    expect(set.judge).toBe("scripted");
    expect(set.costUsd).toBeCloseTo(0.03, 12);
    const polite = set.verdicts.filter((v) => v.criterion === "polite");
    expect(polite.map((v) => [v.sampleId, v.status, v.probability])).toEqual([["a", "met", 0.9], ["b", "unmet", 0.2], ["c", "unmet", 0.2]]);
    expect(set.verdicts.find((v) => v.criterion === "short" && v.sampleId === "a")?.status).toBe("unmet");
    const r = calibrate({ labels, verdicts: set, resamples: 50 });
    const c = r.criteria.find((x) => x.criterion === "polite")!;
    expect(c.confusion).toEqual({ tp: 1, fp: 0, tn: 1, fn: 1 });
    expect(c.disagreements[0]).toMatchObject({ sampleId: "b", reasoning: "no please" });
    expect(r.unlabelledVerdicts).toBe(2); // "short" for b and c has no label
  });
});
