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
  it("draws the charts: forest plots of the judges, metric bars with intervals, reliability diagram", () => {
    expect(html).toContain('class="forest"');
    expect(html).toContain('class="error-bar"');
    expect(html).toContain("chart-reliability");
    // judge-b never says no: its balanced F1 is undefined (a row without a point) and its kappa is 0.
    const f1 = html.slice(html.indexOf("Balanced F1 (95% CI)"));
    expect(f1.indexOf("judge-a")).toBeLessThan(f1.indexOf("judge-b"));
  });

  it("reads at a glance with 30 judges: full names sorted by kappa with intervals, each judge's detail folded, a phone layout", () => {
    const judges = Array.from({ length: 30 }, (_, k) => {
      // Judge k agrees with the labels on the first k % 5 of its items: kappas differ, names are long.
      const vs = verdicts.map((v, i) => ({ ...v, status: (i < 2 + (k % 5) ? v.status : v.status === "met" ? "unmet" : "met") as "met" | "unmet" }));
      return calibrate({ labels, verdicts: vs, judge: `provider-${k}/a-rather-long-model-name-${k}-instruct-2025-preview (rubric r, temperature 0)`, resamples: 20 });
    });
    const page = calibrationHtml(judges);
    assertBalanced(page);
    const kappaPlot = page.slice(page.indexOf("Cohen&#39;s kappa"), page.indexOf("Balanced F1 (95% CI)"));
    const rows = [...kappaPlot.matchAll(/<div class="forest-row"[^]*?<a href="#(judge-\d+)">([^<]+)<\/a>[^]*?<span class="forest-value" role="cell">([^<]+)<\/span>/g)];
    expect(rows).toHaveLength(30);
    // Full names, untruncated.
    expect(rows.map((r) => r[2])).toContain("provider-7/a-rather-long-model-name-7-instruct-2025-preview (rubric r, temperature 0)");
    // Sorted by kappa, highest first, each with its interval.
    const values = rows.map((r) => Number(r[3].split(" ")[0]));
    expect(values).toEqual([...values].sort((x, y) => y - x));
    expect(rows.every((r) => /\[-?\d/.test(r[3]))).toBe(true);
    // Each judge's detail is folded, and each row links to it.
    expect(page.match(/<details><summary>Detail for /g)).toHaveLength(30);
    expect(page).toContain(`id="${rows[0][1]}"`);
    expect(page).toMatch(/@media \(max-width: 480px\)/);
  });
  it("has a review table of disagreements per criterion, rows tagged with the criterion", () => {
    expect(html).toContain('data-criterion="cites|source"');
    expect(html).toContain("disagreements to review");
  });
});
