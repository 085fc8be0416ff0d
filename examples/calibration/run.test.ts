/**
 * Runs examples/calibration/run.ts as a user would and checks every printed figure against
 * figures recomputed here by plain counting over the raw dataset files (no rubricate code).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
// The copy shipped in the repository (datasets/README.md gives source, licence and commit).
const datasets = join(root, "datasets");

type Row = Record<string, string>;
const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

/** Plain counting: human yes / judge yes over the items the judge answered. */
function expected(pairs: { human: boolean; judge: boolean }[]) {
  let tp = 0, fp = 0, tn = 0, fn = 0;
  for (const p of pairs) {
    if (p.human && p.judge) tp++;
    else if (!p.human && p.judge) fp++;
    else if (!p.human && !p.judge) tn++;
    else fn++;
  }
  const n = tp + fp + tn + fn;
  const acc = (tp + tn) / n;
  const pe = ((tp + fn) / n) * ((tp + fp) / n) + ((tn + fp) / n) * ((tn + fn) / n);
  const precPos = tp / (tp + fp), recPos = tp / (tp + fn);
  const precNeg = tn / (tn + fn), recNeg = tn / (tn + fp);
  const f1 = (p: number, r: number) => (p + r === 0 ? 0 : (2 * p * r) / (p + r));
  return { n, accuracy: acc, kappa: (acc - pe) / (1 - pe), tpr: recPos, tnr: recNeg, balancedF1: (f1(precPos, recPos) + f1(precNeg, recNeg)) / 2 };
}

let rows: Row[] = [];
let stdout = "";

beforeAll(() => {
  // Run as docs/calibration.md says (`npx tsx examples/calibration/run.ts`, from the repository),
  // with no --datasets: the shipped copy is the default. tests/readme.test.ts leaves that command
  // to this test and checks that this file still runs it.
  const env = { ...process.env };
  delete env.RUBRICATE_DATASETS;
  // 200 bootstrap resamples instead of 1,000: every figure checked below but the intervals is a
  // plain count, and an interval must still hold its point (12 s of CPU instead of 3).
  stdout = execFileSync(process.execPath, ["--import", "tsx", "examples/calibration/run.ts", "--resamples", "200"], { cwd: root, encoding: "utf8", env });
  const table = stdout.split("\n").filter((l) => l.startsWith("| "));
  const header = table[0].split("|").slice(1, -1).map((c) => c.trim());
  rows = table.slice(1).map((l) => Object.fromEntries(l.split("|").slice(1, -1).map((c, i) => [header[i], c.trim()])));
}, 120_000);

const num = (s: string) => Number(s);
const close = (printed: string, value: number) => expect(Math.abs(num(printed) - value)).toBeLessThanOrEqual(0.00005 + 1e-12);

