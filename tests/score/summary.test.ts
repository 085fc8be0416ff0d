import { describe, expect, it } from "vitest";
import { formatSummary, SummaryBuilder } from "../../src/score/summary.js";
import { meanWithInterval } from "../../src/stats/interval.js";
import type { CriterionResult, ScoreResult } from "../../src/types.js";

const v = (id: string, status: CriterionResult["status"]): CriterionResult => ({ id, status, points: 1, earned: status === "met" ? 1 : 0, required: false, source: "check" });
const result = (reward: number | null, verdicts: CriterionResult[], errors: ScoreResult["errors"] = [], passed?: boolean): ScoreResult => ({ reward, verdicts, errors, feedback: "", ...(passed === undefined ? {} : { passed }) });

describe("SummaryBuilder", () => {
  it("counts samples, scored, errors (also when a policy turned them into a reward), pass rate and per-criterion rates", () => {
    const s = new SummaryBuilder();
    s.add(result(1, [v("a", "met"), v("b", "met")], [], true));
    s.add(result(0, [v("a", "unmet"), v("b", "skipped")], [], false));
    s.add(result(null, [v("a", "met"), v("b", "error")], [{ criterion: "b", code: "NO_JUDGE", message: "x" }]));
    s.add(result(0, [v("a", "unmet"), v("b", "error")], [{ criterion: "b", code: "NO_JUDGE", message: "x" }], false));
    const f = s.finish();
    expect(f).toMatchObject({ samples: 4, scored: 3, withErrors: 2, passRate: 1 / 3, errorCodes: { NO_JUDGE: 2 } });
    expect(f.reward?.mean).toBe(1 / 3);
    expect(f.criteria).toEqual([
      { id: "a", asked: 4, met: 2, skipped: 0, errors: 0, passRate: 0.5 },
      { id: "b", asked: 1, met: 1, skipped: 1, errors: 2, passRate: 1 },
    ]);
    const text = formatSummary(f);
    expect(text.split("\n")[0]).toBe("samples 4  scored 3  with errors 2");
    expect(text).toContain("pass rate 33.3%");
    expect(text).toContain("errors: NO_JUDGE ×2");
  });

  it("the reward interval is of the rewards at finish, the same whether read or serialized (it is computed when first read)", () => {
    const s = new SummaryBuilder();
    for (const r of [1, 0, 0.5, 1]) s.add(result(r, []));
    const f = s.finish();
    s.add(result(0, [])); // after finish: not in this summary
    const expected = meanWithInterval([1, 0, 0.5, 1]);
    expect(JSON.parse(JSON.stringify(f)).reward).toEqual(expected);
    expect(f.reward).toEqual(expected);
    expect({ ...f }.reward).toBe(f.reward);
  });

  it("no scored sample: says so instead of a made-up mean", () => {
    const s = new SummaryBuilder();
    s.add(result(null, [], [{ criterion: "*", code: "MISSING_INPUT", message: "x" }]));
    const f = s.finish();
    expect(f.reward).toBeUndefined();
    expect(formatSummary(f)).toContain("mean reward: none (no sample scored)");
  });

  it("one scored sample: its reward without a made-up interval (no \"95% CI 1.000–1.000\")", () => {
    const s = new SummaryBuilder();
    s.add(result(1, [v("a", "met")]));
    const text = formatSummary(s.finish());
    expect(text).toContain("mean reward 1.000  (one sample: no confidence interval)");
    expect(text).not.toContain("95% CI");
    const two = new SummaryBuilder();
    two.add(result(1, [v("a", "met")]));
    two.add(result(0, [v("a", "unmet")]));
    expect(formatSummary(two.finish())).toMatch(/mean reward 0\.500 {2}\(95% CI 0\.000–1\.000\)/);
  });
});
