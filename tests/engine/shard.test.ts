import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseShard, takeShard } from "../../src/engine/shard.js";
import { mergeCaches } from "../../src/engine/merge.js";
import { openCache } from "../../src/engine/cache/index.js";
import { runCli, tempDir, writeJsonl } from "../helpers/cli.js";

describe("shards", () => {
  it("parses i/n and refuses nonsense", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    for (const bad of ["0/4", "5/4", "a/b", "3", "1/0"]) expect(() => parseShard(bad)).toThrow(/--shard takes i\/n/);
  });

  it("splits an input into disjoint slices that cover it", async () => {
    const rows = Array.from({ length: 23 }, (_, i) => i);
    const seen: number[] = [];
    for (let i = 1; i <= 4; i++) {
      for await (const { row, index } of takeShard(rows, { index: i, count: 4 })) {
        expect(index).toBe(row);
        expect(index % 4).toBe(i - 1);
        seen.push(row);
      }
    }
    expect(seen.sort((a, b) => a - b)).toEqual(rows);
  });

  it("score --shard on three machines, then merge, equals one unsharded run", async () => {
    const dir = tempDir();
    const rows = Array.from({ length: 17 }, (_, i) => ({ id: `s${i}`, response: i % 3 === 0 ? '{"name": "A", "email": "a@b.org"}' : "nope" }));
    const input = writeJsonl(dir, "in.jsonl", rows);
    const rubric = "rubrics/structured-output.yaml";
    const whole = await runCli(["score", rubric, input, "-q", "--no-cache"]);
    const parts = await Promise.all([1, 2, 3].map((i) => runCli(["score", rubric, input, "--shard", `${i}/3`, "-q", "--no-cache", "-o", join(dir, `part${i}.jsonl`)])));
    expect(parts.map((p) => p.code)).toEqual([0, 0, 0]);
    const merged = await runCli(["merge", join(dir, "part3.jsonl"), join(dir, "part1.jsonl"), join(dir, "part2.jsonl"), "-o", join(dir, "merged.jsonl")]);
    expect(merged.code).toBe(0);
    expect(merged.stderr).toContain("merged 17 results from 3 files (0 duplicates dropped, 0 sample indexes missing)");
    expect(readFileSync(join(dir, "merged.jsonl"), "utf8")).toBe(whole.stdout);
  });

  it("merge reports gaps with exit code 3", async () => {
    const dir = tempDir();
    const a = writeJsonl(dir, "a.jsonl", [{ index: 0, reward: 1 }, { index: 3, reward: 0 }]);
    const res = await runCli(["merge", a, "-o", join(dir, "m.jsonl")]);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain("2 sample indexes missing");
  });

  it("merges shard caches into one, keeping existing answers", () => {
    const dir = tempDir();
    const entry = (text: string) => ({ response: { text, finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 } }, createdAt: 1 });
    const one = openCache({ path: join(dir, "one.db") });
    one.set("k1", entry("a"));
    one.set("shared", entry("first"));
    one.close();
    const two = openCache({ path: join(dir, "two.db") });
    two.set("k2", entry("b"));
    two.set("shared", entry("second"));
    two.close();
    expect(mergeCaches(join(dir, "all.db"), [join(dir, "one.db"), join(dir, "two.db")])).toBe(3);
    // A mistyped source: a clear error, and no empty file created for it.
    expect(() => mergeCaches(join(dir, "all.db"), [join(dir, "one.db"), join(dir, "tow.db")])).toThrow(/no such cache file: .*tow\.db \(nothing was merged\)/);
    expect(existsSync(join(dir, "tow.db"))).toBe(false);
    writeFileSync(join(dir, "notes.db"), "");
    expect(() => mergeCaches(join(dir, "all.db"), [join(dir, "notes.db")])).toThrow(/not a rubricate cache/);
    const all = openCache({ path: join(dir, "all.db") });
    expect(all.get("k1")?.response.text).toBe("a");
    expect(all.get("k2")?.response.text).toBe("b");
    expect(all.get("shared")?.response.text).toBe("first");
    all.close();
  });
});
