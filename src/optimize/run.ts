import { existsSync } from "node:fs";
import { RubricateError, toRubricateError } from "../errors.js";
import { budgetWarning, copiesInput, parseProposal } from "./guards.js";
import { newMergeState } from "./merge.js";
import { argmax, instanceFronts, removeDominated } from "./pareto.js";
import { Rng } from "../stats/rng.js";
import { newSamplerState } from "./sampler.js";
import { candidateHash, hashJson, loadState, saveState, type OptimizeState } from "./state.js";
import type {
  Candidate, CandidateRecord, EvalResult, OptimizeOptions, OptimizeResult, ProgressEvent, ReflectiveRecord, StopReason,
} from "./types.js";

const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
/** Sum of numbers. */
export const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** A run in progress: its options, its saved state and the operations both loops share. */
export class Run<I> {
  readonly rng: Rng;
  readonly maxCalls: number;
  readonly names: string[];
  private readonly startedAt = Date.now();
  private reflectErrorsInARow = 0;

  private constructor(readonly opts: OptimizeOptions<I>, readonly state: OptimizeState) {
    this.rng = Rng.fromState(state.rng);
    this.maxCalls = Math.min(opts.budget, opts.stop?.maxMetricCalls ?? Infinity);
    this.names = Object.keys(opts.seed);
  }

  /** Starts a run: resumes from the state file when asked and present, else evaluates the seed on the valset. */
  static async start<I>(opts: OptimizeOptions<I>, algorithm: OptimizeState["algorithm"]): Promise<Run<I>> {
    validate(opts);
    const fingerprint = fingerprintOf(opts, algorithm);
    if (opts.resume && opts.stateFile) {
      const saved = await loadState(opts.stateFile);
      if (saved) {
        if (saved.fingerprint !== fingerprint || saved.algorithm !== algorithm) {
          throw new RubricateError("BAD_INPUT", `${opts.stateFile} belongs to a different run (seed, data or options changed); remove it or drop resume`);
        }
        return new Run(opts, saved);
      }
    }
    const state: OptimizeState = {
      version: 1, algorithm, fingerprint, iteration: 0, candidates: [], front: [], metricCalls: 0, reflectionCalls: 0,
      cacheHits: 0, rng: (opts.rngSeed ?? 0) >>> 0, sampler: newSamplerState(opts.trainset.length), merge: newMergeState(),
      cache: {}, curve: [], failedProposals: [], warnings: [], lastImprovement: 0, idleIterations: 0,
    };
    const run = new Run(opts, state);
    const warning = budgetWarning(run.maxCalls, opts.valset.length, opts.minibatchSize ?? 3, opts.minProposals ?? 5);
    if (warning) run.warn(warning);
    await run.addEvaluated(opts.seed, { parents: [], tag: "seed", flags: [], nextComponent: 0 });
    await run.save();
    opts.onProgress?.({ type: "seed", metricCalls: state.metricCalls, meanScore: state.candidates[0].meanScore });
    return run;
  }

  get candidates(): CandidateRecord[] {
    return this.state.candidates;
  }
  get valScores(): number[][] {
    return this.state.candidates.map((c) => c.valScores);
  }
  get means(): number[] {
    return this.state.candidates.map((c) => c.meanScore);
  }
  get bestScore(): number {
    return Math.max(...this.means);
  }

  /** Records a warning and passes it on. */
  warn(message: string): void {
    this.state.warnings.push(message);
    (this.opts.onWarning ?? ((m: string) => console.warn(`rubricate optimize: ${m}`)))(message);
    this.opts.onProgress?.({ type: "warning", message });
  }

  /**
   * Evaluates a candidate on instances of one set through the cache: only instances never run
   * (or run without traces when traces are wanted) are evaluated and charged.
   */
  async evalCached(candidate: Candidate, set: "train" | "val", indices: number[], traced: boolean): Promise<Required<EvalResult>> {
    const h = candidateHash(candidate);
    const key = (i: number) => `${h}:${set}:${i}`;
    const unique = [...new Set(indices)];
    const todo = unique.filter((i) => !this.state.cache[key(i)] || (traced && !this.state.cache[key(i)].traced));
    this.state.cacheHits += unique.length - todo.length;
    if (todo.length > 0) {
      const data = set === "train" ? this.opts.trainset : this.opts.valset;
      let out: EvalResult;
      try {
        out = await this.opts.evaluate(candidate, todo.map((i) => data[i]), { captureTraces: traced, signal: this.opts.signal });
      } catch (e) {
        throw toRubricateError(e);
      }
      if (!Array.isArray(out?.scores) || out.scores.length !== todo.length || out.scores.some((x) => typeof x !== "number" || !Number.isFinite(x))) {
        throw new RubricateError("BAD_INPUT", `evaluate returned ${out?.scores?.length ?? "no"} scores for ${todo.length} instances (each must be a finite number)`);
      }
      this.state.metricCalls += todo.length;
      todo.forEach((i, n) => {
        this.state.cache[key(i)] = { score: out.scores[n], feedback: out.feedback?.[n], trace: out.traces?.[n], traced };
      });
    }
    const entries = indices.map((i) => this.state.cache[key(i)]);
    return { scores: entries.map((e) => e.score), feedback: entries.map((e) => e.feedback ?? ""), traces: entries.map((e) => e.trace) };
  }

