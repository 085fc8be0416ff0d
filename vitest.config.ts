import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { delimiter, join } from "node:path";
import { defineConfig } from "vitest/config";
import LongestFirst from "./tests/setup/sequencer.js";

const include = ["tests/**/*.test.ts", "rubrics/**/*.test.ts", "examples/**/*.test.ts"];
const exclude = ["tests/faults/long/**", "node_modules/**"];

/**
 * Test files that run the built package: the CLI through the runners of tests/helpers/cli.ts and
 * their wrappers (tests/faults/harness.ts's `startRun` and `faultStorm` among them), the packed tarball (`packBuilt(`, `installBuilt(`), or `dist/` itself (`rubricateDist`). They form
 * the `built` project, whose globalSetup builds `dist/` once per run when the sources changed
 * (tests/setup/build.ts); a run of other files alone never builds. A file this misses still
 * passes: its CLI runs from the sources through tsx, only slower.
 */
const RUNS_BUILT = /\b(?:runCli|spawnCli|startServe|cliEntry|packBuilt|installBuilt|spawnDistill|runDistillCli|startRun|faultStorm)\(|\bcli\(\[|rubricateDist/;
/** Every test file under `dirs` (tests/faults/long aside) whose text matches `pattern`. */
function filesMatching(pattern: RegExp, dirs = ["tests", "rubrics", "examples"]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && path !== join("tests", "faults", "long")) walk(path);
      } else if (entry.name.endsWith(".test.ts") && pattern.test(readFileSync(path, "utf8"))) out.push(path);
    }
  };
  for (const dir of dirs) walk(dir);
  return out;
}
const built = filesMatching(RUNS_BUILT);

/**
 * The `shared` project: files that run one after another in a worker that keeps its loaded modules
 * (vitest's `isolate: false`) instead of a fresh process per file, which imports the engine, the
 * SDKs and vitest again for every file. vitest hands such a worker on only to the next file in its
 * queue, and only if that file is of the same project: tests/setup/sequencer.ts queues each
 * project's short files together. The 103 files it holds now, alone: 136 s of CPU isolated,
 * 66 s shared in order and 79 s shuffled (all passing each way; 2026-12-02). Seven more once timers and
 * methods stopped counting as process-wide (corpus/read, distill/rollouts, engine/cache/redis and sqlite,
 * engine/engine and scheduler, score/score): with the other shared files of their folders, 26.8 s of
 * CPU isolated against 20.9 s shared (2026-12-02, h32files). Nineteen more from the examples, the
 * files directly in tests/ and the CLI, hub, queue, rubrics, sandbox, setup and helpers folders:
 * 41 s of CPU isolated against 31 s shared (18 of them, two pairs; 2026-12-02, h34suite). In these
 * folders only a file that leaves no process-wide trace is in it: one that sets the environment
 * (spreading `...process.env` into a child's only reads it), listens on `process`, mocks,
 * stubs, fakes timers, or calls a `set…(`/`register…(` (a code runner, a check; not a method such as a
 * test server's `.setBehavior(`, nor `setTimeout(`) stays isolated; a `built` file goes to
 * `built-shared` below. Not in it: tests/site (its files share src/site's module state: they
 * failed shared), tests/bridge (one failure shared and shuffled; 10 s against 8.5 s of CPU, little
 * to gain), tests/providers, and tests/faults (its leak check counts the process's handles).
 */
const SHARED_DIRS = [
  ...["rubric", "score", "text", "stats", "report", "config", "draft", "calibrate", "optimize", "corpus", "distill", "judge", "checks", "env", "engine", "probe"],
  ...["cli", "hub", "queue", "rubrics", "sandbox", "setup", "helpers"],
].map((d) => join("tests", d)).concat("examples");
const TOUCHES_PROCESS = /\bvi\.(?:spyOn|useFakeTimers|mock|doMock|stubGlobal|stubEnv|resetModules)\b|(?<!\.\.\.)process\.(?:env|on|once|off|chdir|exitCode|umask|removeAllListeners|setMaxListeners)\b|globalThis\b|(?<![.\w])set(?!Timeout\(|Immediate\(|Interval\()[A-Z]\w*\(|\bregister\w*\(/;
const leavesNoTrace = (path: string) => !TOUCHES_PROCESS.test(readFileSync(path, "utf8"));
/** The test files directly in tests/ (the package, the README, the import graph, the layers). */
const topLevel = readdirSync("tests").filter((name) => name.endsWith(".test.ts")).map((name) => join("tests", name));
const sharable = [...filesMatching(/(?:)/, SHARED_DIRS), ...topLevel].filter(leavesNoTrace);
const shared = sharable.filter((path) => !built.includes(path));
/**
 * The `built` files that leave no process-wide trace either (the same test as `shared`, in the same
 * folders, plus those directly in tests/): they run the CLI and npm as child processes or through
 * `runCliInProcess`, which restores what it changes, and close their servers and registries in
 * their own hooks, so one worker can run them one after another. The 32 of them alone: 125 s of CPU
 * isolated against 115 s shared (2026-12-02, h34suite). Not in it, as not in `shared`: tests/bridge,
 * tests/site, tests/faults.
 */
const builtShared = built.filter((path) => sharable.includes(path));

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
    setupFiles: ["tests/setup/temp-dirs.ts"],
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
      { extends: true, test: { name: "unit", include, exclude: [...exclude, ...built, ...shared] } },
      { extends: true, test: { name: "shared", include: shared, exclude, isolate: false } },
      { extends: true, test: { name: "built", include: built, exclude: [...exclude, ...builtShared], globalSetup: ["tests/setup/build.ts"], hookTimeout: 600_000 } },
      { extends: true, test: { name: "built-shared", include: builtShared, exclude, globalSetup: ["tests/setup/build.ts"], hookTimeout: 600_000, isolate: false } },
    ],
  },
});
