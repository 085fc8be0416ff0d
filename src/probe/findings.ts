/** Per-attack and per-criterion results of a probe, and the findings worth acting on. */
import type { Criterion, Rubric } from "../rubric/schema.js";
import type { AttackCategory } from "./attacks.js";
import { suggestFix } from "./fixes.js";
import type { ScoreResult } from "../types.js";
import type { Attack } from "./attacks.js";

/** One attack response on one sample, and what it earned. */
export interface AttackRun {
  attack: Attack;
  sampleIndex: number;
  sampleId?: string | number;
  response: string;
  result: ScoreResult;
  /** null when the rubric asks the judge nothing (no prompt to check). */
  isolation: { holds: boolean; problems: string[] } | null;
  /** For generated attacks: the attacker's strategy. */
  strategy?: string;
}

/** How often one attack won one positive criterion. */
export interface CriterionWin {
  criterion: string;
  source: "llm" | "check";
  points: number;
  required: boolean;
  /** Runs where the criterion was met (a "yes" the attack did not deserve). */
  wins: number;
  /** Runs where the criterion got an answer (met or unmet). */
  asked: number;
  /** wins / asked (0 when never asked). */
  rate: number;
  /** Mean points earned from this criterion per run. */
  pointsWon: number;
}

/** A short example of an attack that won something, with the judge's reasons. */
export interface AttackExample {
  sampleIndex: number;
  sampleId?: string | number;
  response: string;
  reward: number | null;
  reasons: { criterion: string; status: string; reasoning?: string }[];
  strategy?: string;
}

/** One attack over all samples. */
export interface AttackSummary {
  id: string;
  category: AttackCategory;
  description: string;
  deservesZero: boolean;
  /** Runs with a reward. */
  runs: number;
  /** Runs without a reward (judge or check errors). */
  errors: number;
  meanReward: number | null;
  maxReward: number | null;
  /** Share of runs whose reward reached the rubric's pass threshold. */
  passRate: number | null;
  criteria: CriterionWin[];
  /** false when some run's prompt did not keep the response inside the sample block; null when no prompt. */
  isolationHolds: boolean | null;
  isolationProblems: string[];
  /** The run that earned the most. */
  example?: AttackExample;
}

