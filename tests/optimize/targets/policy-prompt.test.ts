import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openCache } from "../../../src/engine/cache/index.js";
import { createEngine, type Engine } from "../../../src/engine/engine.js";
import { parseEnvironment } from "../../../src/env/load.js";
import { createPolicy } from "../../../src/env/policy.js";
import type { Environment, Task } from "../../../src/env/types.js";
import { createJudge } from "../../../src/judge/create.js";
import { optimize } from "../../../src/optimize/optimize.js";
import { policyPromptTarget } from "../../../src/optimize/targets/policy-prompt.js";
import { createReflector } from "../../../src/optimize/targets/reflect.js";
import type { TestServer } from "../../../src/testing/servers/common.js";
import { startOpenAIServer } from "../../../src/testing/servers/openai-server.js";
import { judgeResponder } from "../../../src/testing/servers/judge-responder.js";
import { HARMFUL, JUDGE_MODEL, POLICY_MODEL, REFLECTOR_MODEL, RULES, policyEnv, policyJudge, policyReflector, startServer } from "./world.js";

let server: TestServer<unknown>;
let env: Environment;
beforeAll(async () => {
  server = await startServer(policyJudge, policyReflector);
  env = await parseEnvironment(JSON.stringify(policyEnv(24)), { filename: "env.yaml" });
});
afterAll(async () => server.close());

function world(url: string) {
  const engine = createEngine({ cache: openCache({ path: false }), limits: { maxConcurrency: 8, maxRetries: 1, timeoutMs: 10_000 } });
  const judge = createJudge({ provider: "openai-compatible", base_url: url, model: JUDGE_MODEL, max_retries: 1 }, { engine });
  const policy = createPolicy({ provider: "openai-compatible", base_url: url, model: POLICY_MODEL, max_retries: 1 });
  return { engine, judge, policy };
}

/** The best mean valset score any prompt can reach: a valset task passes when its rule can be learnt (seen in training or in the seed). */
function bestAchievable(trainset: Task[], valset: Task[], seed: string): number {
  const learnable = new Set([...trainset.map((t) => t.inputs.rule as string), ...RULES.filter((r) => seed.includes(r))]);
  return valset.filter((t) => learnable.has(t.inputs.rule as string)).length / valset.length;
}