describe("examples/calibration/run.ts on the real data", () => {
  it("says how many resamples its intervals took", () => {
    expect(stdout).toContain("(seed 2026, 200 bootstrap resamples)");
  });

  it("prints PandaLM's published figures for both stored judges under PandaLM's convention", () => {
    // PandaLM README, commit 6fdac72: accuracy, precision, recall, F1 for these exact verdict files.
    expect(stdout).toContain("gpt-3.5-turbo: accuracy 71.07, precision 58.79, recall 57.36, F1 57.55");
    expect(stdout).toContain("pandalm-7b: accuracy 66.77, precision 57.38, recall 57.50, F1 57.43");
  });

  it("prints one row per stored judge of every LLMBar subset, plus PandaLM's two", () => {
    let count = 0;
    for (const subset of readdirSync(join(datasets, "llmbar"), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)) count += readdirSync(join(datasets, "llmbar", subset)).filter((f) => f.startsWith("verdicts-")).length;
    expect(rows).toHaveLength(count + 2);
    expect(stdout).toContain("PandaLM human agreement");
  });

  it("LLMBar figures match plain counts over samples.jsonl and verdicts-*.jsonl", () => {
    const llmbar = rows.filter((r) => r.dataset.startsWith("llmbar/"));
    expect(llmbar.length).toBeGreaterThan(20);
    for (const r of llmbar) {
      const folder = join(datasets, r.dataset);
      const gold = new Map<string, number>(lines(join(folder, "samples.jsonl")).map((s) => [s.id, Number(s.label)]));
      const v = lines(join(folder, `verdicts-${r.judge}.jsonl`));
      const answered = v.filter((x) => x.winner_in_order_12 === "1" || x.winner_in_order_12 === "2");
      const e = expected(answered.map((x) => ({ human: gold.get(x.id) === 1, judge: x.winner_in_order_12 === "1" })));
      expect(num(r.n)).toBe(e.n);
      close(r.accuracy, e.accuracy);
      close(r.kappa, e.kappa);
      close(r.TPR, e.tpr);
      close(r.TNR, e.tnr);
      close(r.balancedF1, e.balancedF1);
      const agree = v.reduce((s, x) => s + ((Number(x.winner_in_order_12) === gold.get(x.id) ? 1 : 0) + (Number(x.winner_in_order_21) === gold.get(x.id) ? 1 : 0)) / 2, 0) / v.length;
      close(r["pairwise agreement"], agree);
      // LLMBar's "equal": the same pick in both orders, unreadable in both included.
      const equal = v.filter((x) => x.winner_in_order_12 === x.winner_in_order_21).length / v.length;
      close(r["position agreement"], equal);
      const [lo, hi] = r["balancedF1 95% CI"].slice(1, -1).split(", ").map(Number);
      expect(lo).toBeLessThanOrEqual(num(r.balancedF1));
      expect(hi).toBeGreaterThanOrEqual(num(r.balancedF1));
    }
  });

  it("reports GPT-3.5's PandaLM pairwise agreement under the paper's convention: 0.7107, not 0.6977 (issue 30)", () => {
    expect((rows.find((x) => x.dataset === "pandalm" && x.judge === "gpt-3.5-turbo") as Row)["pairwise agreement"]).toBe("0.7107");
  });

  it("PandaLM figures match plain counts, with the annotators' majority as reference", () => {
    const samples = lines(join(datasets, "pandalm", "samples.jsonl"));
    const byId = new Map<string, number[]>(samples.map((s) => [s.id, s.annotators]));
    for (const judge of ["gpt-3.5-turbo", "pandalm-7b"]) {
      const r = rows.find((x) => x.dataset === "pandalm" && x.judge === judge) as Row;
      const v = lines(join(datasets, "pandalm", `verdicts-${judge}.jsonl`));
      const pick = (w: unknown) => (w === 1 || w === "1" ? 1 : w === 2 || w === "2" ? 2 : w === 0 || w === "0" || w === "Tie" ? 0 : null);
      const pairs: { human: boolean; judge: boolean }[] = [];
      let errors = 0;
      let agree = 0;
      for (const x of v) {
        const a = byId.get(x.id) as number[];
        const yes = a.filter((l) => l === 1).length;
        const p = pick(x.winner);
        const counts = [0, 1, 2].map((c) => a.filter((l) => l === c).length);
        const top = Math.max(...counts);
        const majority = counts.filter((c) => c === top).length === 1 ? counts.indexOf(top) : null;
        // PandaLM's convention: an unreadable verdict is read as a tie.
        if (majority !== null && (p ?? 0) === majority) agree++;
        if (p === null) {
          errors++;
          continue;
        }
        pairs.push({ human: yes >= 2, judge: p === 1 });
      }
      const e = expected(pairs);
      expect(num(r.n)).toBe(e.n);
      expect(num(r.errors)).toBe(errors);
      close(r.accuracy, e.accuracy);
      close(r.kappa, e.kappa);
      close(r.TPR, e.tpr);
      close(r.TNR, e.tnr);
      close(r.balancedF1, e.balancedF1);
      close(r["pairwise agreement"], agree / v.length);
      expect(r["position agreement"]).toBe("n/a");
    }
  });

  it("the PandaLM ceiling line matches plain pairwise kappas between the three annotators", () => {
    const samples = lines(join(datasets, "pandalm", "samples.jsonl"));
    const kappa = (a: number[], b: number[]) => {
      const n = a.length;
      const po = a.filter((x, i) => x === b[i]).length / n;
      const pe = [0, 1, 2].reduce((s, c) => s + (a.filter((x) => x === c).length / n) * (b.filter((x) => x === c).length / n), 0);
      return (po - pe) / (1 - pe);
    };
    const col = (i: number) => samples.map((s) => s.annotators[i] as number);
    const mean3 = (kappa(col(0), col(1)) + kappa(col(0), col(2)) + kappa(col(1), col(2))) / 3;
    const printed = /3-class \(1\/2\/tie\) mean pairwise kappa ([\d.]+)/.exec(stdout)?.[1] as string;
    close(printed, mean3);
    const bin = (i: number) => col(i).map((x) => (x === 1 ? 1 : 0));
    const meanBin = (kappa(bin(0), bin(1)) + kappa(bin(0), bin(2)) + kappa(bin(1), bin(2))) / 3;
    const printedBin = /binary \("response 1 better"\) mean pairwise kappa ([\d.]+)/.exec(stdout)?.[1] as string;
    close(printedBin, meanBin);
  });
});
