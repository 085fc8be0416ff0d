import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEval } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import { createPolicy } from "../../src/env/policy.js";
import { rollout } from "../../src/env/rollout.js";
import type { Environment } from "../../src/env/types.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { connect, JUDGE_MODEL, lastOf, startWorld, type WireMessage } from "./world.js";

const turnOf = (m: WireMessage[]) => m.filter((x) => x.role === "assistant").length;
const call = (turn: number, name: string, args: unknown) => ({ id: `c${turn}-${name}`, name, arguments: typeof args === "string" ? args : JSON.stringify(args) });

/** Every way to misuse tools, one per turn, then more of the same until max_turns. */
function misbehaver(messages: WireMessage[]) {
  const turn = turnOf(messages);
  const script = [
    [call(turn, "lookup", "{word: alpha")],
    [call(turn, "delete_everything", {})],
    [call(turn, "lookup", { word: 5 }), call(turn, "boom", {})],
    [call(turn, "slow", {})],
  ];
  return { toolCalls: script[turn] ?? [call(turn, "lookup", { word: "again" })] };
}

/** Looks the word up, then answers it. */
function good(messages: WireMessage[]) {
  const word = /'(\w+)'/.exec(lastOf(messages, "user"))?.[1] ?? "";
  if (!messages.some((m) => m.role === "tool")) return { toolCalls: [call(0, "lookup", { word })] };
  return word;
}

