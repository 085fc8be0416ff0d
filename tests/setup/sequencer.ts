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
 * Seconds of the slowest files in a whole `npx vitest run` (the default reporter's per-file time,
 * 2026-12-02 08:03 UTC at load 8–16; BENCHMARKS.md, "The test suite under 5 minutes"). Only the
 * order matters: refresh it when a file's rank changes a lot.
 */
export const SLOW_FILES: Record<string, number> = {
  // The three below were one file of 472 s (split, and their CPU cut, the same day: figures scaled
  // from their runs alone); registry.test.ts measured 102 s -> 45 s alone after its seeding change.
  "tests/bridge/env-trainer-loops-ctf.test.ts": 200,
  "tests/hub/registry.test.ts": 180,
  "tests/bridge/env-trainer-loops-support-desk.test.ts": 125,
  "tests/bridge/env-trainer-loops-wordle.test.ts": 100,
  "tests/hub/hub-docs.test.ts": 151,
  "tests/package.test.ts": 119,
  "examples/calibration/run.test.ts": 97,
  "tests/hub/init-check.test.ts": 62,
  "tests/cli/optimize.test.ts": 60,
  "tests/distill/million.test.ts": 20,
  "tests/queue/score.test.ts": 54,
  "tests/readme.test.ts": 17,
  "tests/probe/rubrics.test.ts": 48,
  "tests/probe/rubrics-lexical.test.ts": 48,
  "tests/cli/score.test.ts": 47,
  "tests/layers.test.ts": 46,
  "tests/cli/worker.test.ts": 36,
  "tests/site/browser.test.ts": 34,
  "tests/engine/batch/provider-behaviour.test.ts": 33,
  "tests/env/sandbox.test.ts": 33,
  "tests/faults/leaks.test.ts": 33,
  "tests/checks/code-attacks.test.ts": 32,
  "tests/cli/output.test.ts": 28,
  "tests/import-graph.test.ts": 24,
  "tests/engine/cache/sqlite.test.ts": 23,
  "tests/distill/run.test.ts": 22,
  "tests/site/docs.test.ts": 22,
  "tests/bridge/redis-outage.test.ts": 22,
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
