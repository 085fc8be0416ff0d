import type { Engine } from "../engine/engine.js";
import { scoreSample } from "../score/score.js";
import { RubricateError, toRubricateError } from "../errors.js";
import type { CompletionRequest } from "../providers/types.js";
import type { Judge } from "../judge/types.js";
import type { ErrorPolicy } from "../score/aggregate.js";
import { emptyUsage, type Sample, type ScoreResult, type Usage } from "../types.js";
import { addPolicyUsage } from "./episode-calls.js";
import { openEpisode, type Episode, type EpisodeClosed } from "./episode.js";
import { forfeitResult, isFinalStateForfeit } from "./final-state.js";
import { stallOf } from "./phase.js";
import { episodeSample, lastAssistantText } from "./sample.js";
import { openingOf, Session } from "./session.js";
import { policySchedulerId, type Policy } from "./policy.js";
import type { Environment, PolicyUsage, RolloutRecord, StopReason, Task, ToolCallRecord } from "./types.js";

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
  /** The environment's `models:` resolved (for `ctx.llm` and the REPL's `llm_query`). */
  models?: Record<string, Policy>;
  /** Run sandbox commands on the host (`--unsafe-no-sandbox`). */
  unsafeNoSandbox?: boolean;
}

export { policySchedulerId };
export { lastAssistantText, renderTranscript } from "./sample.js";

/**
 * Plays one task with a policy and scores the result: the policy answers, tools run, the
 * environment replies, until a stop condition; then the rubric scores the sample built from the
 * conversation. Policy calls are cached per (task, rollout index), so a re-run replays them free.
 * A hook that fails, a sandbox that cannot start and the rollout's own timeout end this rollout
 * with an `error` (reward null), never the eval; `teardown` and the sandbox's cleanup always run.
 * The timeout is the agent's `forfeit` (reward 0) instead when it fires during the agent's own
 * action, a tool call or the final-state checks, or after its actions took half of the limit or
 * more (phase.ts): a failing agent must not stall its way out of its 0.
 * @example const rec = await rollout(env, createPolicy("openai:gpt-4.1-mini"), env.tasks[0], { engine, judge }); rec.reward
 */
