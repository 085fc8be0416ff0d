import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { delimiter, join } from "node:path";
import { defineConfig } from "vitest/config";
import LongestFirst from "./tests/setup/sequencer.js";

const include = ["tests/**/*.test.ts", "rubrics/**/*.test.ts", "examples/**/*.test.ts"];
const exclude = ["tests/faults/long/**", "node_modules/**"];

/**
 * Test files that run the built package: the CLI through the runners of tests/helpers/cli.ts and
 * their wrappers (tests/faults/harness.ts's `startRun` and `faultStorm` among them), the packed tarball (`packBuilt(`), or `dist/` itself (`rubricateDist`). They form
 * the `built` project, whose globalSetup builds `dist/` once per run when the sources changed
 * (tests/setup/build.ts); a run of other files alone never builds. A file this misses still
 * passes: its CLI runs from the sources through tsx, only slower.
 */
const RUNS_BUILT = /\b(?:runCli|spawnCli|startServe|cliEntry|packBuilt|spawnDistill|runDistillCli|startRun|faultStorm)\(|\bcli\(\[|rubricateDist/;
function builtFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && path !== join("tests", "faults", "long")) walk(path);
      } else if (entry.name.endsWith(".test.ts") && RUNS_BUILT.test(readFileSync(path, "utf8"))) out.push(path);
    }
  };
  for (const dir of ["tests", "rubrics", "examples"]) walk(dir);
  return out;
}
const built = builtFiles();

/**
 * PATH for the test workers, without pyenv's shims. A shim is a bash script that starts pyenv for
 * every `python3` (0.10–0.12 s of CPU against 0.02–0.04 s for the interpreter alone on this
 * machine), and the suite starts hundreds of them: each Python `tests` check is two processes
 * (tests/probe/rubrics*.test.ts 80 each, tests/checks/*), and the bridge's drivers more.
 * Without the shims `python3` is the next one on PATH, the system's, which is the one the
 * tests are written for (Debian's, with python3-torch). tests/probe/rubrics-lexical.test.ts alone:
 * 23 s of CPU with the shims, 12 s without.
 */
function withoutPyenvShims(path = process.env.PATH ?? ""): string {
  return path.split(delimiter).filter((dir) => !/[/\\]\.?pyenv[/\\](?:.*[/\\])?shims[/\\]?$/.test(dir)).join(delimiter);
}

export default defineConfig({
  // `rubricate` and `rubricate/<area>` resolve to src/ through tsconfig.json's `paths` (examples
  // import the package's entry points, and dist/ is not built on a fresh clone); tsx does the same.
  resolve: { tsconfigPaths: true },
  test: {
    testTimeout: 60_000,
    env: { PATH: withoutPyenvShims() },
    hookTimeout: 60_000,
    pool: "forks",
    // The longest files first, also on a fresh clone, which has no durations of a last run to go by.
    sequence: { sequencer: LongestFirst },
    // vitest's default is one worker per core minus one: a single worker on a two-core machine,
    // while most files wait on the child processes and servers they start (the CLI, bubblewrap,
    // Redis, Verdaccio). One more worker than cores overlaps those waits: tests/cli took 108 s
    // instead of 160 s for the same CPU time (BENCHMARKS.md, "Test suite"). RUBRICATE_TEST_WORKERS
    // overrides; no test asserts wall-clock times, so a slower file is never a failure.
    maxWorkers: Number(process.env.RUBRICATE_TEST_WORKERS) || availableParallelism() + 1,
    projects: [
      { extends: true, test: { name: "unit", include, exclude: [...exclude, ...built] } },
      { extends: true, test: { name: "built", include: built, exclude, globalSetup: ["tests/setup/build.ts"], hookTimeout: 600_000 } },
    ],
  },
});
