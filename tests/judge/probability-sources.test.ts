/** Probability sources (issue 23): stated confidence, a one-token verdict probe, per-criterion thresholds. */
import { afterEach, describe, expect, it } from "vitest";
import { createJudge } from "../../src/judge/create.js";
import { probeProbability } from "../../src/judge/parse.js";
import { parseRubric } from "../../src/rubric/load.js";
import { scoreSample } from "../../src/score/score.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { viewRequest } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";

const servers: TestServer<unknown>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const rubric = (threshold = "") =>
  parseRubric(`id: r\ninputs: [response]\ncriteria:\n  - id: a\n    question: Is a there?\n${threshold}  - id: b\n    question: Is b there?\n`);
const confidence: Record<string, number> = { a: 0.7, b: 0.2 };
const probeP: Record<string, number> = { a: 0.8, b: 0.35 };
const lp = Math.log;

/** Answers yes to a, no to b, with a stated confidence; a probe request gets one token with top logprobs. */
async function server() {
  const s = (await startOpenAIServer({
    respond: (body) => {
      const view = viewRequest(body);
      if (view.prompt.includes("Answer the question below with one word: yes or no.")) {
        const p = probeP[view.questions[0].id];
        return { text: p >= 0.5 ? "yes" : "no", logprobs: [{ token: p >= 0.5 ? "yes" : "no", logprob: lp(Math.max(p, 1 - p)), top: [{ token: "yes", logprob: lp(p) }, { token: " No", logprob: lp(1 - p) }, { token: "maybe", logprob: -9 }] }] };
      }
      const answers = view.questions.map((q) => ({ id: q.id, reason: "r", confidence: confidence[q.id], verdict: q.id === "a" }));
      return view.batched ? JSON.stringify({ answers }) : JSON.stringify(answers[0]);
    },
  })) as TestServer<unknown>;
  servers.push(s);
  return s;
}
const judgeAt = (url: string, extra: Record<string, unknown>) => createJudge({ provider: "openai-compatible", base_url: url, model: "judge", max_retries: 0, ...extra }, { cache: false });

describe("probability: confidence", () => {
  it("asks for a stated confidence and uses it as P(yes)", async () => {
    const s = await server();
    const r = await scoreSample(rubric(), { response: "x" }, { judge: judgeAt(s.url, { probability: "confidence" }) });
    expect(r.verdicts.map((v) => [v.id, v.status, v.probability])).toEqual([["a", "met", 0.7], ["b", "unmet", 0.2]]);
    const body = s.requests[0].body as { response_format: { json_schema: { schema: { properties: { answers: { items: { required: string[] } } } } } } };
    expect(body.response_format.json_schema.schema.properties.answers.items.required).toEqual(["id", "confidence", "verdict"]);
    expect(viewRequest(s.requests[0].body as Record<string, unknown>).prompt).toContain('"confidence" is your probability, from 0 to 1, that the answer is yes.');
  });

  it("is not asked for by default (the prompt and schema stay as they were)", async () => {
    const s = await server();
    const r = await scoreSample(rubric(), { response: "x" }, { judge: judgeAt(s.url, {}) });
    expect(viewRequest(s.requests[0].body as Record<string, unknown>).prompt).not.toContain('"confidence"');
    expect(r.verdicts.map((v) => v.probability)).toEqual([1, 0]);
  });
});

