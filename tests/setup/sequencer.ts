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
 * Seconds of the slowest files in a whole fresh-clone `CI=true bash .ci/run` (the default
 * reporter's per-file time, 2026-12-02 23:01 UTC, `58cbd29`; BENCHMARKS.md, "Issue 31 at a
 * glance"). Only the order matters: refresh it when a file's rank changes a lot
 * (tests/setup/sequencer.test.ts fails when a listed file no longer exists).
 */
export const SLOW_FILES: Record<string, number> = {
  "tests/hub/registry.test.ts": 50,
  "tests/hub/hub-docs.test.ts": 42,
  "tests/distill/million.test.ts": 27,
  "tests/engine/batch/provider-behaviour.test.ts": 26,
  "tests/bridge/env-trainer-loops-ctf.test.ts": 25,
  "tests/queue/score.test.ts": 20,
  "tests/site/browser.test.ts": 20,
  "tests/queue/eval.test.ts": 15,
  "tests/env/sandbox.test.ts": 13,
  "tests/readme.test.ts": 13,
  "tests/faults/faults.test.ts": 12,
  "tests/package.test.ts": 12,
  "tests/checks/code-attacks.test.ts": 11,
  "tests/bridge/env-trainer-loops-support-desk.test.ts": 11,
  "tests/bridge/env-trainer-loops-wordle.test.ts": 10,
  "tests/bridge/redis-outage.test.ts": 9,
  "tests/probe/rubrics.test.ts": 9,
  "tests/probe/rubrics-lexical.test.ts": 9,
  "tests/site/queue-evals.test.ts": 9,
  "tests/faults/leaks.test.ts": 8,
  "tests/cli/worker.test.ts": 8,
  "tests/engine/cache/sqlite.test.ts": 8,
  "tests/probe/hacks.test.ts": 8,
  "tests/distill/run.test.ts": 8,
  "tests/bridge/security.test.ts": 8,
  "tests/bridge/replicas.test.ts": 7,
  "tests/layers.test.ts": 7,
  "tests/faults/cache-faults.test.ts": 7,
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