describe("policy-prompt target over the wire", () => {
  it("GEPA reaches the best achievable validation score within the budget", async () => {
    for (const rngSeed of [0, 1, 2]) {
      const { engine, judge, policy } = world(server.url);
      const target = policyPromptTarget({ env, policy, engine, judge, splitSeed: rngSeed });
      const reflector = createReflector({ provider: "openai-compatible", base_url: server.url, model: REFLECTOR_MODEL, max_retries: 1 }, { engine, prompt: target.reflectionPrompt });
      const result = await optimize({ ...target, reflect: reflector.reflect, budget: 250, rngSeed, onWarning: () => {} });
      const ideal = bestAchievable(target.trainset, target.valset, target.seed.system);
      expect(result.candidates[0].meanScore).toBeLessThan(ideal);
      expect(result.best.meanScore).toBe(ideal);
      expect(result.budget.metricCalls).toBeLessThanOrEqual(250);
      expect(result.best.candidate.system).not.toContain(HARMFUL);
      expect(result.best.candidate.system.startsWith(target.seed.system)).toBe(true);
      const learnable = new Set(target.trainset.map((t) => t.inputs.rule as string));
      for (const t of target.valset) if (learnable.has(t.inputs.rule as string)) expect(result.best.candidate.system).toContain(t.inputs.rule);
      // The reflector's harmful proposals were tried and turned down on their minibatch.
      expect(result.candidates.some((c) => c.candidate.system.includes(HARMFUL))).toBe(false);
      expect(reflector.usage().calls + reflector.usage().cacheHits).toBe(result.budget.reflectionCalls);
      engine.close();
    }
  });

  it("scores a task by its rubric reward, with the judge's feedback and the policy's answer as trace", async () => {
    const { engine, judge, policy } = world(server.url);
    const target = policyPromptTarget({ env, policy, engine, judge, trainset: env.tasks.slice(0, 2), valset: env.tasks.slice(2, 4) });
    const out = await target.evaluate({ system: `Be nice.\n${RULES[1]}` }, env.tasks.slice(0, 2), { captureTraces: true });
    expect(out.scores).toEqual([0, 1]);
    expect(out.feedback![0]).toContain(`ignores the rule "${RULES[0]}"`);
    expect(out.feedback![1]).toContain("every criterion met");
    expect(out.traces![1]).toBe(`Here is my answer to "Help with request 1.". (follows: ${RULES[1]})`);
    const untraced = await target.evaluate({ system: "Be nice." }, env.tasks.slice(0, 1), { captureTraces: false });
    expect(untraced.traces).toBeUndefined();
    engine.close();
  });

  it("re-evaluating a prompt is served by the cache", async () => {
    const { engine, judge, policy } = world(server.url);
    const target = policyPromptTarget({ env, policy, engine, judge });
    const before = server.requests.length;
    const a = await target.evaluate({ system: RULES[2] }, env.tasks.slice(0, 4), { captureTraces: true });
    const paid = server.requests.length - before;
    const b = await target.evaluate({ system: RULES[2] }, env.tasks.slice(0, 4), { captureTraces: true });
    expect(paid).toBe(8); // a policy call and a judge call per task
    expect(server.requests.length - before).toBe(paid);
    expect(b).toEqual(a);
    engine.close();
  });

  it("shows the reflection model each task as its prompt text, not as JSON", () => {
    const { engine, judge, policy } = world(server.url);
    const target = policyPromptTarget({ env, policy, engine, judge });
    const prompt = target.reflectionPrompt({ candidate: target.seed, component: "system", reflectiveDataset: [{ input: env.tasks[3], output: "an answer", score: 0, feedback: "FAILED x" }] });
    expect(prompt).toContain("### Input\nHelp with request 3.");
    expect(prompt).not.toContain('"inputs"');
    expect(prompt).toContain(target.seed.system);
    expect(target.instanceText(env.tasks[5])).toBe("Help with request 5.");
    engine.close();
  });

  it("refuses a prompt using a variable some task lacks, accepts one every task has", () => {
    const { engine, judge, policy } = world(server.url);
    const target = policyPromptTarget({ env, policy, engine, judge });
    expect(target.validateProposal("Mind {{rule}} always.")).toBeUndefined();
    expect(target.validateProposal("Greet {{user_name}}.")).toMatch(/\{\{user_name\}\}/);
    engine.close();
  });

  it("splits the tasks by seed, disjoint and complete", () => {
    const { engine, judge, policy } = world(server.url);
    const a = policyPromptTarget({ env, policy, engine, judge, splitSeed: 1, valFraction: 0.25 });
    const b = policyPromptTarget({ env, policy, engine, judge, splitSeed: 1, valFraction: 0.25 });
    expect(a.valset).toHaveLength(6);
    expect(a.trainset).toHaveLength(18);
    expect(new Set([...a.trainset, ...a.valset].map((t) => t.id)).size).toBe(24);
    expect(a.valset.map((t) => t.id)).toEqual(b.valset.map((t) => t.id));
    expect(() => policyPromptTarget({ env, policy, engine, judge, trainset: env.tasks })).toThrow(/both/);
    engine.close();
  });

  it("a rollout without a reward (judge failure) fails the evaluation instead of scoring 0", async () => {
    const broken = await startOpenAIServer({
      respond: (body) => (body.model === JUDGE_MODEL ? judgeResponder(() => "malformed")(body) : `Here is my answer. (follows: ${RULES[0]})`),
    });
    try {
      const { engine, judge, policy } = world(broken.url);
      const target = policyPromptTarget({ env, policy, engine, judge });
      await expect(target.evaluate(target.seed, env.tasks.slice(0, 2), { captureTraces: false })).rejects.toMatchObject({ code: "JUDGE_PARSE", message: expect.stringMatching(/no reward/) });
      const reflect = async () => "```\nnew\n```";
      await expect(optimize({ ...target, reflect, budget: 50, onWarning: () => {} })).rejects.toMatchObject({ code: "JUDGE_PARSE" });
      engine.close();
    } finally {
      await broken.close();
    }
  });
});
