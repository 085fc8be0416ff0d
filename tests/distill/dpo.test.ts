import { describe, expect, it } from "vitest";
import { chatRow, distillRows } from "./helpers.js";

const pairOf = (l: Record<string, any>) => [l.chosen[0].content, l.rejected[0].content];

describe("preference pairs: best against worst per prompt, above the margin", () => {
  it("chosen is the best row passing the filters, rejected the worst scored row", async () => {
    const rows = [chatRow("a", "mid", 0.5), chatRow("a", "best", 0.9), chatRow("a", "worst", 0.1), chatRow("a", "broken", null)];
    const { lines, report } = await distillRows(rows, {}, "dpo");
    expect(lines.map(pairOf)).toEqual([["best", "worst"]]);
    expect(report.unit).toBe("pairs");
    expect(report.funnel.find((s) => s.stage === "pairs")).toMatchObject({ unit: "groups", in: 1, out: 1 });
  });

  it("the margin rule: chosen − rejected ≥ margin keeps the pair; below it the prompt is dropped", async () => {
    const rows = [chatRow("a", "a-hi", 0.8), chatRow("a", "a-lo", 0.3), chatRow("b", "b-hi", 0.8), chatRow("b", "b-lo", 0.6), chatRow("c", "c-hi", 0.9), chatRow("c", "c-lo", 0.5)];
    const { lines, report } = await distillRows(rows, { margin: 0.4 }, "dpo");
    expect(lines.map(pairOf)).toEqual([["a-hi", "a-lo"], ["c-hi", "c-lo"]]); // 0.5 and exactly 0.4 pass, 0.2 does not
    expect(report.dropped).toEqual({ margin: 1 });
  });

  it("without a margin a pair still needs a strictly better chosen (a tie teaches nothing)", async () => {
    const rows = [chatRow("a", "x", 0.5), chatRow("a", "y", 0.5), chatRow("b", "only", 1)];
    const { lines, report } = await distillRows(rows, {}, "dpo");
    expect(lines).toEqual([]);
    expect(report.dropped).toEqual({ margin: 2 });
  });

  it("--min-reward and --require apply to the chosen side only: the rejected may fail them", async () => {
    const rows = [chatRow("a", "good", 0.9, { verdicts: [{ id: "safe", status: "met", points: 1 }] }), chatRow("a", "bad", 0.1, { verdicts: [{ id: "safe", status: "unmet", points: 1 }] })];
    const { lines } = await distillRows(rows, { minReward: 0.5, require: ["safe"] }, "dpo");
    expect(lines.map(pairOf)).toEqual([["good", "bad"]]);
  });

  it("no row passing the filters: the prompt is dropped as no-chosen", async () => {
    const { report } = await distillRows([chatRow("a", "x", 0.2), chatRow("a", "y", 0.1)], { minReward: 0.5 }, "dpo");
    expect(report.dropped).toMatchObject({ "no-chosen": 1 });
  });

  it("length limits apply to both sides: an over-long worst row is not the rejected one", async () => {
    const rows = [chatRow("a", "fine", 0.9), chatRow("a", "x".repeat(50), 0), chatRow("a", "meh", 0.4)];
    const { lines } = await distillRows(rows, { maxChars: 20 }, "dpo");
    expect(lines.map(pairOf)).toEqual([["fine", "meh"]]);
  });

  it("rejected ties go to the earlier row; chosen ties to fewer tokens", async () => {
    const rows = [chatRow("a", "first bad", 0), chatRow("a", "a much longer good answer", 1), chatRow("a", "good", 1), chatRow("a", "second bad", 0)];
    const { lines } = await distillRows(rows, {}, "dpo");
    expect(lines.map(pairOf)).toEqual([["good", "first bad"]]);
  });

  it("--best-of is refused with preference formats", async () => {
    await expect(distillRows([chatRow("a", "x", 1)], { bestOf: 2 }, "dpo")).rejects.toThrow(/best-of/);
  });
});
