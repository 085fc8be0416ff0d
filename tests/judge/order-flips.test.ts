import { afterEach, describe, expect, it, vi } from "vitest";
import { createJudge } from "../../src/judge/create.js";
import { orderFlips, orderFlipsMarkdown, rotateHalf } from "../../src/judge/order-flips.js";
import { Rng } from "../../src/stats/rng.js";
import type { Judge } from "../../src/judge/types.js";
import { emptyUsage, type VerdictOrError } from "../../src/types.js";

/** FNV-1a: a stable seed from a string. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
import { parseRubric } from "../../src/rubric/load.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";

const servers: TestServer<unknown>[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

// A judge with an order effect: whatever question comes first in a batched call gets a yes.
async function primacyJudge() {
  const server = (await startOpenAIServer({ respond: judgeResponder((q, view) => view.questions[0].id === q.id || q.id === "b") })) as TestServer<unknown>;
  servers.push(server);
  return createJudge({ provider: "openai-compatible", base_url: server.url, model: "judge", max_retries: 0 }, { cache: false });
}
const rubric = (extra = "") => parseRubric(`id: r\ninputs: [response]\n${extra}criteria:\n  - id: a\n    question: Is a there?\n  - id: b\n    question: Is b there?\n  - id: c\n    question: Is c there?\n`);
const samples = [{ response: "one" }, { response: "two" }, { response: "three" }];

describe("orderFlips", () => {
  it("counts verdicts that change when the order is rotated, beyond a same-order repeat, per criterion", async () => {
    const f = await orderFlips(rubric(), samples, { judge: await primacyJudge() });
    // [a, b, c] rotated by half is [c, a, b]: a loses first place, c gains it; b is always yes.
    expect(f.criteria.map((r) => [r.id, r.n, r.repeatFlips, r.flips])).toEqual([["a", 3, 0, 3], ["b", 3, 0, 0], ["c", 3, 0, 3]]);
    expect(f.criteria[0].beyond).toEqual({ value: 1, low: 1, high: 1 });
    expect(f.all).toMatchObject({ n: 9, flips: 6, repeatFlips: 0 });
    expect(orderFlipsMarkdown(f)).toContain("| a | 3 | 0 | 3 | 0.0% | 100.0% | 100.0 pts [100.0, 100.0] | 0 |");
  });

  it("asks the repeat as a fresh call even through a cache, and replays all three from it on a re-run", async () => {
    const server = (await startOpenAIServer({ respond: judgeResponder((q, view) => view.questions[0].id === q.id) })) as TestServer<unknown>;
    servers.push(server);
    // Memory cache: a repeat keyed like the first call would be answered from it, and the baseline would always be 0.
    const judge = createJudge({ provider: "openai-compatible", base_url: server.url, model: "judge", max_retries: 0 }, { cache: false });
    await orderFlips(rubric(), samples.slice(0, 1), { judge });
    expect(server.requests).toHaveLength(3);
    await orderFlips(rubric(), samples.slice(0, 1), { judge });
    expect(server.requests).toHaveLength(3);
  });

  it("moves middle questions too: rotation by half puts the middle of the list at an end", () => {
    expect(rotateHalf([1, 2, 3, 4, 5])).toEqual([4, 5, 1, 2, 3]);
    expect(rotateHalf([1, 2, 3, 4])).toEqual([3, 4, 1, 2]);
  });

  it("reports ~0 beyond the baseline for a judge with 10% random noise and no order effect (issue 30)", async () => {
    // The truth depends on the question only; each call's answer is flipped with probability 0.1,
    // drawn afresh per call (seeded by sample, question and which of the three calls it is), never by position.
    const judge: Judge = {
      id: "noisy",
      usage: emptyUsage,
      async answer(req) {
        const call = req.repeat ? "repeat" : req.questions[0].id === "a" ? "first" : "rotated";
        const verdicts = new Map<string, VerdictOrError>();
        for (const q of req.questions) {
          const noise = new Rng(hash(`${String(req.sample.response)}|${q.id}|${call}`)).next() < 0.1;
          verdicts.set(q.id, { pass: ["a", "c", "e"].includes(q.id) !== noise, source: "llm" });
        }
        return { verdicts, usage: emptyUsage() };
      },
    };
    const five = parseRubric(`id: r5\ninputs: [response]\ncriteria:\n${["a", "b", "c", "d", "e"].map((id) => `  - id: ${id}\n    question: Is ${id} there?\n`).join("")}`);
    const many = Array.from({ length: 120 }, (_, i) => ({ response: `sample ${i}` }));
    const f = await orderFlips(five, many, { judge, concurrency: 8 });
    // Both rates near 2 × 0.1 × 0.9 = 18%: the old reversed-only count reported that as an order effect.
    expect(f.all.rate!).toBeGreaterThan(0.12);
    expect(f.all.repeatRate!).toBeGreaterThan(0.12);
    expect(Math.abs(f.all.beyond!.value)).toBeLessThan(0.04);
    expect(f.all.beyond!.low).toBeLessThan(0);
    expect(f.all.beyond!.high).toBeGreaterThan(0);
  });

  it("finds no flips when each question is asked alone", async () => {
    const f = await orderFlips(rubric("judge_mode: single\n"), samples, { judge: await primacyJudge() });
    expect(f.all).toMatchObject({ n: 9, flips: 0 });
  });

  it("needs at least two questions", async () => {
    const one = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - id: a\n    question: Is a there?\n");
    await expect(orderFlips(one, samples, { judge: await primacyJudge() })).rejects.toThrow(/at least two/);
  });
});

describe("rubricate flips", () => {
  /** A two-question rubric, the samples and a judge file for a fake judge answering with `respond`; `runFlips` loaded. */
  async function flipsJob(respond: NonNullable<Parameters<typeof startOpenAIServer>[0]>["respond"], judge: Record<string, unknown> = {}) {
    const { runFlips } = await import("../../src/cli/commands/flips.js");
    const { tempDir, writeJudgeFile, writeJsonl } = await import("../helpers/cli.js");
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const server = (await startOpenAIServer({ respond })) as TestServer<unknown>;
    servers.push(server);
    const dir = tempDir("flips-");
    const rubric = join(dir, "r.yaml");
    writeFileSync(rubric, "id: r\ninputs: [response]\ncriteria:\n  - id: a\n    question: Is a there?\n  - id: b\n    question: Is b there?\n");
    vi.stubEnv("RUBRICATE_TEST_KEY", "k");
    return { runFlips, dir, rubric, samples: writeJsonl(dir, "s.jsonl", samples), judge: writeJudgeFile(dir, server.url, judge), json: join(dir, "f.json") };
  }

  it("prints the flip table for a samples file through a judge file", async () => {
    const job = await flipsJob(judgeResponder((q, view) => view.questions[0].id === q.id));
    let printed = "";
    const code = await job.runFlips(job.samples, { rubric: job.rubric, judge: job.judge, cache: false, limit: 2, json: job.json }, (t) => (printed += t));
    expect(code).toBe(0);
    expect(printed).toContain("| a | 2 | 0 | 2 | 0.0% | 100.0% | 100.0 pts [100.0, 100.0] | 0 |");
    expect(printed).toMatch(/\| all \| 4 \| 0 \| 4 \| 0\.0% \| 100\.0% \|/);
  });

  it("exits 3 and says so when questions got no verdict (exit 0 before, as if measured)", async () => {
    const job = await flipsJob(() => "I think no.", { max_retries: 0 });
    let printed = "";
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const code = await job.runFlips(job.samples, { rubric: job.rubric, judge: job.judge, cache: false, limit: 2 }, (t) => (printed += t));
      expect(code).toBe(3);
      expect(printed).toMatch(/\| all \| 0 \| 0 \| 0 \| n\/a \| n\/a \| n\/a \| 4 \|/);
      expect(stderr.mock.calls.map((c) => String(c[0])).join("")).toContain("rubricate: 4 question(s) got no verdict in one of their three asks (the errors column); the table leaves them out\n");
    } finally {
      stderr.mockRestore();
    }
  });
});
