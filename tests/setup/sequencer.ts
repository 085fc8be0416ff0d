/**
 * vitest's file order: the longest files first, so the last file to start is a short one and no
 * worker sits alone at the end of a run on a long file. vitest orders by the durations of its last
 * run (node_modules/.vite/vitest), but a fresh clone has none and vitest then starts the largest
 * files first, and runs the `built` project's files before any `unit` file whatever their length.
 * This order uses, per file: the last run's duration when vitest has one, else the committed
 * seconds of SLOW_FILES, else nothing (ahead of it all: files that failed last time, as vitest does).
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Summed test seconds of the slowest files in a whole `npx vitest run` (BENCHMARKS.md, "The test
 * suite under 5 minutes"). Only the order matters: refresh it when a file's rank changes a lot.
 */
export const SLOW_FILES: Record<string, number> = {
  "tests/bridge/env-trainer-loops.test.ts": 120,
  "tests/hub/registry.test.ts": 67,
  "tests/readme.test.ts": 60,
  "tests/package.test.ts": 53,
  "tests/queue/score.test.ts": 45,
  "examples/calibration/run.test.ts": 34,
  "tests/cli/worker.test.ts": 30,
  "tests/probe/rubrics.test.ts": 30,
  "tests/probe/rubrics-lexical.test.ts": 30,
  "tests/faults/leaks.test.ts": 25,
  "tests/distill/million.test.ts": 25,
  "tests/distill/run.test.ts": 21,
  "tests/cli/optimize.test.ts": 17,
  "tests/engine/batch/provider-behaviour.test.ts": 17,
  "tests/layers.test.ts": 14,
  "tests/engine/cache/sqlite.test.ts": 12,
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const cache = this.ctx.cache;
    const known = (spec: TestSpecification) => {
      const path = relative(root, spec.moduleId);
      const last = cache.getFileTestResults(`${spec.project.name}:${path}`);
      return { failed: last?.failed ?? false, ms: last?.duration ?? (SLOW_FILES[path] ?? 0) * 1000, size: cache.getFileStats(`${spec.project.name}:${path}`)?.size ?? 0 };
    };
    const keyed = files.map((spec) => ({ spec, ...known(spec) }));
    keyed.sort((a, b) => a.spec.project.config.sequence.groupOrder - b.spec.project.config.sequence.groupOrder || Number(b.failed) - Number(a.failed) || b.ms - a.ms || b.size - a.size);
    return keyed.map(({ spec }) => spec);
  }
}
