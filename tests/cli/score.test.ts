import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, cliInProcess, jsonLines } from "./helpers.js";
import { tempDir } from "../helpers/cli.js";

const RUBRIC = "rubrics/structured-output.yaml";
const SAMPLES = "examples/quickstart/samples.jsonl";
const sampleIds = () => jsonLines(readFileSync(SAMPLES, "utf8")).map((s) => s.id);

const dir = tempDir("rubricate-cli-");

describe("rubricate score", () => {
  it("writes one JSON line per sample to stdout, in input order, and the summary to stderr", async () => {
    const r = await cliInProcess(["score", RUBRIC, SAMPLES]);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout);
    const ids = sampleIds();
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(lines.map((l) => l.id)).toEqual(ids);
    expect(lines.map((l) => l.index)).toEqual(ids.map((_, i) => i));
    for (const line of lines) {
      expect(Object.keys(line)).toEqual(expect.arrayContaining(["reward", "verdicts", "errors", "feedback"]));
      expect(line.errors).toEqual([]);
    }
    // Sample a: a complete, valid record; b: JSON inside prose (gate fails); c: missing email (the required-fields gate fails).
    expect(lines[0]).toMatchObject({ id: "a", reward: 1, passed: true, feedback: "reward 1.000: every criterion met." });
    expect(lines[1]).toMatchObject({ id: "b", reward: 0, gated: true, passed: false });
    expect(lines[2]).toMatchObject({ id: "c", reward: 0, gated: true, passed: false });
    expect(lines[2].feedback).toBe("reward 0.000 (a required criterion failed)\n- FAILED (required) required-fields (+3 pts): code check — schema violations: / must have required property 'email'");
    expect(r.stderr).toContain(`samples ${ids.length}  scored ${ids.length}  with errors 0`);
    expect(r.stderr).toMatch(/mean reward \d\.\d{3} {2}\(95% CI/);
    expect(r.stderr).toMatch(/^valid-json +\d+\/\d+/m);
  });

  it("-o writes the file (no .partial left) and nothing to stdout", async () => {
    const out = join(dir, "sub", "results.jsonl");
    const r = await cliInProcess(["score", RUBRIC, SAMPLES, "-o", out, "-q"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("");
    expect(existsSync(`${out}.partial`)).toBe(false);
    const lines = jsonLines(readFileSync(out, "utf8"));
    expect(lines.map((l) => l.id)).toEqual(sampleIds());
  });

  it("--resume keeps what an interrupted run wrote to <output>.partial and scores only the rest", async () => {
    const out = join(dir, "resume", "results.jsonl");
    const full = jsonLines((await cliInProcess(["score", RUBRIC, SAMPLES, "-q"])).stdout);
    // An interrupted run: the first result written (marked, so we can tell it was kept, not re-scored) and a line cut short.
    const kept = { ...full[0], feedback: "kept from the interrupted run" };
    await cliInProcess(["score", RUBRIC, SAMPLES, "-q", "-o", out]);
    writeFileSync(`${out}.partial`, `${JSON.stringify(kept)}\n${JSON.stringify(full[1]).slice(0, 20)}`);
    const r = await cliInProcess(["score", RUBRIC, SAMPLES, "-q", "-o", out, "--resume"]);
    expect(r.code).toBe(0);
    expect(existsSync(`${out}.partial`)).toBe(false);
    const lines = jsonLines(readFileSync(out, "utf8"));
    expect(lines.map((l) => l.index)).toEqual(full.map((l) => l.index));
    expect(lines[0]).toEqual(kept);
    expect(lines.slice(1)).toEqual(full.slice(1));
    const noFile = await cliInProcess(["score", RUBRIC, SAMPLES, "-q", "--resume"]);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain("--resume continues the results file of an interrupted run: give it with -o <file>");
  });

  it("--resume says how many .partial lines it could not read (their samples are scored, and paid for, again), naming the first by file:line:col", async () => {
    const out = join(dir, "resume-unreadable", "results.jsonl");
    const full = jsonLines((await cliInProcess(["score", RUBRIC, SAMPLES, "-q"])).stdout);
    await cliInProcess(["score", RUBRIC, SAMPLES, "-q", "-o", out]);
    // A line damaged in the middle, one that is JSON but no result, and the last line cut short by a crash.
    writeFileSync(`${out}.partial`, `${JSON.stringify(full[0])}\n{"index": 1, "reward": 1,, }\n{"note": "no index"}\n${JSON.stringify(full[2]).slice(0, 20)}`);
    const r = await cliInProcess(["score", RUBRIC, SAMPLES, "-q", "-o", out, "--resume"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`rubricate: --resume: 3 line(s) of ${out}.partial could not be read (first ${out}.partial:2:26: invalid JSON: Expected double-quoted property name); the samples they held are scored again\n`);
    expect(jsonLines(readFileSync(out, "utf8"))).toEqual(full);
    // Nothing unreadable: nothing said.
    writeFileSync(`${out}.partial`, `${JSON.stringify(full[0])}\n`);
    const clean = await cliInProcess(["score", RUBRIC, SAMPLES, "-q", "-o", out, "--resume"]);
    expect(clean.stderr).toBe("");
  });

  it("--order accepts only input or completed", async () => {
    const r = await cliInProcess(["score", RUBRIC, SAMPLES, "-q", "--order", "random"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--order.*'random' is invalid. Allowed choices are input, completed/);
    expect(r.stdout).toBe("");
  });

  it("reads samples from stdin with -", async () => {
    const input = readFileSync(SAMPLES, "utf8");
    const fromStdin = await cli(["score", RUBRIC, "-", "-q"], { input });
    const fromFile = await cliInProcess(["score", RUBRIC, SAMPLES, "-q"]);
    expect(fromStdin.code).toBe(0);
    expect(jsonLines(fromStdin.stdout).map((l) => [l.id, l.reward])).toEqual(jsonLines(fromFile.stdout).map((l) => [l.id, l.reward]));
    expect(jsonLines(fromStdin.stdout)).toHaveLength(sampleIds().length);
  });

  it("keeps input order for many samples of very different cost", async () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ id: `s${i}`, response: i % 3 === 0 ? JSON.stringify({ name: "x".repeat(5000 * (i % 7)), email: "a@b.co" }) : "nope" }));
    const file = join(dir, "many.jsonl");
    writeFileSync(file, many.map((s) => JSON.stringify(s)).join("\n"));
    const r = await cliInProcess(["score", RUBRIC, file, "-q", "-c", "7"]);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map((l) => l.id)).toEqual(many.map((s) => s.id));
  });

  it("a rubric with LLM questions and no judge: every reward null with NO_JUDGE, exit 3, no crash", async () => {
    const r = await cliInProcess(["score", "tests/fixtures/cli/questions.yaml", SAMPLES, "--no-cache"]);
    expect(r.code).toBe(3);
    const lines = jsonLines(r.stdout);
    expect(lines).toHaveLength(sampleIds().length);
    for (const line of lines) {
      expect(line.reward).toBeNull();
      expect(line.errors).toEqual([{ criterion: "polite", code: "NO_JUDGE", message: expect.stringMatching(/^no judge configured/) }]);
      expect(String(line.feedback)).toContain("- ERROR polite [NO_JUDGE] (reward withheld): no judge configured");
    }
    expect(r.stderr).toContain(`with errors ${lines.length}`);
    expect(r.stderr).toContain(`NO_JUDGE ×${lines.length}`);
    expect(r.stderr).not.toMatch(/unexpected error|TypeError|at .*\.ts:\d+/);
  });

  it("an explicit --judge is used for per-sample questions even when the rubric has none of its own", async () => {
    // A judge whose server is not there: the question must reach it (a network error), not be NO_JUDGE.
    const judgeFile = join(dir, "dead-judge.yaml");
    writeFileSync(judgeFile, "id: dead\nprovider: openai-compatible\nbase_url: http://127.0.0.1:9/v1\nmodel: m\nmax_retries: 0\ntimeout_ms: 5000\n");
    const input = JSON.stringify({ response: '{"name": "A", "email": "a@b.co"}', criteria: [{ id: "kind", question: "Is it kind?" }] });
    writeFileSync(join(dir, "kind.jsonl"), input);
    const r = await cliInProcess(["score", RUBRIC, join(dir, "kind.jsonl"), "--judge", judgeFile, "--no-cache", "-q"]);
    expect(r.code).toBe(3);
    const [line] = jsonLines(r.stdout);
    expect(line.reward).toBeNull();
    const errors = line.errors as { criterion: string; code: string }[];
    expect(errors.map((e) => e.criterion)).toEqual(["kind"]);
    expect(errors[0].code).toMatch(/^PROVIDER_(NETWORK|TIMEOUT)$/);
  });

  it("--errors zero gives 0 instead of null (and exit 0: every sample has a reward)", async () => {
    const r = await cliInProcess(["score", "tests/fixtures/cli/questions.yaml", SAMPLES, "--no-cache", "--errors", "zero"]);
    expect(r.code).toBe(0);
    const n = sampleIds().length;
    expect(jsonLines(r.stdout).map((l) => l.reward)).toEqual(sampleIds().map(() => 0));
    // The summary still counts them as samples with errors.
    expect(r.stderr).toContain(`samples ${n}  scored ${n}  with errors ${n}`);
  });

  it("--errors with a bad value is a usage error listing the choices (exit 2)", async () => {
    const r = await cliInProcess(["score", RUBRIC, SAMPLES, "--errors", "maybe"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--errors.*'maybe' is invalid. Allowed choices are null, zero, skip-criterion/);
    expect(r.stdout).toBe("");
  });

  it("--dry-run counts the LLM questions and calls nothing", async () => {
    const r = await cliInProcess(["score", "rubrics/math-answer.yaml", "examples/quickstart/math-samples.jsonl", "--dry-run"]);
    const n = jsonLines(readFileSync("examples/quickstart/math-samples.jsonl", "utf8")).length;
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe(`samples ${n}, LLM questions ${2 * n} (no judge)`);
    expect(lines[1]).toBe("calls at most 0");
    expect(r.stdout).not.toContain('"reward"');
  });

  it("an invalid rubric is exit 1 with file:line:col", async () => {
    const r = await cliInProcess(["score", "tests/fixtures/malformed/when-cycle.yaml", SAMPLES]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("rubricate: WHEN_CYCLE: tests/fixtures/malformed/when-cycle.yaml:5:11: `when` cycle: a -> b -> a\n");
    expect(r.stdout).toBe("");
  });

  it("a missing samples file is exit 1; a bad JSON line is that line's error (exit 3), named by file, line and column", async () => {
    const missing = await cliInProcess(["score", RUBRIC, join(dir, "nope.jsonl")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("rubricate: FILE_NOT_FOUND: no such file:");
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, '{"response": "{}"}\n\n[1, 2]\n');
    const r = await cliInProcess(["score", RUBRIC, bad, "-q"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${bad}:3:1: each line must be a JSON object\n`);
    expect(jsonLines(r.stdout).map((l) => [l.index, l.reward === null])).toEqual([[0, false], [1, true]]);
  });

  it("a missing input is that sample's error, not the run's", async () => {
    const input = ['{"id": 1, "response": "{}"}', '{"id": 2, "text": "no response field"}'].join("\n");
    writeFileSync(join(dir, "no-response.jsonl"), input);
    const r = await cliInProcess(["score", RUBRIC, join(dir, "no-response.jsonl"), "-q"]);
    expect(r.code).toBe(3);
    const lines = jsonLines(r.stdout);
    expect(lines.map((l) => l.id)).toEqual([1, 2]);
    expect(lines[1]).toMatchObject({ reward: null, errors: [{ criterion: "*", code: "MISSING_INPUT" }] });
  });
});

describe("rubricate score with a key the judge refuses", () => {
  it("sends no more than one wave of calls: the rest fail at once with the 401, and the run exits 3", async () => {
    const { startOpenAIServer } = await import("../../src/testing/index.js");
    const server = await startOpenAIServer({ respond: () => '{"verdict": true}', expectedApiKey: "sk-right" });
    try {
      const judge = join(dir, "refused-judge.yaml");
      writeFileSync(judge, `provider: openai-compatible\nmodel: m\nbase_url: ${server.url}\napi_key_env: RUBRICATE_TEST_KEY\nmax_concurrency: 4\n`);
      const samples = join(dir, "refused.jsonl");
      writeFileSync(samples, Array.from({ length: 40 }, (_, i) => JSON.stringify({ id: i, response: `answer ${i}` })).join("\n") + "\n");
      const rubric = join(dir, "refused-rubric.yaml");
      writeFileSync(rubric, "id: r\ninputs: [response]\ncriteria:\n  - { id: a, question: Is it an answer?, points: 1 }\n");
      const r = await cliInProcess(["score", rubric, samples, "--judge", judge, "--no-cache", "-q"], { env: { RUBRICATE_TEST_KEY: "sk-wrong" } });
      expect(r.code).toBe(3);
      const lines = jsonLines(r.stdout);
      expect(lines).toHaveLength(40);
      expect(lines.every((l) => l.reward === null && JSON.stringify(l.errors).includes("401"))).toBe(true);
      expect(server.stats.requests).toBeLessThanOrEqual(4);
      expect(r.stdout).not.toContain("sk-wrong");
    } finally {
      await server.close();
    }
  });
});
