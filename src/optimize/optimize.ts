import { mergeSubsample, proposeMerge } from "./merge.js";
import { argmax, selectParent } from "./pareto.js";
import { Run, sum } from "./run.js";
import { nextMinibatch } from "./sampler.js";
import type { OptimizeOptions, OptimizeResult, ProgressEvent } from "./types.js";

type Outcome = Omit<Extract<ProgressEvent, { type: "iteration" }>, "type" | "iteration" | "metricCalls" | "reflectionCalls" | "bestScore">;

/**
 * GEPA (Agrawal et al. 2025): evolves a candidate's text components by reflecting on feedback
 * from minibatches, keeping a per-instance Pareto front over the valset. Returns the candidate
 * with the best mean valset score, its lineage, every candidate and the budget spent.
 * @example
 * const result = await optimize({
 *   seed: { system: "You are a helpful assistant." },
 *   evaluate: async (candidate, instances) => ({ scores: [...], feedback: [...] }),
 *   reflect: async ({ candidate, component, reflectiveDataset }) =>
 *     llm(buildReflectionPrompt(candidate[component], reflectiveDataset)),
 *   trainset, valset, budget: 400, stateFile: "runs/gepa.json",
 * });
 * console.log(result.best.meanScore, result.best.candidate.system);
 */
export async function optimize<I>(options: OptimizeOptions<I>): Promise<OptimizeResult> {
  const run = await Run.start(options, "gepa");
  for (;;) {
    const reason = run.stopReason();
    if (reason) return run.result(reason);
    const callsBefore = run.state.metricCalls;
    const outcome = await gepaIteration(run);
    await run.endIteration(callsBefore, outcome);
  }
}

async function gepaIteration<I>(run: Run<I>): Promise<Outcome> {
  const { state: s, opts } = run;
  if (opts.useMerge && s.merge.due > 0 && s.merge.lastIterFoundNew) {
    const outcome = await tryMerge(run);
    s.merge.lastIterFoundNew = false;
    if (outcome) return outcome;
  }
  s.merge.lastIterFoundNew = false;

  const parent = chooseParent(run);
  const record = run.candidates[parent];
  const batch = nextMinibatch(s.sampler, opts.trainset.length, opts.minibatchSize ?? 3, s.iteration, run.rng);
  const instances = batch.map((i) => opts.trainset[i]);
  const before = await run.evalCached(record.candidate, "train", batch, true);
  if ((opts.skipPerfect ?? true) && before.scores.every((x) => x >= (opts.perfectScore ?? 1))) {
    return { kind: "skipped_perfect", parent };
  }

  const component = run.names[record.nextComponent % run.names.length];
  record.nextComponent = (record.nextComponent + 1) % run.names.length;
  const dataset = run.reflectiveDataset(record.candidate, component, instances, before);
  // As the reference does: no row for this component, no proposal (a rewrite from other rows is always rejected).
  if (dataset.length === 0) return { kind: "skipped_no_data", parent, detail: `no minibatch item concerns ${component}` };
  const text = await run.propose(record.candidate, component, dataset);
  if (typeof text !== "string") return { kind: "failed_proposal", parent, detail: text.failed };

  const child = { ...record.candidate, [component]: text };
  const flags = run.copyFlags(text, record.candidate[component], batch);
  const after = await run.evalCached(child, "train", batch, false);
  const [old, now] = [sum(before.scores), sum(after.scores)];
  if (!(now > old + (opts.acceptTolerance ?? 0))) {
    return { kind: "rejected", parent, detail: `minibatch ${now} vs parent ${old}` };
  }
  const existing = run.findCandidate(child);
  if (existing !== undefined) return { kind: "duplicate", parent, child: existing, detail: `same texts as candidate ${existing}` };
  const index = await run.addEvaluated(child, { parents: [parent], tag: "reflection", component, flags, nextComponent: record.nextComponent });
  if (opts.useMerge) {
    s.merge.lastIterFoundNew = true;
    if (s.merge.tested < (opts.maxMergeInvocations ?? 5)) s.merge.due += 1;
  }
  return { kind: "accepted", parent, child: index, detail: `minibatch ${now} vs parent ${old}` };
}

/** One merge attempt; undefined when no pair qualifies (the iteration then reflects instead). */
async function tryMerge<I>(run: Run<I>): Promise<Outcome | undefined> {
  const { state: s } = run;
  const cands = run.candidates.map((c) => c.candidate);
  const parents = run.candidates.map((c) => c.parents);
  const proposal = proposeMerge(run.rng, cands, parents, run.valScores, run.means, s.merge);
  if (!proposal) return undefined;
  const { i, j, candidate } = proposal;
  const sub = mergeSubsample(run.valScores[i], run.valScores[j], run.rng);
  const sumI = sum(sub.map((k) => run.valScores[i][k]));
  const sumJ = sum(sub.map((k) => run.valScores[j][k]));
  const merged = sum((await run.evalCached(candidate, "val", sub, false)).scores);
  const detail = `merge of ${i} and ${j} via ${proposal.ancestor}: ${merged} vs parents ${sumI}, ${sumJ}`;
  if (merged < Math.max(sumI, sumJ)) return { kind: "merge_rejected", detail };
  const existing = run.findCandidate(candidate);
  if (existing !== undefined) return { kind: "duplicate", child: existing, detail: `${detail}; same texts as candidate ${existing}` };
  const nextComponent = Math.max(run.candidates[i].nextComponent, run.candidates[j].nextComponent);
  const index = await run.addEvaluated(candidate, { parents: [i, j], tag: "merge", flags: [], nextComponent });
  s.merge.due -= 1;
  s.merge.tested += 1;
  return { kind: "merge_accepted", child: index, detail };
}

/** The parent of this iteration's reflection, by the run's `candidateSelection`. */
function chooseParent<I>(run: Run<I>): number {
  const how = run.opts.candidateSelection ?? "pareto";
  if (how === "current_best") return argmax(run.means);
  if (how === "uniform") return run.rng.int(run.candidates.length);
  return selectParent(run.valScores, run.means, run.rng);
}