let server: TestServer<unknown>;
let env: Environment;
beforeAll(async () => {
  env = await loadEnvironment("tests/env/fixtures/tools/env.yaml");
  server = await startWorld({ misbehaver, good, looper: (m) => ({ toolCalls: [call(turnOf(m), "lookup", { word: "more" })] }) }, (_q, view) => /### response\n\S/.test(view.sample));
});
afterAll(() => server.close());

const policyRequests = (model: string) => server.requests.filter((r) => (r.body as { model: string }).model === model);

describe("rollout", () => {
  it("shows every tool failure to the model as a tool result, and max_turns ends a policy that never stops", async () => {
    const { engine, judge, policies } = connect(server.url, ["misbehaver"]);
    const rec = await rollout(env, policies[0], env.tasks[0], { engine, judge });
    expect(rec.toolCalls.map((c) => [c.name, c.error ?? "ok"])).toEqual([
      ["lookup", "bad_arguments"],
      ["delete_everything", "unknown_tool"],
      ["lookup", "bad_arguments"],
      ["boom", "tool_error"],
      ["slow", "timeout"],
      ["lookup", "ok"],
    ]);
    expect(rec.toolCalls[0].result).toMatch(/not valid JSON/);
    expect(rec.toolCalls[1].result).toMatch(/unknown tool "delete_everything".*lookup, slow, boom/);
    expect(rec.toolCalls[2].result).toMatch(/\/word must be string/);
    expect(rec.toolCalls[3].result).toMatch(/the boom tool exploded/);
    expect(rec.toolCalls[4].result).toMatch(/timed out after 100 ms/);
    expect(rec.stopReason).toBe("max_turns");
    expect(rec.turns).toBe(5);
    // The model saw the errors: the next request carried them as tool messages.
    const second = policyRequests("misbehaver")[1].body as { messages: WireMessage[] };
    expect(lastOf(second.messages, "tool")).toMatch(/not valid JSON/);
    expect(rec.reward).toBe(0);
    expect(rec.verdicts.map((v) => [v.id, v.status])).toEqual([
      ["names-answer", "unmet"],
      ["clean-tools", "unmet"],
      ["helpful", "unmet"],
    ]);
    engine.close();
  });

  it("an endless tool caller is stopped at max_turns; a good policy earns the full reward", async () => {
    const { engine, judge, policies } = connect(server.url, ["looper", "good"]);
    const loop = await rollout(env, policies[0], env.tasks[1], { engine, judge });
    expect([loop.stopReason, loop.turns, loop.toolCalls.length]).toEqual(["max_turns", 5, 5]);
    // Its tools all worked (1 of 5 points: t2 adds a criterion of its own), but it never answered.
    expect(loop.verdicts.map((v) => v.id)).toEqual(["names-answer", "clean-tools", "helpful", "says-beta-twice"]);
    expect(loop.reward).toBe(0.2);
    expect(loop.response).toBe("");
    const ok = await rollout(env, policies[1], env.tasks[1], { engine, judge });
    expect([ok.stopReason, ok.turns, ok.response, ok.reward]).toEqual(["final_answer", 2, "beta", 0.8]);
    expect(ok.verdicts.at(-1)).toMatchObject({ id: "says-beta-twice", status: "unmet" });
    // The record carries what the policy was offered, so distillation can export it as played.
    expect(ok.tools?.map((t) => t.name).sort()).toEqual(env.harness.tools.map((t) => t.name).sort());
    expect(ok.system).toBe("You look words up with the tools.");
    engine.close();
  });

  it("k rollouts are k distinct policy calls; a second eval on the same cache pays nothing", async () => {
    const { engine, judge, policies } = connect(server.url, ["good"]);
    const before = policyRequests("good").length;
    const judgeBefore = policyRequests(JUDGE_MODEL).length;
    const first = await runEval(env, { policies, engine, judge, rollouts: 3 });
    expect(first.records).toHaveLength(6);
    expect(new Set(first.records.map((r) => `${r.task}/${r.rollout}`)).size).toBe(6);
    expect(policyRequests("good").length - before).toBe(2 * 3 * 2);
    // The scripted policy is deterministic, so the 3 rollouts of a task are the same sample: judged once.
    const judged = policyRequests(JUDGE_MODEL).length - judgeBefore;
    expect(judged).toBe(2);
    const again = await runEval(env, { policies, engine, judge, rollouts: 3 });
    expect(policyRequests("good").length - before).toBe(12);
    expect(policyRequests(JUDGE_MODEL).length - judgeBefore).toBe(2);
    // Replayed turns are cache hits, not paid calls (the engine classifies each call; the rollout reads it).
    expect(again.records.every((r) => r.usage.policy.cacheHits === r.turns && r.usage.policy.calls === 0)).toBe(true);
    expect(again.records.map((r) => r.reward)).toEqual(first.records.map((r) => r.reward));
    // Policy and judge run on separate schedulers of the one engine.
    expect(Object.keys(engine.stats().schedulers).sort()).toEqual([`openai-compatible:${JUDGE_MODEL}`, `policy:${policies[0].id}`].sort());
    engine.close();
  });

  it("a replayed rollout counts its policy turns as cache hits with no tokens or cost, a first one as paid calls", async () => {
    const { engine, judge, policies } = connect(server.url, ["good"]);
    const first = await rollout(env, policies[0], env.tasks[0], { engine, judge, index: 7 });
    const paid = first.usage.policy;
    expect([paid.calls, paid.cacheHits]).toEqual([first.turns, 0]);
    expect(paid.inputTokens).toBeGreaterThan(0);
    expect(paid.costUsd).toBeGreaterThan(0);
    const replay = await rollout(env, policies[0], env.tasks[0], { engine, judge, index: 7 });
    expect(replay.usage.policy).toEqual({ calls: 0, cacheHits: first.turns, inputTokens: 0, outputTokens: 0, costUsd: 0 });
    expect(engine.stats().usage.calls).toBe(paid.calls + first.usage.judge.calls);
    engine.close();
  });

  it("stop conditions, few-shot turns and the env's sampling defaults", async () => {
    const { engine, judge, policies } = connect(server.url, ["looper", "good"]);
    const capped = { ...env, harness: { ...env.harness, stop: { ...env.harness.stop, max_tool_calls: 2 } } };
    const loop = await rollout(capped, policies[0], env.tasks[0], { engine, judge });
    expect([loop.stopReason, loop.toolCalls.length, loop.turns]).toEqual(["max_tool_calls", 2, 3]);
    const shots = [{ role: "user" as const, content: "Look up 'x'." }, { role: "assistant" as const, content: "x" }];
    const matched = { ...env, harness: { ...env.harness, few_shot: shots, stop: { ...env.harness.stop, match: "^alpha$" } } };
    const before = policyRequests("good").length;
    const withDefaults = createPolicy({ provider: "openai-compatible", model: "good", base_url: server.url }, { defaults: { temperature: 0.3, max_tokens: 50 } });
    const stopped = await rollout(matched, withDefaults, env.tasks[0], { engine, judge });
    expect(stopped.stopReason).toBe("stop_match");
    const sent = policyRequests("good").slice(before).map((r) => r.body as { messages: WireMessage[]; temperature?: number; max_tokens?: number });
    expect(sent[0].messages.slice(1, 4).map((m) => m.content)).toEqual(["Look up 'x'.", "x", "Look up the word 'alpha'."]);
    expect([sent[0].temperature, sent[0].max_tokens]).toEqual([0.3, 50]);
    // Few-shot turns are prompt, not part of the rollout's conversation.
    expect(stopped.messages[0].content).toBe("Look up the word 'alpha'.");
    engine.close();
  });

  it("a policy that cannot be called yields a rollout without reward, not a made-up 0", async () => {
    const { engine, judge, policies } = connect(server.url, ["no-such-model"]);
    const rec = await rollout(env, policies[0], env.tasks[0], { engine, judge });
    expect(rec.stopReason).toBe("policy_error");
    expect(rec.reward).toBeNull();
    expect(rec.error?.code).toBe("PROVIDER_HTTP");
    expect(rec.errors[0].criterion).toBe("*");
    engine.close();
  });
});
