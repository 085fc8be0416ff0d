import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { score } from "../../src/score/score.js";
import { createJudge } from "../../src/judge/create.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import type { Sample } from "../../src/types.js";
import { tempDir, writeJudgeFile } from "../helpers/cli.js";
import { judgeResponder, promptText } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer, type TestServer } from "../../src/testing/servers/openai-server.js";
import { decide, jsonOf, KEY, RUBRIC, runPython, startServe, type LiveServer } from "./helpers.js";
import { needs, which } from "../helpers/system.js";

const TOKEN = "bridge-token-3b9e";
const CASES = [
  { question: "What is the capital of France?", answer: "Paris", response: "Paris, thank you for asking." },
  { question: "What is 2+2?", answer: "4", response: "It is 5, idiot." },
  { question: "Who wrote Hamlet?", answer: "Shakespeare", response: "According to the Folio, Shakespeare." },
  { question: "What is the boiling point of water?", answer: "100", response: "Please note: 90 degrees." },
  { question: "Name a prime.", answer: "7", response: "GARBLE 7" },
];

let judgeServer: TestServer<unknown>;
let refServer: TestServer<unknown>;
let serve: LiveServer;
let judgePath: string;
let refJudgePath: string;
const rubric = loadRubricSync(RUBRIC);

/** What score() computes in-process for the same samples, through its own judge server and an empty cache. */
async function inProcess(samples: Sample[]): Promise<(number | null)[]> {
  const judge = createJudge(refJudgePath, { cache: false });
  try {
    return (await score(rubric, samples, { judge })).map((r) => r.reward);
  } finally {
    judge.close?.();
  }
}

beforeAll(async () => {
  judgeServer = (await startOpenAIServer({ respond: judgeResponder(decide) })) as TestServer<unknown>;
  refServer = (await startOpenAIServer({ respond: judgeResponder(decide) })) as TestServer<unknown>;
  const dir = tempDir();
  process.env.RUBRICATE_TEST_KEY = KEY;
  judgePath = writeJudgeFile(dir, judgeServer.url, { max_retries: 0 });
  refJudgePath = writeJudgeFile(tempDir(), refServer.url, { max_retries: 0 });
  serve = await startServe(["--rubric", RUBRIC, "--judge", judgePath, "--port", "0", "--cache", join(dir, "cache.db"), "--token", TOKEN]);
});

afterAll(async () => {
  serve?.child.kill("SIGTERM");
  await serve?.exited;
  await judgeServer?.close();
  await refServer?.close();
});

/** Judge prompts the server paid for more than once, leaving out the misbehaving sample (errors are never cached, so it is asked again). */
function paidTwice(): number {
  const prompts = judgeServer.requests.map((r) => promptText(r.body as Record<string, unknown>)).filter((p) => !p.includes("GARBLE"));
  return prompts.length - new Set(prompts).size;
}

// The Python clients need Debian's python3 (stdlib only): skipped with the reason locally, a failure under CI=true.
const python = needs("python3", () => which("python3"), "apt-get install python3");