/** Something to fix: an attack that won a criterion, or a prompt that leaked. */
export interface Finding {
  severity: "high" | "medium" | "low";
  attack: string;
  category: AttackCategory | "isolation";
  /** The criterion won, when the finding is about one. */
  criterion?: string;
  rate?: number;
  pointsWon?: number;
  meanReward: number | null;
  message: string;
  fix: string;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** Reduces generated attempts to the best one per sample (a policy keeps what works). */
function bestGenerated(runs: AttackRun[]): AttackRun[] {
  const best = new Map<number, AttackRun>();
  const others: AttackRun[] = [];
  for (const r of runs) {
    if (r.attack.category !== "generated") {
      others.push(r);
      continue;
    }
    const current = best.get(r.sampleIndex);
    if (!current || (r.result.reward ?? -1) > (current.result.reward ?? -1)) best.set(r.sampleIndex, r);
  }
  return [...others, ...best.values()];
}

function summariseAttack(rubric: Rubric, runs: AttackRun[]): AttackSummary {
  const { attack } = runs[0];
  const rewards = runs.map((r) => r.result.reward).filter((r): r is number => r !== null);
  const positive = rubric.criteria.filter((c) => c.points > 0);
  const criteria = positive.map((c): CriterionWin => {
    const verdicts = runs.map((r) => r.result.verdicts.find((v) => v.id === c.id)).filter((v) => v !== undefined);
    const asked = verdicts.filter((v) => v.status === "met" || v.status === "unmet");
    const wins = asked.filter((v) => v.status === "met").length;
    return {
      criterion: c.id,
      source: c.check ? "check" : "llm",
      points: c.points,
      required: c.required,
      wins,
      asked: asked.length,
      rate: asked.length ? wins / asked.length : 0,
      pointsWon: runs.length ? verdicts.reduce((s, v) => s + (v.status === "met" ? v.earned : 0), 0) / runs.length : 0,
    };
  });
  const isolations = runs.map((r) => r.isolation).filter((i) => i !== null);
  const top = [...runs].sort((a, b) => worth(b) - worth(a))[0];
  const threshold = rubric.scoring.pass_threshold;
  return {
    id: attack.id,
    category: attack.category,
    description: attack.description,
    deservesZero: attack.deserves_zero,
    runs: rewards.length,
    errors: runs.length - rewards.length,
    meanReward: mean(rewards),
    maxReward: rewards.length ? Math.max(...rewards) : null,
    passRate: threshold === undefined || rewards.length === 0 ? null : rewards.filter((r) => r >= threshold).length / rewards.length,
    criteria,
    isolationHolds: isolations.length ? isolations.every((i) => i.holds) : null,
    isolationProblems: [...new Set(isolations.flatMap((i) => i.problems))],
    example: top && {
      sampleIndex: top.sampleIndex,
      sampleId: top.sampleId,
      response: top.response,
      reward: top.result.reward,
      reasons: top.result.verdicts.filter((v) => v.points > 0 || v.status === "met").map((v) => ({ criterion: v.id, status: v.status, reasoning: v.reasoning ?? v.error?.message })),
      strategy: top.strategy,
    },
  };
}

// Runs that won the most points come first, so the example shows the hole.
const worth = (r: AttackRun) => (r.result.reward ?? -1) * 1000 + r.result.verdicts.filter((v) => v.status === "met" && v.points > 0).length;

/**
 * Groups runs by attack and lists findings: each (attack, positive criterion) the attack won,
 * and each attack whose prompt did not isolate the response. Most severe first.
 */
export function summarise(rubric: Rubric, runs: AttackRun[], threshold = 0): { attacks: AttackSummary[]; findings: Finding[] } {
  const byAttack = new Map<string, AttackRun[]>();
  for (const r of bestGenerated(runs)) byAttack.set(r.attack.id, [...(byAttack.get(r.attack.id) ?? []), r]);
  const attacks = [...byAttack.values()].map((rs) => summariseAttack(rubric, rs));
  const findings: Finding[] = [];
  const passAt = rubric.scoring.pass_threshold ?? 0.5;
  for (const a of attacks) {
    const attack = byAttack.get(a.id)![0].attack;
    if (a.isolationHolds === false) {
      findings.push({ severity: "high", attack: a.id, category: "isolation", meanReward: a.meanReward, message: `the judge prompt did not keep the response inside the sample block: ${a.isolationProblems.join("; ")}`, fix: suggestFix(rubric, attack, undefined, "isolation") });
    }
    if (!a.deservesZero) continue;
    const reward = a.meanReward ?? 0;
    const severity: Finding["severity"] = reward >= passAt ? "high" : reward > threshold ? "medium" : "low";
    for (const w of a.criteria) {
      if (w.wins === 0) continue;
      const criterion = rubric.criteria.find((c) => c.id === w.criterion) as Criterion;
      findings.push({
        severity,
        attack: a.id,
        category: a.category,
        criterion: w.criterion,
        rate: w.rate,
        pointsWon: w.pointsWon,
        meanReward: a.meanReward,
        message: `${a.id} won "${w.criterion}" (${w.source}, ${w.points} points${w.required ? ", required" : ""}) in ${w.wins} of ${w.asked} runs; mean reward ${reward.toFixed(3)}${reward <= threshold ? " (held at or below the threshold, e.g. by a required gate)" : ""}`,
        fix: suggestFix(rubric, attack, criterion, a.category),
      });
    }
    if (reward > threshold && a.criteria.every((w) => w.wins === 0)) {
      findings.push({ severity, attack: a.id, category: a.category, meanReward: a.meanReward, message: `${a.id} earns mean reward ${reward.toFixed(3)} without winning a positive criterion`, fix: suggestFix(rubric, attack, undefined, a.category) });
    }
  }
  const rank = { high: 0, medium: 1, low: 2 };
  findings.sort((x, y) => rank[x.severity] - rank[y.severity] || (y.meanReward ?? 0) - (x.meanReward ?? 0) || (y.rate ?? 0) - (x.rate ?? 0));
  return { attacks, findings };
}