describe("probability: probe", () => {
  it("adds one one-token yes/no call per question and reads P(yes) from its top logprobs", async () => {
    const s = await server();
    const r = await scoreSample(rubric(), { response: "x" }, { judge: judgeAt(s.url, { probability: "probe" }) });
    expect(s.requests).toHaveLength(3);
    const probes = s.requests.slice(1).map((q) => q.body as { max_tokens?: number; max_completion_tokens?: number; logprobs: boolean; top_logprobs: number; response_format?: unknown });
    for (const b of probes) {
      expect(b.max_tokens ?? b.max_completion_tokens).toBe(1);
      expect(b).toMatchObject({ logprobs: true, top_logprobs: 10 });
      expect(b.response_format).toBeUndefined();
    }
    // The verdict comes from the answer; the probability from the probe.
    expect(r.verdicts.map((v) => [v.id, v.status])).toEqual([["a", "met"], ["b", "unmet"]]);
    expect(r.verdicts[0].probability).toBeCloseTo(0.8, 9);
    expect(r.verdicts[1].probability).toBeCloseTo(0.35, 9);
  });

  it("asks the probe for one word only: no reason, no JSON, whatever the judge's reasoning setting (issue 30)", async () => {
    const s = await server();
    await scoreSample(rubric(), { response: "x" }, { judge: judgeAt(s.url, { probability: "probe", reasoning: "before", system_preset: "strict" }) });
    for (const r of s.requests.slice(1)) {
      const body = r.body as { messages: { role: string; content: string }[] };
      const text = body.messages.map((m) => m.content).join("\n");
      expect(text).toContain("Answer the question below with one word: yes or no.");
      expect(text).not.toMatch(/reason|JSON/i);
    }
  });

  it("refuses Anthropic, which returns no logprobs, instead of paying for a made-up P(yes) (issue 30)", () => {
    expect(() => createJudge({ provider: "anthropic", model: "claude", probability: "probe" }, { cache: false })).toThrow(/probability: probe needs token logprobs, which the Anthropic API does not return/);
    process.env.RUBRICATE_TEST_ANTHROPIC_KEY = "test-not-a-secret";
    expect(() => createJudge({ provider: "anthropic", model: "claude", api_key_env: "RUBRICATE_TEST_ANTHROPIC_KEY", probability: "probe" }, { cache: false })).toThrow(/probability: probe needs token logprobs/);
    expect(() => createJudge({ provider: "anthropic", model: "claude", api_key_env: "RUBRICATE_TEST_ANTHROPIC_KEY", probability: "confidence" }, { cache: false })).not.toThrow();
  });

  it("leaves the probability out when a server sends no logprobs, never the vote's P = 1 (issue 30)", async () => {
    const s = (await startOpenAIServer({
      respond: (body) => {
        const view = viewRequest(body);
        if (view.prompt.includes("with one word: yes or no.")) return { text: "yes", logprobs: [] };
        return JSON.stringify({ answers: view.questions.map((q) => ({ id: q.id, verdict: true })) });
      },
    })) as TestServer<unknown>;
    servers.push(s);
    const r = await scoreSample(rubric(), { response: "x" }, { judge: judgeAt(s.url, { probability: "probe" }) });
    expect(r.verdicts.map((v) => [v.status, v.probability])).toEqual([["met", undefined], ["met", undefined]]);
  });

  it("probeProbability renormalises yes against no and gives nothing without logprobs", () => {
    const resp = (logprobs?: { token: string; logprob: number; top?: { token: string; logprob: number }[] }[]) => ({ text: "yes", finishReason: "stop" as const, usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 }, model: "m", logprobs });
    expect(probeProbability(resp([{ token: "Yes", logprob: lp(0.6), top: [{ token: "Yes", logprob: lp(0.6) }, { token: "no", logprob: lp(0.2) }] }]))).toBeCloseTo(0.75, 9);
    expect(probeProbability(resp())).toBeUndefined();
    expect(probeProbability(resp([{ token: "Perhaps", logprob: -0.1, top: [{ token: "Perhaps", logprob: -0.1 }] }]))).toBeUndefined();
  });
});

describe("per-criterion threshold", () => {
  it("decides met from P(yes) ≥ threshold when there is a probability", async () => {
    const s = await server();
    // With the probe, a's P(yes) is 0.8: met at threshold 0.75, unmet at 0.9.
    const low = await scoreSample(rubric("    threshold: 0.75\n"), { response: "x" }, { judge: judgeAt(s.url, { probability: "probe" }) });
    expect(low.verdicts[0].status).toBe("met");
    const high = await scoreSample(rubric("    threshold: 0.9\n"), { response: "x" }, { judge: judgeAt(s.url, { probability: "probe" }) });
    expect(high.verdicts[0]).toMatchObject({ status: "unmet", earned: 0 });
  });

  it("refuses a threshold outside [0, 1] with the file position", () => {
    expect(() => parseRubric("id: r\ninputs: [response]\ncriteria:\n  - id: a\n    question: Is a there?\n    threshold: 1.5\n", { filename: "t.yaml" })).toThrow(/t\.yaml:6:\d+/);
  });
});
