import type { Engine } from "../engine/engine.js";
import { scoreSample } from "../score/score.js";
import { costUsd } from "../engine/usage.js";
import { RubricateError, toRubricateError } from "../errors.js";
import type { ChatMessage, CompletionRequest } from "../providers/types.js";
import type { Judge } from "../judge/types.js";
import type { ErrorPolicy } from "../score/aggregate.js";
import { renderTemplate } from "../text/template.js";
import { emptyUsage, type Sample, type ScoreResult } from "../types.js";
import type { Policy } from "./policy.js";
import { executeToolCall } from "./tools.js";
import type { EnvReply, Environment, HookContext, PolicyUsage, RolloutRecord, StopReason, Task, ToolCallRecord } from "./types.js";

/** Options of `rollout`. */
export interface RolloutOptions {
  /** Policy calls go through it (cache, schedulers); share it with the judge. */
  engine: Engine;
  /** Answers the rubric's LLM questions; without one they are `NO_JUDGE` errors. */
  judge?: Judge;
  /** Which of the k rollouts of this task this is: part of the policy cache key, so k rollouts are k calls. */
  index?: number;
  signal?: AbortSignal;
  /** What a criterion error does to the reward (default "null"). */
  errors?: ErrorPolicy;
}

/** The policy's scheduler id in the shared engine: its own limits, apart from the judge's. */
export const policySchedulerId = (policy: Policy) => `policy:${policy.id}`;

/**
 * Plays one task with a policy and scores the result: the policy answers, tools run, the
 * environment replies, until a stop condition; then the rubric scores the sample built from the
 * conversation. Policy calls are cached per (task, rollout index), so a re-run replays them free.
 * @example const rec = await rollout(env, createPolicy("openai:gpt-4.1-mini"), env.tasks[0], { engine, judge }); rec.reward
 */