  /** Evaluates a candidate on the whole valset and adds it to the pool; returns its index. */
  async addEvaluated(
    candidate: Candidate,
    meta: Pick<CandidateRecord, "parents" | "tag" | "flags" | "nextComponent"> & { component?: string },
  ): Promise<number> {
    const all = this.opts.valset.map((_, i) => i);
    const { scores } = await this.evalCached(candidate, "val", all, false);
    const s = this.state;
    const previousBest = s.candidates.length > 0 ? this.bestScore : -Infinity;
    const index = s.candidates.length;
    s.candidates.push({ index, candidate, valScores: scores, meanScore: mean(scores), iteration: s.iteration, discoveredAtCalls: s.metricCalls, ...meta });
    s.front = removeDominated(instanceFronts(this.valScores), this.means);
    // The seed counts as iteration 0; a child found during iteration t (0-based) as iteration t + 1.
    if (this.bestScore > previousBest) s.lastImprovement = index === 0 ? 0 : s.iteration + 1;
    s.curve.push({ metricCalls: s.metricCalls, bestScore: this.bestScore });
    return index;
  }

  /** Index of an existing candidate with exactly these texts, if any. */
  findCandidate(candidate: Candidate): number | undefined {
    const h = candidateHash(candidate);
    return this.state.candidates.find((c) => candidateHash(c.candidate) === h)?.index;
  }

  /** The rows shown to the reflection model for a parent's minibatch run. */
  reflectiveDataset(candidate: Candidate, component: string, instances: I[], result: Required<EvalResult>): ReflectiveRecord<I>[] {
    if (this.opts.makeReflectiveDataset) return this.opts.makeReflectiveDataset({ candidate, component, instances, result });
    return instances.map((input, n) => ({ input, output: result.traces[n], score: result.scores[n], feedback: result.feedback[n] }));
  }

  /** Asks for a new text of `component`; a refused or failed reflection is recorded and yields undefined. */
  async propose(candidate: Candidate, component: string, dataset: ReflectiveRecord<I>[]): Promise<string | { failed: string }> {
    const s = this.state;
    s.reflectionCalls += 1;
    let raw: string;
    try {
      raw = await this.opts.reflect({ candidate, component, reflectiveDataset: dataset, signal: this.opts.signal, call: s.reflectionCalls });
      this.reflectErrorsInARow = 0;
    } catch (e) {
      const err = toRubricateError(e);
      if (err.code === "ABORTED" || this.opts.signal?.aborted) throw err;
      if (++this.reflectErrorsInARow >= 5) throw err;
      s.failedProposals.push({ iteration: s.iteration, reason: "reflect_error", detail: err.message });
      return { failed: `reflect_error: ${err.message}` };
    }
    const parsed = parseProposal(typeof raw === "string" ? raw : String(raw));
    if (!parsed.ok) {
      s.failedProposals.push({ iteration: s.iteration, reason: parsed.reason, detail: parsed.message });
      return { failed: `${parsed.reason}: ${parsed.message}` };
    }
    const problem = this.opts.validateProposal?.(parsed.text, component, candidate);
    if (problem !== undefined) {
      s.failedProposals.push({ iteration: s.iteration, reason: "invalid", detail: problem });
      return { failed: `invalid: ${problem}` };
    }
    return parsed.text;
  }

  /** Flags (and warns about) a new text that pastes in a minibatch instance's input verbatim. */
  copyFlags(text: string, before: string, batch: number[]): string[] {
    const toText = this.opts.instanceText ?? ((x: I) => (typeof x === "string" ? x : JSON.stringify(x) ?? ""));
    const min = this.opts.copyThreshold ?? 60;
    const flags = [...new Set(batch)].filter((i) => copiesInput(text, toText(this.opts.trainset[i]), before, min)).map((i) => `copies-training-input:${i}`);
    for (const f of flags) this.warn(`iteration ${this.state.iteration}: the proposed text ${f.replace(":", " ")} (≥ ${min} characters verbatim)`);
    return flags;
  }

