/**
 * The million-row distill run (tests/distill/million.child.ts in a child with a capped old space),
 * at a given size: tests/distill/million.test.ts runs a quarter of it in `npm test`,
 * tests/faults/long/million.test.ts the whole million in `npm run test:faults`.
 */
import { spawn } from "node:child_process";
import { createReadStream, rmSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { ROOT, tempDir } from "../helpers/cli.js";
import { compiledFixture } from "../engine/fixtures/child.js";

/** A run's size and the memory it may use. */
export interface MillionRun {
  rows: number;
  /**
   * The child's old-space cap, MiB: it makes "bounded" falsifiable, as a live set that grows with
   * the file dies of OOM. It must be small enough for the run's size: at 250,000 rows a distill
   * that keeps every parsed row fits in 128 MiB (peak RSS 231 MiB) and dies in 64 MiB.
   */
  heapMiB: number;
  /** Peak resident memory allowed to the child, KiB. */
  boundKiB: number;
}

async function countLines(path: string): Promise<number> {
  let n = 0;
  for await (const chunk of createReadStream(path)) for (const byte of chunk as Buffer) if (byte === 10) n++;
  return n;
}

/** Streams `rows` generated rows through scoring (code checks), best-of, near-dedup and tag caps, and checks counts and memory. */
export async function expectBoundedDistill(run: MillionRun): Promise<void> {
  const { rows, heapMiB } = run;
  const dir = tempDir("rubricate-million-");
  // The tag cap scales with the size so that it drops rows at every size (5 tag families).
  const maxPerTag = rows / 25;
  // The child and the sources it imports, bundled once (per content) into a file plain `node` runs:
  // under tsx's loader the same 250,000 rows took ~15 s of CPU against ~13 s, most of the difference
  // tsx's keep-names helper (`__name`), called wherever a function value is made.
  const script = await compiledFixture(join(ROOT, "tests/distill/million.child.ts"));
  const rubric = join(ROOT, "tests/fixtures/distill/checks-rubric.yaml");
  const child = spawn(process.execPath, [`--max-old-space-size=${heapMiB}`, script, String(rows), dir, String(maxPerTag), rubric], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  try {
    await expectCounts(code, stdout, stderr, run, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The child's exit, counts and peak memory, and the output file's line count. */
async function expectCounts(code: number | null, stdout: string, stderr: string, { rows, boundKiB }: MillionRun, dir: string): Promise<void> {
  expect(code, stderr).toBe(0);
  const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as { rows: number; kept: number; dropped: Record<string, number>; maxRssKiB: number };
  expect(result.rows).toBe(rows);
  // rows/4 prompts × 4 rollouts: rollout 3 gives up (pitfall) → below min-reward; best-of 1 keeps one per prompt.
  expect(result.dropped["min-reward"]).toBeGreaterThan(rows / 4);
  expect(result.dropped["best-of"]).toBeGreaterThan(0);
  expect(result.dropped.duplicate).toBe(rows / 400); // every 100th prompt repeats the one before it
  expect(result.dropped["tag-cap"]).toBeGreaterThan(0);
  expect(await countLines(join(dir, "sft.jsonl"))).toBe(result.kept);
  expect(result.maxRssKiB).toBeLessThan(boundKiB);
}
