import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FORMAT_SCHEMAS } from "../../src/distill/formats.js";
import { generateRollouts, generationTooLarge } from "../../src/distill/generate.js";
import type { Engine } from "../../src/engine/engine.js";
import { loadEnvironment } from "../../src/env/load.js";
import type { Policy } from "../../src/env/policy.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { tempDir, writeJsonl, writeJudgeFile } from "../helpers/cli.js";
import { runCliInProcess } from "../helpers/cli-in-process.js";
import { readLines, spawnDistill } from "./helpers.js";

const SECRET = "sk-test-SECRET-distill-42";
const servers: TestServer<unknown>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function samples(questions: number): Record<string, unknown>[] {
  const rows = [];
  for (let q = 0; q < questions; q++)
    for (let k = 0; k < 4; k++) rows.push({ prompt_id: `q${q}`, question: `Capital of France? (${q})`, response: `${k % 2 ? "Please note: " : ""}answer ${q}.${k}: ${k < 2 ? "Paris" : "Lyon"}.`, tags: [`t${q % 3}`] });
  return rows;
}

describe("rubricate distill", () => {
  it("filters, exports and writes markdown, HTML and JSON reports", async () => {
    const dir = tempDir();
    const input = writeJsonl(dir, "s.jsonl", samples(10));
    const out = join(dir, "sft.jsonl");
    const args = ["distill", input, "--rubric", "tests/fixtures/distill/checks-rubric.yaml", "-o", out, "--format", "trl-prompt-completion", "--best-of", "1", "--min-reward", "0.5", "--max-per-tag", "3"];
    const { code, stderr } = await runCliInProcess([...args, "--markdown", join(dir, "r.md"), "--report", join(dir, "r.html"), "--json", join(dir, "r.json")]);
    expect(code, stderr).toBe(0);
    const lines = readLines(out);
    expect(lines).toHaveLength(9);
    for (const l of lines) expect(FORMAT_SCHEMAS["trl-prompt-completion"].safeParse(l).success).toBe(true);
    expect(stderr).toContain("40 input rows → 9 rows kept");
    expect(readFileSync(join(dir, "r.md"), "utf8")).toContain("tag-cap 1");
    expect(readFileSync(join(dir, "r.html"), "utf8")).toContain("<svg");
    expect(JSON.parse(readFileSync(join(dir, "r.json"), "utf8")).kept).toBe(9);
  });

  it("--require takes repeated and comma-separated criteria", async () => {
    const dir = tempDir();
    const v = (id: string, status: string) => ({ id, status, points: 1 });
    const input = writeJsonl(dir, "s.jsonl", [
      { prompt: "p1", response: "all", reward: 1, verdicts: [v("a", "met"), v("b", "met"), v("c", "met")] },
      { prompt: "p2", response: "no c", reward: 1, verdicts: [v("a", "met"), v("b", "met"), v("c", "unmet")] },
      { prompt: "p3", response: "no b", reward: 1, verdicts: [v("a", "met"), v("b", "unmet"), v("c", "met")] },
    ]);
    const { code, stdout } = await runCliInProcess(["distill", input, "-q", "--require", "a,b", "--require", "c"]);
    expect(code).toBe(0);
    expect(stdout.trim().split("\n").map((l) => JSON.parse(l).messages[1].content)).toEqual(["all"]);
  });

  it("bad input lines are skipped and named with their line numbers; the good rows go on; exit 3", async () => {
    const dir = tempDir();
    const rows = Array.from({ length: 200 }, (_, i) => JSON.stringify({ prompt: `p${i}`, response: `r${i}`, reward: 1 }));
    rows[9] = "{broken";
    rows[149] = "[1, 2]";
    const input = join(dir, "s.jsonl");
    writeFileSync(input, `${rows.join("\n")}\n`);
    const { code, stdout, stderr } = await runCliInProcess(["distill", input, "-q"]);
    expect(code).toBe(3);
    expect(stdout.trim().split("\n")).toHaveLength(198);
    expect(stderr).toContain("2 input line(s) are not JSON objects and were skipped");
    expect(stderr).toContain(`${input}:10:2: invalid JSON: Expected property name or '}'`);
    expect(stderr).toContain(`${input}:150:1: each line must be a JSON object`);
  });

  it("a reward that is a string or outside [0, 1] drops that row with its own reason, says so, and the run goes on", async () => {
    const dir = tempDir();
    const input = writeJsonl(dir, "s.jsonl", [
      { prompt: "p1", response: "string reward", reward: "0.9" },
      { prompt: "p2", response: "seven", reward: 7 },
      { prompt: "p3", response: "words", reward: "high" },
      { prompt: "p4", response: "fine", reward: 0.5 },
    ]);
    const { code, stdout, stderr } = await runCliInProcess(["distill", input, "--min-reward", "0.4"]);
    expect(code, stderr).toBe(0);
    expect(stdout.trim().split("\n").map((l) => JSON.parse(l).messages[1].content)).toEqual(["fine"]);
    expect(stderr).toContain("reward-invalid 3");
    expect(stderr).toContain('3 row(s) had a reward that is not a number in [0, 1] (e.g. row 1: reward "0.9" is a string, not a number)');
  });

  it("a judge that fails every call: rows are dropped with the first error named and exit 3, not a run that looks done", async () => {
    const server = await startOpenAIServer({ respond: judgeResponder(() => true), rates: { "500": 1 } });
    servers.push(server as TestServer<unknown>);
    const dir = tempDir();
    const input = writeJsonl(dir, "s.jsonl", samples(2));
    const judge = writeJudgeFile(dir, server.url, { max_retries: 0 });
    const out = join(dir, "out.jsonl");
    const args = ["distill", input, "--rubric", "tests/fixtures/distill/judged-rubric.yaml", "--judge", judge, "--no-cache", "-o", out];
    const loud = await runCliInProcess(args, { env: { RUBRICATE_TEST_KEY: SECRET } });
    expect(loud.code).toBe(3);
    expect(loud.stderr).toMatch(/8 row\(s\) have no reward because scoring failed \(PROVIDER_\w+ ×8; first: row 1: \S+: PROVIDER_\w+: .+\); they were dropped, never counted as 0/);
    expect(readLines(out)).toHaveLength(0);
    const quiet = await runCliInProcess([...args, "-q"], { env: { RUBRICATE_TEST_KEY: SECRET } });
    expect(quiet.code).toBe(3);
    expect(quiet.stderr).toContain("8 row(s) have no reward because scoring failed");
  });

  it("writes to stdout without -o", async () => {
    const dir = tempDir();
    const input = writeJsonl(dir, "s.jsonl", [{ prompt: "p", response: "r", reward: 1 }]);
    const { code, stdout } = await runCliInProcess(["distill", input, "-q"]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ messages: [{ role: "user", content: "p" }, { role: "assistant", content: "r" }] });
  });

  it("bad options are errors before any work", async () => {
    const dir = tempDir();
    const input = writeJsonl(dir, "s.jsonl", [{ prompt: "p", response: "r", reward: 1 }]);
    const format = await runCliInProcess(["distill", input, "--format", "alpaca"]);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain("Allowed choices are openai, trl-messages, trl-prompt-completion, dpo, openai-dpo");
    const dpo = await runCliInProcess(["distill", input, "--format", "dpo", "--best-of", "2"]);
    expect(dpo.code).toBe(2);
    expect(dpo.stderr).toContain("--best-of does not apply");
    const usage = await runCliInProcess(["distill", input, "--best-of", "zero"]);
    expect(usage.code).not.toBe(0);
    expect(usage.stderr).toContain('expected a positive integer, got "zero"');
    // With their partner, the options that tune it are taken.
    const near = await runCliInProcess(["distill", input, "--dedup", "near", "--ngram", "3", "--near-threshold", "0.9", "-q"]);
    expect(near.code, near.stderr).toBe(0);
  });

  it("--rollouts past 200,000 rollouts in all (tasks × rollouts, as eval bounds its grid) exits 2 naming it, before the teacher is called (played until stopped, before)", async () => {
    const server = await startOpenAIServer({ respond: () => "The capital of France is Paris." });
    servers.push(server as TestServer<unknown>);
    const out = join(tempDir(), "sft.jsonl");
    const r = await runCliInProcess(["distill", "--env", "examples/distill/env.yaml", "--model", `openai-compatible:teacher@${server.url}`, "--rollouts", "100000", "-c", "1", "--no-cache", "-o", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("rubricate: --rollouts 100000: 8 task(s) × 100000 rollout(s) is 800,000 rollouts, more than the 200,000 one generation plays (one eval's bound); lower --rollouts or --tasks\n");
    expect(server.stats.requests).toBe(0);
    expect(existsSync(out)).toBe(false);
    // The library refuses it too: the bound is on the product, so 25,000 rollouts of the 8 tasks would run.
    const env = await loadEnvironment("examples/distill/env.yaml");
    await expect(generateRollouts({ env, policy: {} as Policy, engine: {} as Engine, rollouts: 25_001 }).next()).rejects.toMatchObject({ code: "BAD_INPUT", message: "8 task(s) × 25001 rollout(s) is 200,008 rollouts, more than the 200,000 one generation plays (one eval's bound)" });
    expect(generationTooLarge({ tasks: 8, rollouts: 25_000 })).toBeUndefined();
  });

  it("--rollouts past the bound on its own (or with --tasks) is refused before the environment is even loaded: a package that does not exist is never looked for", async () => {
    const r = await runCliInProcess(["distill", "--env", "no-such-package-rubricate-test", "--model", "openai-compatible:teacher@http://127.0.0.1:9", "--rollouts", "300000", "--no-cache", "-o", join(tempDir(), "sft.jsonl")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("rubricate: --rollouts 300000: 1 task(s) × 300000 rollout(s) is 300,000 rollouts, more than the 200,000 one generation plays (one eval's bound); lower --rollouts or --tasks\n");
    const withTasks = await runCliInProcess(["distill", "--env", "no-such-package-rubricate-test", "--model", "openai-compatible:teacher@http://127.0.0.1:9", "--tasks", "4", "--rollouts", "60000", "--no-cache", "-o", join(tempDir(), "sft.jsonl")]);
    expect(withTasks.code).toBe(2);
    expect(withTasks.stderr).toContain("4 task(s) × 60000 rollout(s) is 240,000 rollouts");
  });

  it("a checkpoint another run wrote is not resumed in silence: one line on stderr, even with -q, names it and what changed", async () => {
    const dir = tempDir();
    const input = writeJsonl(dir, "s.jsonl", samples(5));
    const out = join(dir, "out.jsonl");
    writeFileSync(`${out}.checkpoint.json`, JSON.stringify({ version: 1, fingerprint: "another run", parts: { filters: "another" }, phase: 1, groupsDone: 3, bytes: 0 }));
    const r = await runCliInProcess(["distill", input, "-o", out, "--rubric", "tests/fixtures/distill/checks-rubric.yaml", "--best-of", "1", "-q"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`rubricate distill: ${out}.checkpoint.json: changed since it was written: the filters; starting over (pass the same input and options to resume)\n`);
    expect(readLines(out)).toHaveLength(5);
  });

  it("SIGKILL mid-run, re-run: same file as an uninterrupted run, and the judge is paid once per question", async () => {
    const server = await startOpenAIServer({ respond: judgeResponder((_q, view) => view.sample.includes("Please")), latencyMs: 10 });
    servers.push(server as TestServer<unknown>);
    const dir = tempDir();
    const input = writeJsonl(dir, "s.jsonl", samples(150));
    const judge = writeJudgeFile(dir, server.url, { max_concurrency: 8 });
    const env = { RUBRICATE_TEST_KEY: SECRET };
    const common = ["--rubric", "tests/fixtures/distill/judged-rubric.yaml", "--judge", judge, "--best-of", "1", "--dedup", "near", "-q"];

    const out = join(dir, "out.jsonl");
    const args = ["distill", input, "-o", out, "--cache", join(dir, "cache.db"), "--checkpoint-ms", "50", ...common];
    const child = spawnDistill(args, { env });
    const exited = new Promise((r) => child.on("close", r));
    // Kill once a checkpoint records written groups, so the re-run must resume from it.
    const ckPath = `${out}.checkpoint.json`;
    const written = () => existsSync(ckPath) && JSON.parse(readFileSync(ckPath, "utf8")).groupsDone > 0;
    while (!written() && server.stats.requests < 600) await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGKILL");
    await exited;
    const firstRequests = server.stats.requests;
    expect(firstRequests).toBeLessThan(600);
    expect(existsSync(out)).toBe(false);
    const groupsDone = JSON.parse(readFileSync(ckPath, "utf8")).groupsDone;

    const resumed = await runCliInProcess(args.filter((a) => a !== "-q"), { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resumed after ${groupsDone} written group(s)`);
    const paid = server.stats.requests;

    const fresh = await runCliInProcess(["distill", input, "-o", join(dir, "fresh.jsonl"), "--cache", join(dir, "fresh.db"), ...common], { env });
    expect(fresh.code, fresh.stderr).toBe(0);
    const freshRequests = server.stats.requests - paid;
    expect(freshRequests).toBe(600); // one batched call per sample (its one LLM question)
    expect(readFileSync(out, "utf8")).toBe(readFileSync(join(dir, "fresh.jsonl"), "utf8"));
    // Calls in flight at the kill may be paid and lost; everything answered was cached.
    expect(paid).toBeLessThanOrEqual(freshRequests + 8);
    expect(readFileSync(out, "utf8")).not.toContain(SECRET);
  });
});
