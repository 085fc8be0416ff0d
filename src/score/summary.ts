import { addUsage, emptyUsage, type ScoreResult, type Usage } from "../types.js";
import { meanWithInterval, type MeanWithInterval } from "../stats/interval.js";

/** Totals of a scoring run, built incrementally so a million samples need no list in memory. */
export interface RunSummary {
  samples: number;
  scored: number;
  withErrors: number;
  reward?: MeanWithInterval;
  passRate?: number;
  criteria: { id: string; asked: number; met: number; skipped: number; errors: number; passRate: number }[];
  errorCodes: Record<string, number>;
  usage: Usage;
}

/**
 * Accumulates results into a summary; rewards are kept (8 bytes each) for the bootstrap interval.
 * @example const s = new SummaryBuilder(); results.forEach((r) => s.add(r)); s.finish()
 */
export class SummaryBuilder {
  private readonly rewards: number[] = [];
  private samples = 0;
  private withErrors = 0;
  private passed = 0;
  private judged = 0;
  private readonly criteria = new Map<string, { asked: number; met: number; skipped: number; errors: number }>();
  private readonly errorCodes: Record<string, number> = {};
  private readonly usage = emptyUsage();

  add(result: ScoreResult): void {
    this.samples++;
    // A sample "with errors" had any criterion error, even when an error policy still gave it a reward.
    if (result.errors.length > 0 || result.reward === null) this.withErrors++;
    if (result.reward !== null) this.rewards.push(result.reward);
    if (result.passed !== undefined && result.passed !== null) {
      this.judged++;
      if (result.passed) this.passed++;
    }
    for (const v of result.verdicts) {
      const c = this.criteria.get(v.id) ?? { asked: 0, met: 0, skipped: 0, errors: 0 };
      if (v.status === "met") [c.asked, c.met] = [c.asked + 1, c.met + 1];
      else if (v.status === "unmet") c.asked++;
      else if (v.status === "skipped") c.skipped++;
      else c.errors++;
      this.criteria.set(v.id, c);
    }
    for (const e of result.errors) this.errorCodes[e.code] = (this.errorCodes[e.code] ?? 0) + 1;
    if (result.usage) addUsage(this.usage, result.usage);
  }

  /** The summary so far; its `reward` interval is computed when first read (a quiet run never prints it). */
  finish(): RunSummary {
    const rewards = [...this.rewards]; // the interval is of these, whatever is added later
    let reward: MeanWithInterval | undefined | null = null;
    return {
      samples: this.samples,
      scored: rewards.length,
      withErrors: this.withErrors,
      // A bootstrap of 1,000 resamples of every reward: 40 ms for 2,000 samples, seconds for a
      // large run, which `score -q` (exit code and results file only) never shows.
      get reward() {
        if (reward === null) reward = meanWithInterval(rewards);
        return reward;
      },
      passRate: this.judged > 0 ? this.passed / this.judged : undefined,
      criteria: [...this.criteria].map(([id, c]) => ({ id, ...c, passRate: c.asked > 0 ? c.met / c.asked : 0 })),
      errorCodes: this.errorCodes,
      usage: this.usage,
    };
  }
}

/** The mean reward with its interval; one reward has none to give (a bootstrap of one value is that value). */
function rewardLine(reward: RunSummary["reward"]): string {
  if (!reward) return "mean reward: none (no sample scored)";
  if (reward.n < 2) return `mean reward ${reward.mean.toFixed(3)}  (one sample: no confidence interval)`;
  return `mean reward ${reward.mean.toFixed(3)}  (95% CI ${reward.low.toFixed(3)}–${reward.high.toFixed(3)})`;
}

/** The summary as lines for a terminal or a CI log. */
export function formatSummary(s: RunSummary): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `samples ${s.samples}  scored ${s.scored}  with errors ${s.withErrors}`,
    rewardLine(s.reward),
  ];
  if (s.passRate !== undefined) lines.push(`pass rate ${pct(s.passRate)}`);
  if (s.criteria.length > 0) {
    const width = Math.max(...s.criteria.map((c) => c.id.length), 9);
    lines.push(`${"criterion".padEnd(width)}  met/asked   rate  skipped  errors`);
    for (const c of s.criteria) lines.push(`${c.id.padEnd(width)}  ${`${c.met}/${c.asked}`.padStart(9)}  ${pct(c.passRate).padStart(6)}  ${String(c.skipped).padStart(7)}  ${String(c.errors).padStart(6)}`);
  }
  const u = s.usage;
  lines.push(`calls ${u.calls}  cache hits ${u.cacheHits}  tokens in ${u.inputTokens} (cached ${u.cachedInputTokens}) out ${u.outputTokens}  est. cost $${u.costUsd.toFixed(4)}`);
  const codes = Object.entries(s.errorCodes);
  if (codes.length > 0) lines.push(`errors: ${codes.map(([code, n]) => `${code} ×${n}`).join(", ")}`);
  return lines.join("\n");
}