describe("rubricate serve end to end", () => {
  python.describe("the Python clients", () => {
    it("each Python client gets the rewards score() computes in-process", async () => {
      const expected = await inProcess(CASES);
      // Sanity: the cases cover distinct rewards and a reward that cannot be computed.
      expect(new Set(expected).size).toBeGreaterThanOrEqual(4);
      expect(expected[4]).toBeNull();
      const out = JSON.parse(await runPython(["tests/bridge/drive_clients.py", serve.url, TOKEN], JSON.stringify(CASES)));
      expect(out.trl_plain).toEqual(expected);
      expect(out.trl_conversational).toEqual(expected);
      expect(out.trl_name).toBe("rubricate");
      expect(out.trl_plain_errors.slice(0, 4)).toEqual([null, null, null, null]);
      expect(out.trl_plain_errors[4]).toMatch(/JUDGE_PARSE|malformed|verdict/i);
      expect(out.verl_one).toEqual(expected);
      expect(out.verl_batch).toEqual(expected);
      expect(out.verl_fallback).toEqual([-1]);
      expect(out.verl_raise).toMatch(/could not compute a reward/);
      expect(out.wrong_token).toEqual({ status: 401, code: "UNAUTHORIZED" });
      // Five samples asked by four clients: each judge prompt was paid once; the repeats were cache hits.
      expect(out.stats_calls).toBe(judgeServer.stats.requests);
      expect(judgeServer.stats.requests).toBeGreaterThan(0);
      expect(paidTwice()).toBe(0);
    });
  });

  it("an OpenRLHF-shaped request gets rewards, scores, per-criterion extra_logs and errors", async () => {
    const prompt = (q: string) => `<|im_start|>user\n${q}<|im_end|>\n<|im_start|>assistant\n`;
    const body = {
      query: CASES.map((c) => `${prompt(c.question)}${c.response}<|im_end|>`),
      prompts: CASES.map((c) => prompt(c.question)),
      labels: CASES.map((c) => c.answer),
    };
    const res = await fetch(`${serve.url}/get_reward`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    const json = await jsonOf(res);
    // The sample is the templated prompt as the question, the reference answer and the cut-out response.
    const expected = await inProcess(CASES.map((c) => ({ question: prompt(c.question), answer: c.answer, response: c.response })));
    // A sample without a reward gets the fallback (0.0), never null (OpenRLHF cannot make a tensor of null); it is counted.
    expect(json.rewards).toEqual(expected.map((r) => r ?? 0));
    expect(json.scores).toEqual(expected.map((r) => r ?? 0));
    expect(json.errors.map((e: string | null) => e === null)).toEqual(expected.map((r) => r !== null));
    const criteria = ["correct", "polite", "insults", "cites", "short"];
    expect(Object.keys(json.extra_logs).sort()).toEqual([...criteria, "rubricate_error", ...criteria.map((c) => `rubricate_error/${c}`)].sort());
    expect(json.extra_logs.correct.slice(0, 4)).toEqual([1, 0, 1, 0]);
    expect(json.extra_logs.cites.slice(0, 4)).toEqual([0, 0, 1, 0]); // skipped when not correct: 0, not an error
    expect(json.extra_logs.rubricate_error).toEqual([0, 0, 0, 0, 1]);

    // OpenRLHF's current rollout path sends one sample per request; a JSON-object label supplies inputs by name.
    const one = await fetch(`${serve.url}/get_reward`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ query: [`Q: ${CASES[0].question}\nA: ${CASES[0].response}</s>`], prompts: [`Q: ${CASES[0].question}\nA: `], labels: [{ answer: "Paris", question: CASES[0].question }] }),
    }).then(jsonOf);
    expect(one.rewards).toEqual([(await inProcess([CASES[0]]))[0]]);

    // A query that does not start with its prompt cannot be cut: the fallback with the reason, the rest scored.
    const bad = await fetch(`${serve.url}/get_reward`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ query: ["something else entirely", body.query[0]], prompts: [body.prompts[1], body.prompts[0]], labels: ["4", "Paris"] }),
    }).then(jsonOf);
    expect(bad.rewards).toEqual([0, expected[0]]);
    expect(bad.extra_logs.rubricate_error).toEqual([1, 0]);
    expect(bad.errors[0]).toMatch(/does not start with its prompt/);
  });

  it("POST /v1/score returns rewards, verdicts and feedback; /v1/score/one one sample; stats count it all", async () => {
    const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const batch = await fetch(`${serve.url}/v1/score`, { method: "POST", headers: auth, body: JSON.stringify({ samples: CASES }) }).then(jsonOf);
    const expected = await inProcess(CASES);
    expect(batch.rewards).toEqual(expected);
    expect(batch.results[1].verdicts.find((v: { id: string }) => v.id === "insults").status).toBe("met");
    expect(batch.results[1].feedback).toMatch(/insults/);
    expect(batch.errors[4]).toMatch(/correct|polite|insults/);
    const single = await fetch(`${serve.url}/v1/score/one`, { method: "POST", headers: auth, body: JSON.stringify({ sample: CASES[2] }) }).then(jsonOf);
    expect(single.reward).toBe(expected[2]);
    expect(single.error).toBeNull();
    const health = await fetch(`${serve.url}/healthz`).then(jsonOf);
    expect(health).toMatchObject({ ok: true, rubric: "bridge-qa", inputs: ["question", "response", "answer"], response_field: "response" });
    const stats = await fetch(`${serve.url}/v1/stats`, { headers: auth }).then(jsonOf);
    expect(stats.judge.calls).toBeGreaterThan(0);
    expect(stats.judge.cacheHits).toBeGreaterThan(0);
    expect(stats.samples.withoutReward).toBeGreaterThan(0);
    expect(Object.keys(stats.errors.samples).length).toBeGreaterThan(0);
    expect(stats.queue).toEqual({ queued: 0, inFlight: 0 });
    expect(stats.requests.byRoute["/get_reward"]).toBeGreaterThanOrEqual(3);
    expect(paidTwice()).toBe(0);
    // Stats need the token like every route but /healthz.
    expect((await fetch(`${serve.url}/v1/stats`)).status).toBe(401);
  });
});
