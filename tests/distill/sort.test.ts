import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runDistill } from "../../src/distill/run.js";
import { sortByGroup } from "../../src/distill/sort.js";
import { seededRandom } from "../../src/stats/rng.js";
import { tempDir } from "../helpers/cli.js";
import { answers, chatRow, readLines } from "./helpers.js";

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("sortByGroup (external sort)", () => {
  it("orders rows by key through several spilled runs, stable within a key, and removes its files", async () => {
    const random = seededRandom(5);
    const rows = Array.from({ length: 40 }, (_, i) => ({ key: `k${Math.floor(random() * 6)}`, i }));
    const dir = tempDir();
    const sorted = await collect(sortByGroup((async function* () { yield* rows; })(), (r) => r.key as string, { runRows: 7, dir }));
    expect(sorted).toHaveLength(40);
    const expected = [...rows].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i));
    expect(sorted).toEqual(expected);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("distill --sort", () => {
  it("scattered groups that overflow the window are grouped by the sort instead", async () => {
    const rows = [];
    for (let round = 0; round < 3; round++) for (const g of ["c", "a", "b", "d"]) rows.push(chatRow(g, `${g}${round}`, round === 1 ? 1 : 0.5));
    await expect(runDistill({ input: rows, filters: { bestOf: 1 }, groupWindow: 2 })).rejects.toThrow(/came back/);
    const output = join(tempDir(), "o.jsonl");
    const { report } = await runDistill({ input: rows, output, filters: { bestOf: 1 }, groupWindow: 1, sort: { runRows: 5 } });
    expect(answers(readLines(output))).toEqual(["a1", "b1", "c1", "d1"]);
    expect(report.dropped).toEqual({ "best-of": 8 });
  });

  it("ties stay in input order after sorting (the earlier row wins best-of)", async () => {
    const rows = [chatRow("b", "b-first", 1), chatRow("a", "a-first", 1), chatRow("b", "b-second", 1), chatRow("a", "a-second", 1)];
    const output = join(tempDir(), "o.jsonl");
    await runDistill({ input: rows, output, filters: { bestOf: 1 }, sort: { runRows: 1 } });
    expect(answers(readLines(output))).toEqual(["a-first", "b-first"]);
  });
});