export async function rollout(env: Environment, policy: Policy, task: Task, options: RolloutOptions): Promise<RolloutRecord> {
  const started = Date.now();
  const index = options.index ?? 0;
  const outer = options.signal;
  const { harness } = env;
  // The rollout's own signal: the caller's (Ctrl-C) or the rollout's wall-clock limit.
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onOuterAbort();
  else outer?.addEventListener("abort", onOuterAbort, { once: true });
  let timedOut = false;
  const timeoutMessage = `task "${task.id}" ran longer than ${harness.rollout_timeout_ms} ms`;
  // What of the agent's the limit ended (stallOf), read when it fires: by the time the abort is caught, that action is over.
  let stalled: string | undefined;
  let episode: Episode | undefined;
  const timer =
    harness.rollout_timeout_ms === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          stalled = episode && stallOf(episode, harness.rollout_timeout_ms!);
          controller.abort(new RubricateError("ROLLOUT_TIMEOUT", timeoutMessage));
        }, harness.rollout_timeout_ms);
  const signal = controller.signal;
  // The conversation as it starts: what the record holds even when the episode cannot open.
  const opening = openingOf(env, task);
  const { system, tools: toolSpecs } = opening;
  const usage: PolicyUsage = { calls: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  const scheduler = policySchedulerId(policy);
  options.engine.schedulerFor(scheduler, policy.limits);

  let stopReason: StopReason = "max_turns";
  let error: RolloutRecord["error"];
  let session: Session | undefined;
  let extras: Record<string, unknown> = {};
  let forfeit: RubricateError | undefined;
  let closed: EpisodeClosed = {};
  try {
    episode = await openEpisode(env, task, { engine: options.engine, judge: options.judge, policy, models: options.models, index, signal, unsafeNoSandbox: options.unsafeNoSandbox });
    const ep = episode;
    const checkFault = () => {
      const fault = ep.fault();
      if (fault) throw fault;
    };
    // The turns go through a Session on this rollout's signal: one set of stop rules for evals and trainers.
    const s = (session = new Session(env, task, ep, { engine: options.engine, judge: options.judge, errors: options.errors }, controller));
    while (!s.done) {
      const request: CompletionRequest = {
        model: policy.model,
        ...(system === undefined ? {} : { system }),
        messages: [...s.shots, ...s.messages],
        ...(toolSpecs.length ? { tools: toolSpecs } : {}),
        ...definedParams(policy),
      };
      let answer;
      try {
        answer = await options.engine.complete(policy.provider, request, { voteIndex: index, keyExtra: policyKeyExtra(env, task, policy), noCache: policy.cache === "off", scheduler, signal, price: policy.price });
      } catch (e) {
        const err = toRubricateError(e);
        if (err.code === "ABORTED" || signal.aborted) throw err;
        error = { code: err.code, message: err.message };
        stopReason = "policy_error";
        break;
      }
      addPolicyUsage(usage, answer.usage);
      const res = answer.response;
      await s.step({ content: res.text, ...(res.toolCalls?.length ? { toolCalls: res.toolCalls } : {}), ...(res.finishReason ? { finishReason: res.finishReason } : {}) });
    }
    if (!error) stopReason = s.stopReason ?? "max_turns";
    signal.throwIfAborted();
    checkFault();
    if (!error) {
      extras = await ep.finish(s.messages, ep.submitted() ?? lastAssistantText(s.messages), stopReason);
      // A limit that fired during the final-state checks leaves them partial: not a result.
      signal.throwIfAborted();
      checkFault();
    }
  } catch (e) {
    const err = toRubricateError(e);
    if (outer?.aborted) {
      await episode?.close();
      clearTimeout(timer);
      outer.removeEventListener("abort", onOuterAbort);
      throw err.code === "ABORTED" ? err : new RubricateError("ABORTED", err.message, { cause: e });
    }
    if (!timedOut && isFinalStateForfeit(err)) forfeit = err;
    else if (timedOut) {
      // The agent's own stalling is its forfeit; the harness's slowness (a model call, a hook) is an error, run again by --resume.
      if (stalled !== undefined) forfeit = new RubricateError("ROLLOUT_TIMEOUT", `${timeoutMessage}: the limit ended ${stalled}`);
      else error = { code: "ROLLOUT_TIMEOUT", message: timeoutMessage };
      stopReason = "timeout";
    } else {
      error = { code: err.code, message: err.message };
      stopReason = "error";
    }
  } finally {
    clearTimeout(timer);
    if (episode) closed = await episode.close();
    outer?.removeEventListener("abort", onOuterAbort);
  }
  outer?.throwIfAborted();

  const messages = session?.messages ?? opening.messages;
  const toolCalls: ToolCallRecord[] = session?.toolCalls ?? [];
  const turns = session?.turns ?? 0;
  const submitted = episode?.submitted();
  const response = submitted ?? lastAssistantText(messages);
  const stored: Record<string, unknown> = {
    ...task.inputs,
    ...(task.answer !== undefined ? { answer: task.answer } : {}),
    ...extras,
    id: task.id,
    ...(task.criteria ? { criteria: task.criteria } : {}),
  };
  const sample: Sample = episodeSample(task, { messages, toolCalls, response, turns, stopReason }, extras);
  const scored: ScoreResult = forfeit
    ? { ...forfeitResult(env.rubric, forfeit), usage: emptyUsage() }
    : error
    ? { reward: null, verdicts: [], errors: [{ criterion: "*", ...error }], feedback: error.code === "PROVIDER_HTTP" || stopReason === "policy_error" ? `the policy could not be called: ${error.message}` : `the rollout failed: ${error.message}`, usage: emptyUsage() }
    : await scoreSample(env.rubric, sample, { judge: options.judge, signal: outer, errors: options.errors, checks: env.hooks.checks, clientCriteria: task.fromClient });
  const hookUsage = episode?.usage();
  return {
    env: env.id,
    envVersion: String(env.version),
    ...(env.package ? { envPackage: env.package } : {}),
    model: policy.id,
    task: task.id,
    rollout: index,
    ...(system === undefined ? {} : { system }),
    ...(toolSpecs.length ? { tools: toolSpecs } : {}),
    messages,
    toolCalls,
    response,
    turns,
    stopReason,
    ...(error ? { error } : {}),
    ...(forfeit ? { forfeit: { code: forfeit.code, message: forfeit.message } } : {}),
    reward: scored.reward,
    passed: scored.passed ?? null,
    verdicts: scored.verdicts,
    errors: scored.errors,
    feedback: scored.feedback,
    usage: { policy: usage, judge: scored.usage ?? emptyUsage(), ...(hookUsage && hookUsage.calls + hookUsage.cacheHits > 0 ? { hooks: hookUsage } : {}) },
    sample: stored,
    ...(closed.teardownError ? { teardownError: closed.teardownError } : {}),
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
  if (policy.extraBody) out.extraBody = policy.extraBody;
  return out;
}

/** The policy call's extra cache-key material: the task, plus the weights version when the policy names one. */
function policyKeyExtra(env: Environment, task: Task, policy: Policy): unknown {
  const version = typeof policy.cache === "object" ? policy.cache.version : undefined;
  return version === undefined ? { env: env.id, task: task.id } : { env: env.id, task: task.id, policyVersion: version };
}
