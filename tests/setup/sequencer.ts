/**
 * vitest's file order: the longest files first, so the last file to start is a short one and no
 * worker sits alone at the end of a run on a long file. vitest orders by the durations of its last
 * run (node_modules/.vite/vitest), but a fresh clone has none and vitest then starts the largest
 * files first, and runs the `built` project's files before any `unit` file whatever their length.
 * This order uses, per file: the last run's duration when vitest has one, else the committed
 * seconds of SLOW_FILES, else nothing (ahead of it all: files that failed last time, as vitest does).
 *
 * Past the long files (LONG_MS), the rest go project by project, each project's longest first.
 * vitest keeps the worker of a project whose files share workers (`isolate: false`: `shared`,
 * `built-shared`) for another file only when the next file in its queue is of the same project;
 * otherwise it ends that worker, and the project's next file starts a fresh one that imports
 * vitest and the modules again (~0.7 s of CPU each; BENCHMARKS.md, "h31suite"). By length alone
 * the projects' short files alternate: replaying the queue with a run's per-file times, about half
 * of those two projects' 190 files started a worker of their own, against ~25 grouped.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Seconds of the slowest files in a whole fresh-clone `CI=true bash .ci/run` (the default
 * reporter's per-file time, 2026-12-02 23:01 UTC, `58cbd29`; BENCHMARKS.md, "Issue 31 at a
 * glance"); the six slowest of round 22's fresh clone in the README's order (`7bcf1b4`) as that run
 * timed them, queue/hardening and checks/regex among them, which had no place here and so started
 * after every listed file. Only the order matters: refresh it when a file's rank changes a lot
 * (tests/setup/sequencer.test.ts fails when a listed file no longer exists).
 */
export const SLOW_FILES: Record<string, number> = {
  "tests/hub/registry.test.ts": 41,
  "tests/queue/hardening.test.ts": 41,
  "tests/checks/regex.test.ts": 27,
  "tests/distill/million.test.ts": 27,
  "tests/env/sandbox.test.ts": 26,
  "tests/hub/hub-docs.test.ts": 25,
  "tests/engine/batch/provider-behaviour.test.ts": 26,
  "tests/bridge/env-trainer-loops-ctf.test.ts": 25,
  "tests/queue/score.test.ts": 20,
  "tests/site/browser.test.ts": 20,
  "tests/queue/eval.test.ts": 15,
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

/** A file this long or longer (its last run, else SLOW_FILES) starts among the longest, whatever its project; a shorter one with its project's files. */
export const LONG_MS = 5_000;

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const cache = this.ctx.cache;
    const known = (spec: TestSpecification) => {
      const path = relative(root, spec.moduleId);
      const last = cache.getFileTestResults(`${spec.project.name}:${path}`);
      return { failed: last?.failed ?? false, ms: last?.duration ?? (SLOW_FILES[path] ?? 0) * 1000, size: cache.getFileStats(`${spec.project.name}:${path}`)?.size ?? 0 };
    };
    const keyed = files.map((spec) => {
      const k = known(spec);
      return { spec, ...k, long: k.ms >= LONG_MS, project: this.ctx.projects.indexOf(spec.project) };
    });
    keyed.sort(
      (a, b) =>
        a.spec.project.config.sequence.groupOrder - b.spec.project.config.sequence.groupOrder ||
        Number(b.failed) - Number(a.failed) ||
        Number(b.long) - Number(a.long) ||
        (a.long ? 0 : a.project - b.project) ||
        b.ms - a.ms ||
        b.size - a.size,
    );
    return keyed.map(({ spec }) => spec);
  }
}
