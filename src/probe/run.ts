/** Runs the battery: every attack against every sample, scored like any other response. */
import type { CustomChecks } from "../checks/custom.js";
import { score } from "../score/score.js";
import { RubricateError, toRubricateError, type ErrorCode } from "../errors.js";
import type { Judge } from "../judge/types.js";
import type { Rubric } from "../rubric/schema.js";
import { renderTemplate } from "../text/template.js";
import { emptyUsage, addUsage, type Sample, type ScoreResult, type Usage } from "../types.js";
import type { Attack } from "./attacks.js";
import { builtinAttacks } from "./attacks.js";
import type { Attacker, GeneratedAttempt } from "./attacker.js";
import { summarise, type AttackRun, type AttackSummary, type Finding } from "./findings.js";

export type { AttackRun } from "./findings.js";
import { checkIsolation } from "./isolation.js";
import { runHacks, type HackRun } from "./hacks.js";
import { attackVars, probeFields, type ProbeFields } from "./vars.js";

/** Options of `probe`. */
export interface ProbeOptions {
  /** Custom check functions by name for the rubric's `check: { custom: name }` (built-ins need not be passed). */
  checks?: CustomChecks;
  /** Answers the rubric's LLM questions. */
  judge?: Judge;
  /** The battery (default: the packaged attacks in `probes/`). */
  attacks?: Attack[];
  /** Which inputs hold the question, the reference and the response (default: guessed from names). */
  fields?: Partial<ProbeFields>;
  /** Writes extra attacks per sample; its best attempt per sample joins the battery. */
  attacker?: Attacker;
  /** The judge's system prompt, when it replaces the default (checked for instruction isolation). */
  judgeSystem?: string;
  /** An attack "wins" when its mean reward is above this (default 0). */
  threshold?: number;
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** Everything a probe found. */
export interface ProbeResult {
  rubric: { id: string; version: string | number; source?: string; passThreshold?: number };
  fields: ProbeFields;
  samples: number;
  threshold: number;
  runs: AttackRun[];
  /** Per attack (generated attempts reduced to the best per sample). */
  attacks: AttackSummary[];
  findings: Finding[];
  /** The highest mean reward of any attack that deserves zero (0 when none won). */
  worstReward: number;
  /** Attacks (deserving zero) whose mean reward is above the threshold. */
  flagged: string[];
  /** Attacks skipped on some samples for lack of a variable (e.g. no reference answer). */
  skipped: { attack: string; samples: number }[];
  attackerErrors: { sampleIndex: number; code: ErrorCode; message: string }[];
  /** Each check kind's known hacks run against the rubric's check criteria (`CheckKind.hacks`). */
  hacks: HackRun[];
  usage: Usage;
}

/** The pseudo-attack generated attempts are filed under. */
export const GENERATED_ATTACK: Attack = {
  id: "generated",
  category: "generated",
  description: "The attacker model's best attempt per sample (check by hand that it really fails the task).",
  deserves_zero: true,
  template: "",
};

/**
 * Attacks a rubric: fills each attack per sample, scores the responses with the judge, checks
 * each judge prompt keeps the response inside the sample block, and summarises what won.
 * @example const result = await probe(rubric, samples, { judge }); result.findings[0]?.fix
 */
export async function probe(rubric: Rubric, samples: Sample[], options: ProbeOptions = {}): Promise<ProbeResult> {
  // Without a judge every LLM criterion is an error and every reward null: a probe that finds nothing.
  if (!options.judge && rubric.criteria.some((c) => c.question)) throw new RubricateError("NO_JUDGE", `rubric ${rubric.id} asks LLM questions: pass options.judge to probe it`);
  const attacks = options.attacks ?? builtinAttacks();
  const fields = probeFields(rubric, options.fields);
  const references = fields.reference ? samples.map((s) => String(s[fields.reference!] ?? "")) : [];
  const planned: Omit<AttackRun, "result" | "isolation">[] = [];
  const skipped = new Map<string, number>();
  samples.forEach((sample, sampleIndex) => {
    const pool = [...references.slice(sampleIndex + 1), ...references.slice(0, sampleIndex)];
    const vars = attackVars(rubric, sample, fields, pool);
    for (const attack of attacks) {
      if ((attack.needs ?? []).some((name) => !vars[name]?.trim())) {
        skipped.set(attack.id, (skipped.get(attack.id) ?? 0) + 1);
        continue;
      }
      let response: string;
      try {
        response = renderTemplate(attack.template, vars);
      } catch (e) {
        const error = toRubricateError(e);
        throw new RubricateError("BAD_INPUT", `attack "${attack.id}": ${error.message} (known variables: ${Object.keys(vars).join(", ")})`);
      }
      planned.push({ attack, sampleIndex, sampleId: sample.id, response });
    }
  });
  const attackerErrors: ProbeResult["attackerErrors"] = [];
  if (options.attacker) {
    const attacker = options.attacker;
    const generated = await Promise.all(
      samples.map(async (sample, sampleIndex): Promise<GeneratedAttempt[]> => {
        try {
          return await attacker.generate({ rubric, sample, fields }, { signal: options.signal });
        } catch (e) {
          const error = toRubricateError(e);
          if (error.code === "ABORTED") throw error;
          attackerErrors.push({ sampleIndex, code: error.code, message: error.message });
          return [];
        }
      }),
    );
    generated.forEach((attempts, sampleIndex) => {
      for (const a of attempts) planned.push({ attack: GENERATED_ATTACK, sampleIndex, sampleId: samples[sampleIndex].id, response: a.response, strategy: a.strategy });
    });
  }
  const attackSamples = planned.map((p) => ({ ...samples[p.sampleIndex], [fields.response]: p.response }));
  let done = 0;
  const results = await score(rubric, attackSamples, {
    judge: options.judge,
    concurrency: options.concurrency,
    signal: options.signal,
    errors: "null",
    checks: options.checks,
    onProgress: () => options.onProgress?.(++done, planned.length),
  });
  const hacks = await runHacks(rubric, samples, { checks: options.checks, responseField: fields.response, signal: options.signal });
  const asksJudge = rubric.criteria.some((c) => c.question);
  const runs: AttackRun[] = planned.map((p, i) => {
    const isolation = asksJudge ? checkIsolation(rubric, attackSamples[i], { responseField: fields.response, system: options.judgeSystem }) : null;
    const { index: _index, ...result } = results[i];
    return { ...p, result, isolation: isolation && { holds: isolation.holds, problems: isolation.problems } };
  });
  const usage = emptyUsage();
  for (const r of runs) addUsage(usage, r.result.usage ?? {});
  if (options.attacker) addUsage(usage, options.attacker.usage());
  const threshold = options.threshold ?? 0;
  const { attacks: summaries, findings } = summarise(rubric, runs, threshold);
  const zeroes = summaries.filter((s) => s.deservesZero && s.meanReward !== null);
  return {
    rubric: { id: rubric.id, version: rubric.version, source: rubric.source, passThreshold: rubric.scoring.pass_threshold },
    fields,
    samples: samples.length,
    threshold,
    runs,
    attacks: summaries,
    findings,
    worstReward: Math.max(0, ...zeroes.map((s) => s.meanReward!)),
    flagged: zeroes.filter((s) => s.meanReward! > threshold).map((s) => s.id),
    skipped: [...skipped].map(([attack, n]) => ({ attack, samples: n })),
    attackerErrors,
    hacks,
    usage,
  };
}
