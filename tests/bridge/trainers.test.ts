/**
 * The trainers' contracts (issue 17), checked in Python the way each trainer reads our answers:
 * OpenRLHF (floats only, never null, fixed extra_logs keys, 5xx with Retry-After on an outage),
 * TRL (float or None), verl (the file loaded by path; float score in a dict with fixed keys),
 * verifiers (a judge failure is logged and in the metrics, never a silent 0.0).
 * The facts are in examples/trainers/README.md ("What each trainer does with our answers").
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROOT, tempDir, writeJudgeFile } from "../helpers/cli.js";
import { needs, which } from "../helpers/system.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer, type TestServer } from "../../src/testing/servers/openai-server.js";
import { decide, KEY, RUBRIC, startServe, type LiveServer } from "./helpers.js";

const python = needs("python3", () => which("python3"), "apt-get install python3");
const HERE = join(ROOT, "tests/bridge/trainers");
const CASES = [
  { question: "What is the capital of France?", answer: "Paris", response: "Paris, thank you for asking." },
  { question: "What is 2+2?", answer: "4", response: "It is 5, idiot." },
  { question: "Who wrote Hamlet?", answer: "Shakespeare", response: "According to the Folio, Shakespeare." },
  { question: "Name a prime.", answer: "7", response: "GARBLE 7" }, // the judge answers garbage: a lone failed sample
];
const template = (q: string) => `<|im_start|>user\n${q}<|im_end|>\n<|im_start|>assistant\n`;
const openrlhf = (name: string, rows: { question: string; response: string; answer?: string }[]) => ({
  name,
  query: rows.map((r) => `${template(r.question)}${r.response}<|im_end|>`),
  prompts: rows.map((r) => template(r.question)),
  labels: rows.map((r) => r.answer ?? ""),
});

/** Runs a contract script; resolves with its JSON output (a violation exits 1 and rejects with its message). */
function contract(args: string[], input: unknown, cwd = ROOT): Promise<any> {
  const child = spawn(python.path ?? "python3", args, { cwd, env: { ...process.env, RUBRICATE_URL: "", PYTHONDONTWRITEBYTECODE: "1" }, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.end(JSON.stringify(input));
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${args[0]} exited ${code}: ${out}\n${err}`)))));
}

let judge: TestServer<unknown>;
const live: LiveServer[] = [];
const dir = tempDir();
const serve = async (args: string[]) => {
  const s = await startServe(["--port", "0", "--no-cache", ...args]);
  live.push(s);
  return s;
};

// Each test starts its own servers and Python process (the shared judge only answers), so they run
// side by side (it.concurrent) while each waits on its children.
python.describe("trainer contracts, checked in Python as each trainer reads our answers", () => {
  beforeAll(async () => {
    judge = (await startOpenAIServer({ respond: judgeResponder(decide) })) as TestServer<unknown>;
    process.env.RUBRICATE_TEST_KEY = KEY;
  });
  afterAll(async () => {
    for (const s of live) s.child.kill("SIGTERM");
    await Promise.all(live.map((s) => s.exited));
    await judge?.close();
  });

  it.concurrent("OpenRLHF: all-0, all-1 and mixed batches are floats (never an int64 tensor), never null, same keys; empty shards answered", async ({ expect }) => {
    const one = await serve(["--rubric", join(ROOT, "tests/bridge/fixtures/one-check.yaml")]);
    const paris = { question: "Capital of France?", response: "Paris." };
    const rome = { question: "Capital of France?", response: "Rome." };
    const out = await contract([join(HERE, "openrlhf_contract.py"), one.url], [
      openrlhf("all-1", Array.from({ length: 64 }, () => paris)),
      openrlhf("all-0", Array.from({ length: 64 }, () => rome)),
      openrlhf("mixed", [paris, rome, paris]),
      openrlhf("one-query", [paris]), // current OpenRLHF: one query per request
      { name: "empty-shard", query: [], prompts: [], labels: [] }, // its other servers get an empty slice
    ]);
    expect(out["all-1"].rewards).toEqual(Array(64).fill(1));
    expect(out["all-0"].rewards).toEqual(Array(64).fill(0));
    expect(out.mixed.rewards).toEqual([1, 0, 1]);
    expect(out["empty-shard"]).toMatchObject({ status: 200, rewards: [] });
    expect(Object.keys(out["empty-shard"].extra_logs).sort()).toEqual(["rubricate_error", "rubricate_error/says-paris", "says-paris"]);
  });

  it.concurrent("OpenRLHF: a lone judge failure gets the fallback, counted in extra_logs; a judge outage is a 503 with Retry-After, even with --errors zero", async ({ expect }) => {
    const good = await serve(["--rubric", RUBRIC, "--judge", writeJudgeFile(tempDir(), judge.url, { max_retries: 0 })]);
    const mixed = await contract([join(HERE, "openrlhf_contract.py"), good.url], [openrlhf("with-garble", CASES)]);
    expect(mixed["with-garble"].status).toBe(200);
    expect(mixed["with-garble"].rewards[3]).toBe(0);
    expect(mixed["with-garble"].extra_logs.rubricate_error).toEqual([0, 0, 0, 1]);
    expect(mixed["with-garble"].errors[3]).toMatch(/JUDGE_PARSE|malformed|verdict/i);

    const down = (await startOpenAIServer({ respond: judgeResponder(decide), rates: { "500": 1 } })) as TestServer<unknown>;
    try {
      for (const extra of [[], ["--errors", "zero"]]) {
        const s = await serve(["--rubric", RUBRIC, "--judge", writeJudgeFile(tempDir(), down.url, { max_retries: 0 }), ...extra]);
        const out = await contract([join(HERE, "openrlhf_contract.py"), s.url], [openrlhf("outage", CASES.slice(0, 3)), openrlhf("outage-one", CASES.slice(0, 1))]);
        for (const name of ["outage", "outage-one"]) {
          expect(out[name]).toMatchObject({ status: 503, retry_after: "10", error: { code: "JUDGE_UNAVAILABLE" } });
          expect(out[name].reason).toMatch(/JUDGE_UNAVAILABLE/); // OpenRLHF logs only "503 Server Error: <reason>"
        }
      }
    } finally {
      await down.close();
    }
  });

  it.concurrent("OpenRLHF: the judge killed mid-run gives a 503 with Retry-After, not nulls or invented rewards", async ({ expect }) => {
    const dying = (await startOpenAIServer({ respond: judgeResponder(decide), latencyMs: 250 })) as TestServer<unknown>;
    const s = await serve(["--rubric", RUBRIC, "--judge", writeJudgeFile(tempDir(), dying.url, { max_retries: 0, max_concurrency: 4, timeout_ms: 2000 })]);
    const rows = Array.from({ length: 24 }, (_, i) => ({ question: `Question ${i}?`, answer: "Paris", response: `Paris ${i}, thank you.` }));
    const pending = contract([join(HERE, "openrlhf_contract.py"), s.url], [openrlhf("killed", rows)]);
    await new Promise((r) => setTimeout(r, 700));
    await dying.close();
    const out = await pending;
    expect(out.killed).toMatchObject({ status: 503, error: { code: "JUDGE_UNAVAILABLE" } });
    expect(Number(out.killed.retry_after)).toBeGreaterThan(0);
  });

  it.concurrent("OpenRLHF: a left-cut prompt (only its end in the query) still gets its response scored", async ({ expect }) => {
    const one = await serve(["--rubric", join(ROOT, "tests/bridge/fixtures/one-check.yaml")]);
    const prompt = template(`${"Background. ".repeat(200)}What is the capital of France?`);
    const out = await contract([join(HERE, "openrlhf_contract.py"), one.url], [{ name: "cut", query: [`${prompt.slice(-300)}Paris.<|im_end|>`], prompts: [prompt], labels: [""] }]);
    expect(out.cut).toMatchObject({ status: 200, rewards: [1], errors: [null] });
  });

  it.concurrent("TRL: floats or None (never NaN, never an int), one per completion; the error rate is logged as a metric", async ({ expect }) => {
    const s = await serve(["--rubric", RUBRIC, "--judge", writeJudgeFile(tempDir(), judge.url, { max_retries: 0 })]);
    const out = await contract([join(HERE, "trl_contract.py"), s.url], CASES);
    expect(out.problems).toEqual([]);
    expect(out.values).toHaveLength(4);
    expect(out.values[3]).toBeNull();
    expect(out.unscorable).toEqual([3]);
    expect(out.metrics).toEqual([["rubricate/error_rate", 0.25]]);
  });

  it.concurrent("verl: the file works loaded by path alone (python -I, outside the repo); score is a float in a dict with fixed keys", async ({ expect }) => {
    const s = await serve(["--rubric", RUBRIC, "--judge", writeJudgeFile(tempDir(), judge.url, { max_retries: 0 })]);
    const out = await contract(["-I", join(HERE, "verl_contract.py"), s.url, join(ROOT, "examples/trainers/verl_reward.py")], CASES, dir);
    expect(out.problems).toEqual([]);
    expect(out.keys).toEqual(["score", "rubricate_error"]);
    expect(out.in_sys_modules).toBe(false);
    expect(out.scores[3]).toBe(0); // the lone judge failure: the fallback, flagged
    expect(out.errors).toEqual([0, 0, 0, 1]);
    expect(out.batch).toEqual(out.scores);
    expect(out.scores.slice(0, 3).every((v: number) => typeof v === "number")).toBe(true);
  });

  it.concurrent("verifiers: a judge failure is logged and in the state's metrics, never an exception turned into a silent 0.0", async ({ expect }) => {
    const s = await serve(["--rubric", RUBRIC, "--judge", writeJudgeFile(tempDir(), judge.url, { max_retries: 0 })]);
    const out = await contract([join(HERE, "verifiers_contract.py"), s.url], CASES);
    expect(out.exceptions).toEqual([]);
    expect(out.metrics.map((m: Record<string, number>) => m.rubricate_error)).toEqual([0, 0, 0, 1]);
    expect(out.metrics[0].rubricate).toBeGreaterThan(0);
    expect(out.rewards[3]).toBe(0);
    expect(out.logged.join("\n")).toMatch(/no reward.*(JUDGE_PARSE|verdict|malformed)/i);
  });
});
