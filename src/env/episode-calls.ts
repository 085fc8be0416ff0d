/**
 * The model calls an episode makes besides the policy's: `ctx.llm` and `ctx.judge` from hooks,
 * and `llm_query` / `rlm_query` from inside the REPL (with the sub-RLM's own agent loop). They go
 * through the engine (cache, schedulers, rate limits) and their usage is the engine's own count:
 * a call answered from the cache is a cache hit, never a paid call.
 */
import type { Engine } from "../engine/engine.js";
import { RubricateError, toRubricateError } from "../errors.js";
import type { Judge } from "../judge/types.js";
import type { ChatMessage, CompletionRequest, CompletionResponse, ToolSpec } from "../providers/types.js";
import type { Sandbox } from "../sandbox/index.js";
import { startPythonRepl, type HostAnswer, type HostBridge, type HostCall } from "../sandbox/repl/index.js";
import { outsideHooks } from "./isolation.js";
import type { EpisodePhase } from "./phase.js";
import { policySchedulerId, type Policy } from "./policy.js";
import { describeCell, TERMINAL_TOOLS } from "./terminal.js";
import type { Usage } from "../types.js";
import type { Environment, HookLlmRequest, PolicyUsage, Task } from "./types.js";

/** What a sub-RLM (started by `rlm_query`) is told. */
export const SUB_RLM_SYSTEM =
  "You answer a question about a text you cannot read directly: it is the string variable `context` of a Python REPL. Use the python tool to search it and print small pieces; llm_query(prompt) may ask a helper model. When you know the answer, reply with it in plain text (no tool call).";
const PYTHON_TOOL: ToolSpec = { name: "python", description: TERMINAL_TOOLS.python.description, parameters: TERMINAL_TOOLS.python.parameters };

export const emptyPolicyUsage = (): PolicyUsage => ({ calls: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });

/** Adds one engine or judge call's usage (paid or cached, as the engine classified it) to a policy usage. */
export function addPolicyUsage(into: PolicyUsage, call: Usage): void {
  into.calls += call.calls;
  into.cacheHits += call.cacheHits;
  into.inputTokens += call.inputTokens;
  into.outputTokens += call.outputTokens;
  into.costUsd += call.costUsd;
}

/** What the calls need of the episode. */
export interface EpisodeCallsOptions {
  env: Environment;
  task: Task;
  engine: Engine;
  judge?: Judge;
  /** The default model when the environment names none. */
  policy?: Policy;
  models?: Record<string, Policy>;
  /** The rollout's index (part of every call's cache key). */
  index: number;
  signal: AbortSignal;
  /** Marks every call the harness's time, also when the agent's tool call made it (see ./phase.ts). */
  phase: EpisodePhase;
}

/** The episode's sandbox and REPL bridge, set once they exist (the bridge is started with `onHostCall` before the sandbox). */
export interface EpisodeWorld {
  sandbox?: Sandbox;
  bridge?: HostBridge;
}

/** The hooks' and the REPL's model calls of one episode, and what they used. */
export interface EpisodeCalls {
  /** `ctx.llm`. */
  llm(request: string | HookLlmRequest): Promise<string>;
  /** `ctx.judge`: one yes/no question about `sample` (default: the task's inputs). */
  judge(question: string, sample?: Record<string, unknown>): Promise<boolean>;
  /** A REPL's `llm_query` / `rlm_query` at `depth`, checked against the environment's REPL limits. */
  onHostCall(call: HostCall, depth: number): Promise<HostAnswer>;
  usage(): PolicyUsage;
}

/** The model a hook names, else the first of the environment's models, else the policy playing. */
export function modelFor(models: Record<string, Policy>, fallback: Policy | undefined, name?: string): Policy {
  if (name !== undefined) {
    const found = models[name];
    if (!found) throw new RubricateError("BAD_INPUT", `no model named "${name}" (the environment's models: ${Object.keys(models).join(", ") || "none"})`);
    return found;
  }
  const first = Object.values(models)[0] ?? fallback;
  if (!first) throw new RubricateError("BAD_INPUT", "ctx.llm has no model: name one under the environment's `models:`");
  return first;
}

