import { describe, expect, it } from "vitest";
import { calibrate } from "../../src/calibrate/calibrate.js";
import { pairwiseAgreement } from "../../src/calibrate/pairwise.js";
import { calibrationHtml, calibrationMarkdown } from "../../src/calibrate/report.js";
import { assertBalanced } from "../report/xml-check.js";

const labels = ["s1", "s2", "s3", "s4"].flatMap((id, i) => [
  { sampleId: id, criterion: "cites|source", label: i < 2 },
  { sampleId: id, criterion: "polite", label: i % 2 === 0 },
]);
const verdicts = ["s1", "s2", "s3", "s4"].flatMap((id, i) => [
  { sampleId: id, criterion: "cites|source", status: (i < 3 ? "met" : "unmet") as "met" | "unmet", probability: [0.9, 0.8, 0.6, 0.1][i], reasoning: i === 2 ? "<script>alert(1)</script> | cites" : undefined },
  { sampleId: id, criterion: "polite", status: (i % 2 === 0 ? "met" : "unmet") as "met" | "unmet" },
]);
const a = calibrate({ labels, verdicts, judge: "judge-a", costUsd: 0.2, resamples: 100 });
const b = calibrate({ labels, verdicts: verdicts.map((v) => ({ ...v, status: "met" as const })), judge: "judge-b", costUsd: 0.05, resamples: 100 });
const pair = pairwiseAgreement([{ id: "x", human: "1", order12: "1", order21: "2" }], { resamples: 50 });

describe("calibrationMarkdown", () => {
  const md = calibrationMarkdown([a, b], { pairwise: [{ name: "p", summary: pair }] });
  it("has the ranking, the per-criterion table with intervals, and the disagreements", () => {
    expect(md).toContain("## Ranking");
    expect(md).toContain("| 1 | judge-a |");
    expect(md).toContain("## Pairwise agreement");
    expect(md).toContain("cites\\|source");
    expect(md).toMatch(/\| overall \| 8 \| 0\.500 \[/);
    expect(md).toContain("### Disagreements on cites\\|source");
    expect(md).toContain("\\<script\\>alert(1)\\</script\\> \\| cites");
    expect(md).toContain("ECE");
  });
  it("every table row has as many cells as its header", () => {
    const tables = md.split("\n\n").filter((b) => b.startsWith("|"));
    for (const t of tables) {
      const cells = t.split("\n").filter((l) => l !== "").map((l) => l.replace(/\\\|/g, "").split("|").length);
      expect(new Set(cells).size).toBe(1);
    }
  });
});

describe("calibrationHtml", () => {
  const html = calibrationHtml([a, b], { title: "Cal <test>", pairwise: [{ name: "p", summary: pair }] });
  it("is one balanced, self-contained page with everything escaped", () => {
    assertBalanced(html);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).toContain("<title>Cal &lt;test&gt;</title>");
    expect(html).not.toContain("<script>alert(1)");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });
  it("draws the charts: ranking bars, metric bars with intervals, reliability diagram", () => {
    expect(html).toContain("chart-grouped");
    expect(html).toContain('class="error-bar"');
    expect(html).toContain("chart-reliability");
    const ranking = /<svg[^>]*chart-grouped[^>]*data-bars="(\d+)"/.exec(html);
    expect(ranking?.[1]).toBe("3"); // judge-a: F1 and kappa; judge-b never says no, so its balanced F1 is undefined (no bar) and its kappa is 0
  });
  it("has a review table of disagreements per criterion, rows tagged with the criterion", () => {
    expect(html).toContain('data-criterion="cites|source"');
    expect(html).toContain("disagreements to review");
  });
});
