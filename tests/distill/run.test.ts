import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runDistill } from "../../src/distill/run.js";
import { distillHtml, distillMarkdown } from "../../src/distill/report.js";
import { createJudge } from "../../src/judge/create.js";
import { createScriptedProvider } from "../../src/providers/index.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { tempDir, writeJsonl } from "../helpers/cli.js";
import { readLines } from "./helpers.js";

const CHECKS = "tests/fixtures/distill/checks-rubric.yaml";
const JUDGED = "tests/fixtures/distill/judged-rubric.yaml";

/** Samples (not scored): 4 answers per question, some naming Paris, some polite. */
function samples(questions: number): Record<string, unknown>[] {
  const rows = [];
  for (let q = 0; q < questions; q++)
    for (let k = 0; k < 4; k++) rows.push({ id: `${q}-${k}`, prompt_id: `q${q}`, question: `Capital of France? (${q})`, response: `${k % 2 ? "Please note: " : ""}the answer ${q}.${k} is ${k < 2 ? "Paris" : "Lyon"}.` });
  return rows;
}

/** A judge over a scripted provider: "polite" is yes when the response says please; counts answered calls. */
function scriptedJudge(cache: string) {
  const calls = { n: 0 };
  const respond = judgeResponder((_q, view) => view.sample.includes("Please"));
  const provider = createScriptedProvider((req) => {
    calls.n++;
    return respond({ messages: req.messages } as Record<string, unknown>) as string;
  });
  const judge = createJudge({ provider: "openai-compatible", base_url: "http://127.0.0.1:9/v1", model: "scripted", api_key_env: "RUBRICATE_TEST_KEY", max_concurrency: 8 }, { provider, cache });
  return { judge, calls };
}

describe("inputs", () => {
  it("unscored samples are scored by a code-check rubric as they stream (no judge)", async () => {
    const dir = tempDir();
    const input = writeJsonl(dir, "s.jsonl", samples(3));
    const output = join(dir, "out.jsonl");
    const { report } = await runDistill({ input, output, rubric: loadRubricSync(CHECKS), filters: { bestOf: 1 }, withMetadata: true });
    const lines = readLines(output);
    expect(lines).toHaveLength(3);
    for (const l of lines) {
      expect(l.messages[1].content).toContain("Paris");
      expect(l.metadata.verdicts["names-paris"]).toBe("met");
    }
    expect(report.before.criteria["names-paris"]).toMatchObject({ met: 6, unmet: 6 });
  });

  it("rows without a reward and no rubric are an error naming the row", async () => {
    const dir = tempDir();
    const input = writeJsonl(dir, "s.jsonl", samples(1));
    await expect(runDistill({ input, output: join(dir, "o.jsonl") })).rejects.toThrow(/row 1 carries no reward.*--rubric/);
  });

  it("chat rows are mapped to the rubric's inputs for scoring: last assistant → response, user turns → the prompt input", async () => {
    const dir = tempDir();
    const input = writeJsonl(dir, "chat.jsonl", [
      { messages: [{ role: "user", content: "Capital?" }, { role: "assistant", content: "Paris." }] },
      { messages: [{ role: "user", content: "Capital?" }, { role: "assistant", content: "Rome." }] },
    ]);
    const output = join(dir, "o.jsonl");
    await runDistill({ input, output, rubric: loadRubricSync(CHECKS), filters: { minReward: 0.5 } });
    expect(readLines(output).map((l) => l.messages[1].content)).toEqual(["Paris."]);
  });

  it("score results join their samples by line: no re-scoring, the judge's usage is not taken for the answer's tokens", async () => {
    const dir = tempDir();
    const rows = samples(1);
    const input = writeJsonl(dir, "s.jsonl", rows);
    const results = writeJsonl(
      dir,
      "r.jsonl",
      rows.map((r, index) => ({ index, id: r.id, reward: index === 2 ? 1 : index === 3 ? null : 0.2, verdicts: [], errors: index === 3 ? [{ criterion: "*", code: "PROVIDER_HTTP", message: "x" }] : [], usage: { outputTokens: 9999 } })),
    );
    const output = join(dir, "o.jsonl");
    const { report } = await runDistill({ input, results, output, filters: { bestOf: 1, maxTokens: 100 }, withMetadata: true });
    const lines = readLines(output);
    expect(lines.map((l) => l.metadata.id)).toEqual(["0-2"]);
    expect(report.errorCodes).toEqual({ PROVIDER_HTTP: 1 });
  });

  it("a results file out of order or of another length is an error, never a silent mismatch", async () => {
    const dir = tempDir();
    const rows = samples(1);
    const input = writeJsonl(dir, "s.jsonl", rows);
    const swapped = writeJsonl(dir, "r1.jsonl", [1, 0, 2, 3].map((index) => ({ index, reward: 1, verdicts: [] })));
    await expect(runDistill({ input, results: swapped })).rejects.toThrow(/result 1 is for sample index 1/);
    const short = writeJsonl(dir, "r2.jsonl", [0, 1].map((index) => ({ index, reward: 1, verdicts: [] })));
    await expect(runDistill({ input, results: short })).rejects.toThrow(/has 2 results but the samples go on/);
    const wrongId = writeJsonl(dir, "r3.jsonl", [0, 1, 2, 3].map((index) => ({ index, id: "zzz", reward: 1, verdicts: [] })));
    await expect(runDistill({ input, results: wrongId })).rejects.toThrow(/has id "zzz"/);
  });
});