/** The request a hook's call sends: its messages (or prompt) with the model's default parameters. */
function completionRequest(model: Policy, request: HookLlmRequest & { tools?: ToolSpec[] }): CompletionRequest {
  const temperature = request.temperature ?? model.params.temperature;
  const maxTokens = request.maxTokens ?? model.params.maxTokens;
  return {
    model: model.model,
    ...(request.system !== undefined ? { system: request.system } : {}),
    messages: request.messages ?? [{ role: "user", content: request.prompt ?? "" }],
    ...(request.tools?.length ? { tools: request.tools } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
  };
}

/**
 * The model calls of one episode. `world` is read at call time: the REPL's calls need the
 * sandbox and bridge the episode makes after these calls exist.
 */
export function episodeCalls(o: EpisodeCallsOptions, world: EpisodeWorld): EpisodeCalls {
  const usage = emptyPolicyUsage();
  let llmCalls = 0;
  let replCalls = 0;

  /** A model call for a hook or the REPL: through the engine, outside the hook's scope (its timers are the engine's). */
  const complete = (request: HookLlmRequest & { tools?: ToolSpec[] }, purpose: string, n: number | string): Promise<CompletionResponse> =>
    outsideHooks(async () => {
      const model = modelFor(o.models ?? {}, o.policy, request.model);
      const scheduler = policySchedulerId(model);
      o.engine.schedulerFor(scheduler, model.limits);
      // The model's cache rule holds for hook calls too: a trainer's live policy ("off") is never replayed, a versioned one per version.
      const version = typeof model.cache === "object" ? { policyVersion: model.cache.version } : {};
      const answer = await o.engine.complete(model.provider, completionRequest(model, request), {
        voteIndex: o.index,
        keyExtra: { env: o.env.id, task: o.task.id, hook: purpose, call: n, ...version },
        noCache: model.cache === "off",
        scheduler,
        signal: o.signal,
        price: model.price,
      });
      addPolicyUsage(usage, answer.usage);
      return answer.response;
    });
  const callModel = async (request: HookLlmRequest, purpose: string, n: number | string) => (await complete(request, purpose, n)).text;

  const judge = (question: string, sample: Record<string, unknown> = o.task.inputs): Promise<boolean> =>
    outsideHooks(async () => {
      if (!o.judge) throw new RubricateError("NO_JUDGE", "ctx.judge needs a judge (--judge)");
      const answer = await o.judge.answer({ rubric: { id: `${o.env.id}:hook`, inputs: Object.keys(sample) }, sample, questions: [{ id: "hook", question }] }, { signal: o.signal });
      addPolicyUsage(usage, answer.usage);
      const verdict = answer.verdicts.get("hook");
      if (!verdict) throw new RubricateError("JUDGE_PARSE", "the judge gave no answer");
      if (verdict instanceof RubricateError) throw verdict;
      return verdict.pass;
    });

  /** `rlm_query`: a sub-model with a REPL of its own over `context`, at `depth`, until it answers in text. */
  const subRlm = async (call: HostCall & { context: string }, depth: number, n: number): Promise<string> => {
    const repl = o.env.sandbox!.repl!;
    const box = world.sandbox!;
    const file = `${box.workdir}/.rlm/context-${n}.txt`;
    await box.writeFile(file, call.context);
    const child = await startPythonRepl(box, { contextFile: file, bridge: world.bridge, depth });
    try {
      const messages: ChatMessage[] = [{ role: "user", content: `${call.prompt}\n\n(The variable \`context\` of your REPL holds ${call.context.length} characters.)` }];
      for (let turn = 0; turn < repl.sub_max_turns; turn++) {
        const res = await complete({ model: call.model ?? repl.model, system: SUB_RLM_SYSTEM, messages, tools: [PYTHON_TOOL] }, "rlm_query", `${n}.${turn}`);
        messages.push({ role: "assistant", content: res.text, ...(res.toolCalls?.length ? { toolCalls: res.toolCalls } : {}) });
        if (!res.toolCalls?.length) return res.text;
        for (const tc of res.toolCalls) {
          const code = pythonCode(tc.arguments);
          const result = code ? describeCell(await child.run(code, repl.cell_timeout_ms ? { timeoutMs: repl.cell_timeout_ms } : {}), box.limits.outputBytes) : 'error: call python with {"code": "..."}';
          messages.push({ role: "tool", toolCallId: tc.id, content: result });
        }
      }
      throw new RubricateError("BAD_INPUT", `the sub-RLM gave no answer within ${repl.sub_max_turns} turns`);
    } finally {
      child.close();
    }
  };

  const onHostCall = async (call: HostCall, depth: number): Promise<HostAnswer> => {
    const repl = o.env.sandbox?.repl;
    if (!repl) return { error: "llm_query is not enabled" };
    if (depth > repl.max_depth) return { error: `a call at depth ${depth} exceeds max_depth ${repl.max_depth}` };
    if (call.context !== undefined && depth >= repl.max_depth) return { error: `rlm_query at depth ${depth}: its REPL's own calls would exceed max_depth ${repl.max_depth}; use llm_query` };
    if (replCalls >= repl.max_calls) return { error: `llm_query budget spent: ${repl.max_calls} calls per rollout` };
    if (call.prompt.length > repl.max_prompt_chars) return { error: `prompt of ${call.prompt.length} characters; llm_query takes at most ${repl.max_prompt_chars}` };
    const n = ++replCalls;
    try {
      if (call.context !== undefined) return { text: await subRlm({ ...call, context: call.context }, depth, n) };
      return { text: await callModel({ prompt: call.prompt, model: call.model ?? repl.model }, "llm_query", n) };
    } catch (e) {
      return { error: toRubricateError(e).message };
    }
  };

  return {
    llm: (request) => o.phase.harness(() => callModel(typeof request === "string" ? { prompt: request } : request, "llm", ++llmCalls)),
    judge: (question, sample) => o.phase.harness(() => judge(question, sample)),
    onHostCall: (call, depth) => o.phase.harness(() => onHostCall(call, depth)),
    usage: () => ({ ...usage }),
  };
}

/** The `code` argument of a python tool call, or "" when the arguments are not JSON with one. */
function pythonCode(args: string): string {
  try {
    return String((JSON.parse(args) as { code?: unknown }).code ?? "");
  } catch {
    return "";
  }
}
