import { Run } from "./run.js";
import type { OptimizeOptions, OptimizeResult } from "./types.js";

/**
 * A baseline with GEPA's proposals but none of its selection: each iteration reflects on a
 * uniformly chosen candidate over a uniformly drawn minibatch and evaluates the child on the
 * whole valset, keeping every child. Same options, budget accounting, cache and state file as
 * `optimize` (merge, skip-perfect and acceptance options are ignored).
 */
export async function randomSearch<I>(options: OptimizeOptions<I>): Promise<OptimizeResult> {
  const run = await Run.start(options, "random");
  const size = options.minibatchSize ?? 3;
  const allTrain = options.trainset.map((_, i) => i);
  for (;;) {
    const reason = run.stopReason();
    if (reason) return run.result(reason);
    const callsBefore = run.state.metricCalls;
    const parent = run.rng.int(run.candidates.length);
    const record = run.candidates[parent];
    const batch = run.rng.sample(allTrain, size);
    const before = await run.evalCached(record.candidate, "train", batch, true);
    const component = run.names[record.nextComponent % run.names.length];
    record.nextComponent = (record.nextComponent + 1) % run.names.length;
    const instances = batch.map((i) => options.trainset[i]);
    const dataset = run.reflectiveDataset(record.candidate, component, instances, before);
    if (dataset.length === 0) {
      await run.endIteration(callsBefore, { kind: "skipped_no_data", parent, detail: `no minibatch item concerns ${component}` });
      continue;
    }
    const text = await run.propose(record.candidate, component, dataset);
    if (typeof text !== "string") {
      await run.endIteration(callsBefore, { kind: "failed_proposal", parent, detail: text.failed });
      continue;
    }
    const flags = run.copyFlags(text, record.candidate[component], batch);
    const child = { ...record.candidate, [component]: text };
    const existing = run.findCandidate(child);
    if (existing !== undefined) {
      await run.endIteration(callsBefore, { kind: "duplicate", parent, child: existing });
      continue;
    }
    const index = await run.addEvaluated(child, { parents: [parent], tag: "random", component, flags, nextComponent: record.nextComponent });
    await run.endIteration(callsBefore, { kind: "accepted", parent, child: index });
  }
}