export async function rollout(env: Environment, policy: Policy, task: Task, options: RolloutOptions): Promise<RolloutRecord> {
  const started = Date.now();
  const index = options.index ?? 0;
  const signal = options.signal ?? new AbortController().signal;
  const { harness, hooks } = env;
  const base = { task, config: env.config, envDir: env.dir };
  const state = hooks.setup ? await hooks.setup(base) : undefined;
  const ctx: HookContext = { ...base, state, signal };
  const shots: ChatMessage[] = harness.few_shot.map((s) => ({ role: s.role, content: s.content }));
  const messages: ChatMessage[] = [{ role: "user", content: renderTemplate(harness.prompt, task.inputs) }];
  const system = harness.system === undefined ? undefined : renderTemplate(harness.system, task.inputs);
  const toolCalls: ToolCallRecord[] = [];
  const usage: PolicyUsage = { calls: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  const stopMatch = harness.stop.match === undefined ? undefined : new RegExp(harness.stop.match);
  const scheduler = policySchedulerId(policy);
  options.engine.schedulerFor(scheduler, policy.limits);

  let turns = 0;
  let stopReason: StopReason = "max_turns";
  let error: RolloutRecord["error"];
  while (turns < harness.max_turns) {
    const request: CompletionRequest = {
      model: policy.model,
      ...(system === undefined ? {} : { system }),
      messages: [...shots, ...messages],
      ...(harness.tools.length ? { tools: harness.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters })) } : {}),
      ...definedParams(policy),
    };
    let answer;
    try {
      answer = await options.engine.complete(policy.provider, request, { voteIndex: index, keyExtra: { env: env.id, task: task.id }, scheduler, signal, price: policy.price });
    } catch (e) {
      const err = toRubricateError(e);
      if (err.code === "ABORTED") throw err;
      error = { code: err.code, message: err.message };
      stopReason = "policy_error";
      break;
    }
    turns++;
    const res = answer.response;
    usage.calls++;
    if (answer.cached) usage.cacheHits++;
    usage.inputTokens += res.usage.inputTokens;
    usage.outputTokens += res.usage.outputTokens;
    if (policy.price) usage.costUsd += costUsd(res.usage, policy.price);
    messages.push({ role: "assistant", content: res.text, ...(res.toolCalls?.length ? { toolCalls: res.toolCalls } : {}) });
    if (stopMatch?.test(res.text)) {
      stopReason = "stop_match";
      break;
    }
    if (res.toolCalls?.length) {
      const limit = harness.stop.max_tool_calls;
      if (limit !== undefined && toolCalls.length + res.toolCalls.length > limit) {
        stopReason = "max_tool_calls";
        break;
      }
      for (const call of res.toolCalls) {
        signal.throwIfAborted();
        const rec = await executeToolCall(call, harness.tools, hooks.tools ?? {}, ctx, harness.tool_timeout_ms);
        toolCalls.push(rec);
        messages.push({ role: "tool", toolCallId: call.id, content: rec.result });
      }
      continue;
    }
    if (hooks.envResponse) {
      const reply = normaliseReply(await hooks.envResponse({ ...ctx, messages, turn: turns, text: res.text }));
      if (reply.done) {
        stopReason = "env_done";
        if (reply.message !== undefined) messages.push({ role: "user", content: reply.message });
        break;
      }
      messages.push({ role: "user", content: reply.message ?? "" });
      continue;
    }
    if (res.finishReason === "length") {
      stopReason = "length";
      break;
    }
    if (harness.stop.on_final_answer) {
      stopReason = "final_answer";
      break;
    }
    messages.push({ role: "user", content: "Continue." });
  }
  signal.throwIfAborted();

  const response = lastAssistantText(messages);
  const extras = hooks.finalize ? await hooks.finalize({ ...ctx, messages, response, stopReason }) : {};
  const sample: Sample = {
    ...task.inputs,
    ...(task.answer !== undefined ? { answer: task.answer } : {}),
    response,
    transcript: renderTranscript(messages),
    turns,
    // With each call's result, so a `tool_calls` check can test that the answer uses it (answer_uses).
    tool_calls: toolCalls.map((c) => ({ name: c.name, arguments: c.arguments, result: c.result, error: c.error ?? null })),
    stop_reason: stopReason,
    ...extras,
    id: task.id,
    ...(task.criteria ? { criteria: task.criteria } : {}),
  };
  const scored: ScoreResult = error
    ? { reward: null, verdicts: [], errors: [{ criterion: "*", ...error }], feedback: `the policy could not be called: ${error.message}`, usage: emptyUsage() }
    : await scoreSample(env.rubric, sample, { judge: options.judge, signal, errors: options.errors });
  return {
    env: env.id,
    model: policy.id,
    task: task.id,
    rollout: index,
    ...(system === undefined ? {} : { system }),
    ...(harness.tools.length ? { tools: harness.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters })) } : {}),
    messages,
    toolCalls,
    response,
    turns,
    stopReason,
    ...(error ? { error } : {}),
    reward: scored.reward,
    passed: scored.passed ?? null,
    verdicts: scored.verdicts,
    errors: scored.errors,
    feedback: scored.feedback,
    usage: { policy: usage, judge: scored.usage ?? emptyUsage() },
    ms: Date.now() - started,
  };
}

function definedParams(policy: Policy): Partial<CompletionRequest> {
  const p = policy.params;
  const out: Partial<CompletionRequest> = {};
  if (p.temperature !== undefined) out.temperature = p.temperature;
  if (p.topP !== undefined) out.topP = p.topP;
  if (p.maxTokens !== undefined) out.maxTokens = p.maxTokens;
  if (p.seed !== undefined) out.seed = p.seed;
  return out;
}

function normaliseReply(reply: EnvReply): { message?: string; done: boolean } {
  if (reply === null || reply === undefined) return { done: true };
  if (typeof reply === "string") return { message: reply, done: false };
  if (typeof reply !== "object") throw new RubricateError("BAD_INPUT", `envResponse returned ${JSON.stringify(reply)}; expected a string, { message, done } or null`);
  return { message: reply.message, done: reply.done ?? reply.message === undefined };
}

const text = (m: ChatMessage) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text).join(""));

/** The last non-empty assistant text of a conversation (the policy's answer). */
export function lastAssistantText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === "assistant" && text(messages[i]).trim() !== "") return text(messages[i]);
  return "";
}

/**
 * A conversation as plain text for judges and reports: one block per message, tool calls and
 * results labelled.
 */
export function renderTranscript(messages: ChatMessage[]): string {
  return messages
    .map((m) => {
      if (m.role === "tool") return `[tool result ${m.toolCallId ?? ""}]\n${text(m)}`;
      const calls = (m.toolCalls ?? []).map((c) => `[tool call ${c.id}: ${c.name}(${c.arguments})]`).join("\n");
      return `[${m.role}]\n${[text(m), calls].filter(Boolean).join("\n")}`;
    })
    .join("\n\n");
}