  /** The condition that ends the run now, if any. */
  stopReason(): StopReason | undefined {
    const s = this.state;
    const stop = this.opts.stop ?? {};
    if (this.opts.signal?.aborted) return "aborted";
    if (s.metricCalls >= this.maxCalls) return "budget";
    if (stop.maxTotalCalls !== undefined && s.metricCalls + s.reflectionCalls >= stop.maxTotalCalls) return "budget";
    if (stop.targetScore !== undefined && this.bestScore >= stop.targetScore) return "target_score";
    if (stop.noImprovementIterations !== undefined && s.iteration - s.lastImprovement >= stop.noImprovementIterations) return "no_improvement";
    if (stop.maxIterations !== undefined && s.iteration >= stop.maxIterations) return "max_iterations";
    if (stop.maxReflectionCalls !== undefined && s.reflectionCalls >= stop.maxReflectionCalls) return "reflection_budget";
    if (stop.maxReflectionCostUsd !== undefined && (this.opts.reflectionCostUsd?.() ?? 0) >= stop.maxReflectionCostUsd) return "reflection_budget";
    if (stop.timeMs !== undefined && Date.now() - this.startedAt >= stop.timeMs) return "time";
    if (stop.stopFile !== undefined && existsSync(stop.stopFile)) return "stop_file";
    if (s.idleIterations >= (this.opts.maxIdleIterations ?? 100)) return "stalled";
    return undefined;
  }

  /** Closes an iteration: counts it, saves the state, reports progress. */
  async endIteration(callsBefore: number, event: Omit<Extract<ProgressEvent, { type: "iteration" }>, "type" | "iteration" | "metricCalls" | "reflectionCalls" | "bestScore">): Promise<void> {
    const s = this.state;
    s.idleIterations = s.metricCalls === callsBefore ? s.idleIterations + 1 : 0;
    s.iteration += 1;
    await this.save();
    this.opts.onProgress?.({ type: "iteration", iteration: s.iteration, metricCalls: s.metricCalls, reflectionCalls: s.reflectionCalls, bestScore: this.bestScore, ...event });
  }

  /** Saves the state (with the PRNG's position) when a state file is set. */
  async save(): Promise<void> {
    this.state.rng = this.rng.state;
    if (this.opts.stateFile) await saveState(this.opts.stateFile, this.state);
  }

  /** The result of the run as it stands. */
  result(stopReason: StopReason): OptimizeResult {
    const s = this.state;
    const best = argmax(this.means);
    const lineage = [best];
    while (s.candidates[lineage[0]].parents.length > 0) lineage.unshift(s.candidates[lineage[0]].parents[0]);
    const curve = [...s.curve];
    if (curve[curve.length - 1].metricCalls < s.metricCalls) curve.push({ metricCalls: s.metricCalls, bestScore: this.bestScore });
    return {
      best: { index: best, candidate: s.candidates[best].candidate, meanScore: s.candidates[best].meanScore, lineage },
      candidates: s.candidates,
      front: s.front,
      budget: { metricCalls: s.metricCalls, maxMetricCalls: this.maxCalls, reflectionCalls: s.reflectionCalls, cacheHits: s.cacheHits },
      curve,
      iterations: s.iteration,
      stopReason,
      failedProposals: s.failedProposals,
      warnings: s.warnings,
    };
  }
}

function validate<I>(o: OptimizeOptions<I>): void {
  const bad = (m: string) => new RubricateError("BAD_INPUT", `optimize: ${m}`);
  if (!o.seed || Object.keys(o.seed).length === 0) throw bad("the seed needs at least one component");
  if (Object.values(o.seed).some((v) => typeof v !== "string")) throw bad("every seed component must be a string");
  if (o.trainset.length === 0) throw bad("the trainset is empty");
  if (o.valset.length === 0) throw bad("the valset is empty");
  if (!(o.budget > 0)) throw bad("budget must be a positive number of metric calls");
  const mb = o.minibatchSize ?? 3;
  if (!Number.isInteger(mb) || mb < 1) throw bad("minibatchSize must be a positive integer");
  if (o.resume && !o.stateFile) throw bad("resume needs a stateFile");
  if (o.candidateSelection !== undefined && !["pareto", "current_best", "uniform"].includes(o.candidateSelection)) {
    throw bad(`candidateSelection must be pareto, current_best or uniform, got ${String(o.candidateSelection)}`);
  }
  if (o.stop?.maxReflectionCostUsd !== undefined && !o.reflectionCostUsd) throw bad("stop.maxReflectionCostUsd needs reflectionCostUsd (e.g. () => reflector.usage().costUsd)");
}

function fingerprintOf<I>(o: OptimizeOptions<I>, algorithm: string): string {
  let data: string;
  try {
    data = hashJson([o.trainset, o.valset]);
  } catch {
    data = `${o.trainset.length}/${o.valset.length}`;
  }
  return hashJson({
    algorithm, seed: candidateHash(o.seed), components: Object.keys(o.seed), data, mb: o.minibatchSize ?? 3, rng: o.rngSeed ?? 0, tol: o.acceptTolerance ?? 0,
    perfect: o.perfectScore ?? 1, skip: o.skipPerfect ?? true, merge: o.useMerge ?? false, maxMerge: o.maxMergeInvocations ?? 5,
    // Only when set, so state files written before the option existed still resume.
    ...(o.candidateSelection && o.candidateSelection !== "pareto" ? { selection: o.candidateSelection } : {}),
  });
}