describe("streaming output and resume", () => {
  it("writes <out>.partial and renames it only when the run finishes", async () => {
    const dir = tempDir();
    const input = writeJsonl(dir, "s.jsonl", samples(600));
    const output = join(dir, "out.jsonl");
    const controller = new AbortController();
    const run = await runDistill({
      input,
      output,
      rubric: loadRubricSync(CHECKS),
      signal: controller.signal,
      checkpointMs: 0,
      onProgress: (p) => p.rows >= 1000 && controller.abort(),
    });
    expect(run.interrupted).toBe(true);
    expect(existsSync(output)).toBe(false);
    expect(existsSync(`${output}.partial`)).toBe(true);
    const checkpoint = JSON.parse(readFileSync(`${output}.checkpoint.json`, "utf8"));
    expect(checkpoint.groupsDone).toBeGreaterThanOrEqual(1000); // without grouping, each row is its own group
  });

  for (const [name, filters] of [
    ["best-of and near dedup", { bestOf: 1, dedup: "near" as const, maxPerTag: 10_000 }],
    ["top-fraction (a spill, then a second pass)", { topFraction: 0.3, dedup: "exact" as const }],
  ] as const) {
    it(`an interrupted run resumes to the same output and report, judge calls never paid twice: ${name}`, async () => {
      const dir = tempDir();
      // 1,200 rows cut at 800: the equalities below (output, report, calls paid once) hold or fail
      // whatever the size; 3,000 rows cut at 2,000 only took longer.
      const rows = samples(300);
      const input = writeJsonl(dir, "s.jsonl", rows);
      const rubric = loadRubricSync(JUDGED);

      const fresh = scriptedJudge(join(dir, "fresh.db"));
      const whole = await runDistill({ input, output: join(dir, "whole.jsonl"), rubric, judge: fresh.judge, filters });
      fresh.judge.close?.();

      const output = join(dir, "out.jsonl");
      const first = scriptedJudge(join(dir, "cache.db"));
      const controller = new AbortController();
      const cut = await runDistill({ input, output, rubric, judge: first.judge, filters, signal: controller.signal, checkpointMs: 0, onProgress: (p) => p.rows >= 800 && controller.abort() });
      first.judge.close?.();
      expect(cut.interrupted).toBe(true);
      expect(first.calls.n).toBeLessThan(fresh.calls.n);
      const checkpoint = JSON.parse(readFileSync(`${output}.checkpoint.json`, "utf8"));

      const second = scriptedJudge(join(dir, "cache.db"));
      const resumed = await runDistill({ input, output, rubric, judge: second.judge, filters });
      second.judge.close?.();
      expect(resumed.resumedGroups).toBe(checkpoint.groupsDone);
      expect(resumed.resumedGroups).toBeGreaterThan(0);
      expect(readFileSync(output, "utf8")).toBe(readFileSync(join(dir, "whole.jsonl"), "utf8"));
      expect({ ...resumed.report, resumedGroups: 0 }).toEqual(whole.report);
      expect(first.calls.n + second.calls.n).toBe(fresh.calls.n);
      expect(existsSync(`${output}.checkpoint.json`)).toBe(false);
      expect(existsSync(`${output}.spill.jsonl`)).toBe(false);
    });
  }

  /** A run of 300 samples interrupted after 1,000 rows, leaving its checkpoint. */
  async function interruptedRun() {
    const dir = tempDir();
    const input = writeJsonl(dir, "s.jsonl", samples(300));
    const output = join(dir, "out.jsonl");
    const controller = new AbortController();
    const rubric = loadRubricSync(CHECKS);
    await runDistill({ input, output, rubric, signal: controller.signal, checkpointMs: 0, onProgress: (p) => p.rows >= 1000 && controller.abort() });
    return { input, output, rubric };
  }

  it("a checkpoint that is not JSON stops the run naming it file:line:col, and what the interrupted run wrote is kept (started over, rewriting it, before)", async () => {
    const { input, output, rubric } = await interruptedRun();
    const ckPath = `${output}.checkpoint.json`;
    const written = readFileSync(`${output}.partial`, "utf8");
    expect(written).not.toBe("");
    writeFileSync(ckPath, readFileSync(ckPath, "utf8").slice(0, -1));
    await expect(runDistill({ input, output, rubric })).rejects.toMatchObject({ code: "BAD_INPUT", location: { file: ckPath, line: 1 }, message: expect.stringContaining("invalid JSON: ") });
    expect(readFileSync(`${output}.partial`, "utf8")).toBe(written);
    expect(existsSync(ckPath)).toBe(true);
  });

  it("a checkpoint of different options is not resumed: the run says why, naming what changed, and starts over", async () => {
    const { input, output, rubric } = await interruptedRun();
    const said: string[] = [];
    const again = await runDistill({ input, output, rubric, filters: { minReward: 0.9 }, onStartOver: (line) => said.push(line) });
    expect(again.resumedGroups).toBe(0);
    expect(readLines(output).length).toBe(again.report.kept);
    expect(said).toEqual([`${output}.checkpoint.json: changed since it was written: the filters; starting over`]);
  });

  it("a checkpoint that fits resumes without a word; one from a release that kept no parts still resumes, and on a change says only that something changed", async () => {
    const quiet: string[] = [];
    const fits = await interruptedRun();
    const resumed = await runDistill({ ...fits, onStartOver: (line) => quiet.push(line) });
    expect(resumed.resumedGroups).toBeGreaterThan(0);
    expect(quiet).toEqual([]);

    const withoutParts = (ckPath: string) => {
      const { parts, ...older } = JSON.parse(readFileSync(ckPath, "utf8")) as Record<string, unknown>;
      expect(parts).toBeDefined();
      writeFileSync(ckPath, JSON.stringify(older));
    };
    const old = await interruptedRun();
    withoutParts(`${old.output}.checkpoint.json`);
    expect((await runDistill({ ...old, onStartOver: (line) => quiet.push(line) })).resumedGroups).toBeGreaterThan(0);
    expect(quiet).toEqual([]);

    const { input, output, rubric } = await interruptedRun();
    const ckPath = `${output}.checkpoint.json`;
    withoutParts(ckPath);
    const changed: string[] = [];
    const started = await runDistill({ input, output, rubric, format: "trl-messages", onStartOver: (line) => changed.push(line) });
    expect(started.resumedGroups).toBe(0);
    expect(changed).toEqual([`${ckPath}: it was written by a run with another input or options; starting over`]);
  });
});

describe("report", () => {
  it("markdown and HTML show the funnel, reward distributions and criteria before and after", async () => {
    const dir = tempDir();
    const input = writeJsonl(dir, "s.jsonl", samples(5));
    const { report } = await runDistill({ input, rubric: loadRubricSync(CHECKS), filters: { minReward: 0.5, bestOf: 1 } });
    const md = distillMarkdown(report);
    expect(md).toContain("| rows | rows | 20 | 10 | min-reward 10 |");
    expect(md).toContain("| groups | rows | 10 | 5 | best-of 5 |");
    expect(md).toMatch(/\| names-paris \| criterion \| 50\.0% \| 100\.0% \|/);
    expect(md).toMatch(/\| gives-up \| pitfall \|/);
    const html = distillHtml(report);
    writeFileSync(join(dir, "r.html"), html);
    expect(html).toContain("<svg");
    expect((html.match(/class="bar"/g) ?? []).length).toBeGreaterThan(4);
    expect(html).toContain("Content-Security-Policy");
    expect(html).toContain("min-reward 10");
  });
});
