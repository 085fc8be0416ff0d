/**
 * `import "rubricate"` loads only what every program needs: the provider SDKs, ioredis, mathjs,
 * better-sqlite3, the registry libraries, ajv and re2-wasm load when something uses them (a
 * provider is built, a cache opened, a math check run…), and the feature areas whose entry points
 * are asynchronous (environments, the hub, optimize, distill, probe) load on their first call.
 * Each entry is imported in a child node that lists the packages and project files it loaded
 * (tests/helpers/loaded-packages.mjs); a control run shows the listing sees those lazy loads.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { ROOT } from "./helpers/cli.js";

/** Loaded on demand only: none may load with the package root. */
const HEAVY = ["@anthropic-ai/sdk", "openai", "ioredis", "mathjs", "better-sqlite3", "@opentelemetry/api", "npm-package-arg", "semver", "ajv", "ajv-formats", "re2-wasm", "lru-cache"];
/**
 * The sources the root must not load (checked on the tsx run, where files keep their names): the
 * feature areas behind the root's lazy functions. Their synchronous entry points (createPolicy and its schema,
 * initEnvPackage, calibrate, createRewardServer) come from their own files, which may load.
 */
const LAZY_AREAS = [/^src\/optimize\//, /^src\/distill\//, /^src\/probe\//, /^src\/env\/(?!policy\.ts$|policy-schema\.ts$)/, /^src\/hub\/(?!init\.ts$|lazy\.ts$|package\.ts$)/, /^src\/engine\/(?:merge|batch\/)/];
const LISTER = join(ROOT, "tests/helpers/loaded-packages.mjs");

type Listing = { packages: string[]; files: string[] };
type Stage = "root" | "openai-call" | "control";
/** Listings already taken, by entry: the tests of one entry read the stages of one child run (a tsx child takes ~1 s of CPU). */
const listings = new Map<string, Record<Stage, Listing>>();

/**
 * What importing `entry` loaded (`root`), then also what one OpenAI call the default way loaded
 * (`openai-call`), then also what the control calls loaded (`control`): each stage lists all that
 * loaded so far, so a stage sees what the ones before it loaded too (the root's import is in each,
 * as when each stage was a child of its own; the OpenAI call loads no heavy library, which its own
 * test asserts).
 */
function loadedBy(entry: string, options: { tsx?: boolean; stage?: Stage } = {}): Listing {
  const args = [...(options.tsx ? ["--import", "tsx"] : []), LISTER, entry, "stages"];
  const key = args.join("\0");
  if (!listings.has(key)) {
    const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", env: { ...process.env, RUBRICATE_CONTROL_KEY: "sk-control-not-a-key", OPENAI_LOG: "", RUBRICATE_HTTP: "" }, timeout: 120_000 });
    listings.set(key, JSON.parse(out) as Record<Stage, Listing>);
  }
  return listings.get(key)![options.stage ?? "root"];
}

/** What importing a module that is not the package root loaded (it has no providers or caches to call). */
function loadedByModule(entry: string): Listing {
  const out = execFileSync(process.execPath, ["--import", "tsx", LISTER, entry], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  return JSON.parse(out) as Listing;
}

describe("what importing the package root loads", () => {
  const entries = [
    { name: "the built ESM entry (dist/index.js)", entry: () => join(inject("rubricateDist"), "index.js"), tsx: false },
    { name: "the built CommonJS entry (dist/index.cjs)", entry: () => join(inject("rubricateDist"), "index.cjs"), tsx: false },
    { name: "the sources (src/index.ts through tsx)", entry: () => join(ROOT, "src/index.ts"), tsx: true },
  ];

  it.each(entries)("$name: no provider SDK, ioredis, mathjs, better-sqlite3 or other heavy library", ({ entry, tsx }) => {
    const { packages, files } = loadedBy(entry(), { tsx });
    // The listing sees the root's own graph: the entry file and, from the sources, zod and yaml,
    // which every rubric needs (dist/ bundles them, so they are not packages there).
    expect(files.length).toBeGreaterThan(10);
    if (tsx) expect(packages).toEqual(expect.arrayContaining(["zod", "yaml"]));
    expect(packages.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it("the sources: the root does not load the feature areas behind its lazy functions", () => {
    const { files } = loadedBy(join(ROOT, "src/index.ts"), { tsx: true });
    // The listing sees the files the root does need.
    expect(files).toEqual(expect.arrayContaining(["src/index.ts", "src/score/score.ts", "src/rubric/load.ts", "src/env/policy.ts"]));
    expect(files.filter((f) => LAZY_AREAS.some((area) => area.test(f)))).toEqual([]);
  });

  it.each(entries)("$name: building providers and opening a Redis cache loads their libraries (the listing sees lazy loads)", ({ entry, tsx }) => {
    const { packages } = loadedBy(entry(), { tsx, stage: "control" });
    expect(packages).toEqual(expect.arrayContaining(["openai", "@anthropic-ai/sdk", "ioredis", "better-sqlite3"]));
  });

  it.each(entries)("$name: an OpenAI call the default way loads no SDK (it goes out without one)", ({ entry, tsx }) => {
    const { packages } = loadedBy(entry(), { tsx, stage: "openai-call" });
    expect(packages.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it("the sources: calling a lazy entry point loads its area (the listing sees lazy areas)", () => {
    const { files } = loadedBy(join(ROOT, "src/index.ts"), { tsx: true, stage: "control" });
    expect(files).toEqual(expect.arrayContaining(["src/env/load.ts", "src/distill/run.ts"]));
  });
});

describe("what a command module loads before its command runs", () => {
  it("`rubricate env` (init, check, synth, filter, push…) registers its commands without loading the engine, judge, eval, rollout loop or search", () => {
    const { files } = loadedByModule(join(ROOT, "src/cli/commands/env.ts"));
    // The listing sees the command modules themselves.
    expect(files).toEqual(expect.arrayContaining(["src/cli/commands/env.ts", "src/cli/env-synth.ts", "src/cli/env-filter.ts", "src/hub/init.ts"]));
    const heavy = ["src/engine/engine.ts", "src/judge/create.ts", "src/env/eval.ts", "src/env/rollout.ts", "src/env/load.ts", "src/corpus/synth.ts", "src/corpus/search.ts", "src/corpus/read.ts", "src/hub/check.ts"];
    expect(files.filter((f) => heavy.includes(f))).toEqual([]);
  });
});

describe("what the `tests` and `math` kinds cost a start-up", () => {
  /** The `tests` harness with what it starts processes with, and the `math` comparison: loaded on such a check's first run only. */
  const ON_FIRST_RUN = [/^src\/checks\/code\/(?:check|runner|relay)\.ts$/, /^src\/sandbox\//, /^src\/checks\/math\/(?:check|equivalent|compare|read|latex)\.ts$/];

  it("`rubricate score` and the table of check kinds load neither the `tests` harness, the sandbox nor the `math` comparison", () => {
    for (const entry of ["src/cli/commands/score.ts", "src/checks/kinds.ts"]) {
      const { files } = loadedByModule(join(ROOT, entry));
      // The listing sees the kinds, and the `tests` and `math` kinds' own files and settings among them.
      expect(files).toEqual(expect.arrayContaining(["src/checks/kinds.ts", "src/checks/kinds/tests.ts", "src/checks/code/spec.ts", "src/checks/kinds/math.ts", "src/checks/math/spec.ts"]));
      expect(files.filter((f) => ON_FIRST_RUN.some((h) => h.test(f)))).toEqual([]);
    }
  });

  it("what a first run imports loads them (the listing sees them)", () => {
    expect(loadedByModule(join(ROOT, "src/checks/code/check.ts")).files).toEqual(expect.arrayContaining(["src/checks/code/runner.ts", "src/sandbox/index.ts"]));
    expect(loadedByModule(join(ROOT, "src/checks/math/check.ts")).files).toEqual(expect.arrayContaining(["src/checks/math/compare.ts", "src/checks/math/latex.ts"]));
  });
});

describe("what the bundle of dist/ keeps of zod", () => {
  it("the sources import zod as a namespace: `import { z }` is zod's namespace object as a value, which keeps all of zod (twice the code every start-up compiles)", () => {
    const files = readdirSync(join(ROOT, "src"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    const valueImports = files.filter((f) => /^import \{[^}]*\bz\b[^}]*\} from "zod"/m.test(readFileSync(join(ROOT, "src", f), "utf8")));
    // The scan sees the namespace imports.
    expect(files.filter((f) => readFileSync(join(ROOT, "src", f), "utf8").includes('import * as z from "zod";')).length).toBeGreaterThan(20);
    expect(valueImports).toEqual([]);
  });
});
