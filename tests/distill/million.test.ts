import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, tempDir } from "../helpers/cli.js";

const ROWS = 1_000_000;
/** Peak resident memory allowed to the child, KiB. */
const BOUND_KIB = 300 * 1024;

async function countLines(path: string): Promise<number> {
  let n = 0;
  for await (const chunk of createReadStream(path)) for (const byte of chunk as Buffer) if (byte === 10) n++;
  return n;
}

describe("a million rows", () => {
  it(
    "stream through scoring (code checks), best-of, near-dedup and tag caps with bounded memory",
    async () => {
      const dir = tempDir("rubricate-million-");
      // The old-space cap makes "bounded" falsifiable: were the live set to grow with the file, the child would die of OOM.
      const child = spawn(process.execPath, ["--max-old-space-size=128", "--import", "tsx", join(ROOT, "tests/distill/million.child.ts"), String(ROWS), dir], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      const code = await new Promise<number | null>((done) => child.on("close", done));
      expect(code, stderr).toBe(0);
      const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as { rows: number; kept: number; dropped: Record<string, number>; maxRssKiB: number };
      expect(result.rows).toBe(ROWS);
      // 250k prompts × 4 rollouts: rollout 3 gives up (pitfall) → below min-reward; best-of 1 keeps one per prompt.
      expect(result.dropped["min-reward"]).toBeGreaterThan(ROWS / 4);
      expect(result.dropped["best-of"]).toBeGreaterThan(0);
      expect(result.dropped.duplicate).toBe(2500); // every 100th prompt repeats the one before it
      expect(result.dropped["tag-cap"]).toBeGreaterThan(0);
      expect(await countLines(join(dir, "sft.jsonl"))).toBe(result.kept);
      expect(result.maxRssKiB).toBeLessThan(BOUND_KIB);
    },
    900_000,
  );
});
