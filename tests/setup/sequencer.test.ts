/**
 * The committed order of slow files names files that exist: a renamed or split file would silently
 * lose its place. And the order itself: the long files first, the rest project by project.
 */
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";
import LongestFirst, { SLOW_FILES } from "./sequencer.js";

it("every file in SLOW_FILES exists", () => {
  const missing = Object.keys(SLOW_FILES).filter((path) => !existsSync(join(ROOT, path)));
  expect(missing).toEqual([]);
  expect(Object.keys(SLOW_FILES).length).toBeGreaterThan(10);
});

/** A file of `project` for the sequencer: its last run's seconds, or none (a fresh clone), and its size. */
interface Fake {
  path: string;
  project: string;
  seconds?: number;
  failed?: boolean;
  size?: number;
}

/** The order LongestFirst gives `files`, as paths: projects in the order given, with vitest's cache of the last run faked. */
async function order(files: Fake[], projectNames = ["unit", "shared", "built", "built-shared"]): Promise<string[]> {
  const projects = projectNames.map((name) => ({ name, config: { sequence: { groupOrder: 0 } } }));
  const byKey = new Map(files.map((f) => [`${f.project}:${f.path}`, f]));
  const ctx = {
    config: { root: ROOT },
    projects,
    cache: {
      getFileTestResults: (key: string) => {
        const f = byKey.get(key);
        return f?.seconds === undefined ? undefined : { duration: f.seconds * 1000, failed: f.failed ?? false };
      },
      getFileStats: (key: string) => ({ size: byKey.get(key)?.size ?? 0 }),
    },
  };
  const specs = files.map((f) => ({ moduleId: join(ROOT, f.path), project: projects.find((p) => p.name === f.project) }));
  const sorted = await new LongestFirst(ctx as unknown as ConstructorParameters<typeof LongestFirst>[0]).sort(specs as unknown as Parameters<LongestFirst["sort"]>[0]);
  return sorted.map((spec) => relative(ROOT, spec.moduleId));
}

it("the long files first, longest first, whatever their project; then the short ones project by project (a shared project's worker goes on to its next file only when that file is next in the queue)", async () => {
  const files: Fake[] = [
    { path: "tests/a/short-unit.test.ts", project: "unit", seconds: 2 },
    { path: "tests/a/short-shared.test.ts", project: "shared", seconds: 1.5 },
    { path: "tests/a/long-unit.test.ts", project: "unit", seconds: 30 },
    { path: "tests/a/tiny-unit.test.ts", project: "unit", seconds: 0.2 },
    { path: "tests/a/short-built-shared.test.ts", project: "built-shared", seconds: 3 },
    { path: "tests/a/tiny-shared.test.ts", project: "shared", seconds: 0.1 },
    { path: "tests/a/long-shared.test.ts", project: "shared", seconds: 12 },
    { path: "tests/a/failed-shared.test.ts", project: "shared", seconds: 0.3, failed: true },
    { path: "tests/a/mid-shared.test.ts", project: "shared", seconds: 1 },
  ];
  expect(await order(files)).toEqual([
    "tests/a/failed-shared.test.ts",
    "tests/a/long-unit.test.ts",
    "tests/a/long-shared.test.ts",
    "tests/a/short-unit.test.ts",
    "tests/a/tiny-unit.test.ts",
    "tests/a/short-shared.test.ts",
    "tests/a/mid-shared.test.ts",
    "tests/a/tiny-shared.test.ts",
    "tests/a/short-built-shared.test.ts",
  ]);
});

it("on a fresh clone (no last run): SLOW_FILES first, then the rest project by project, the largest files first", async () => {
  const byTime = Object.entries(SLOW_FILES).sort((a, b) => b[1] - a[1]);
  const [slowest, second] = [byTime[0], byTime.find(([, seconds]) => seconds < byTime[0][1])!];
  const files: Fake[] = [
    { path: "tests/a/big-shared.test.ts", project: "shared", size: 9000 },
    { path: "tests/a/small-unit.test.ts", project: "unit", size: 100 },
    { path: second[0], project: "shared", size: 10 },
    { path: "tests/a/mid-unit.test.ts", project: "unit", size: 5000 },
    { path: slowest[0], project: "built-shared", size: 10 },
    { path: "tests/a/small-shared.test.ts", project: "shared", size: 200 },
  ];
  expect(await order(files)).toEqual([slowest[0], second[0], "tests/a/mid-unit.test.ts", "tests/a/small-unit.test.ts", "tests/a/big-shared.test.ts", "tests/a/small-shared.test.ts"]);
});
