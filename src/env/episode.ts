import type { Engine } from "../engine/engine.js";
import { costUsd } from "../engine/usage.js";
import { RubricateError, toRubricateError, type ErrorCode } from "../errors.js";
import type { Judge } from "../judge/types.js";
import type { ChatMessage, CompletionRequest, CompletionResponse, ToolCall, ToolSpec } from "../providers/types.js";
import { createSandbox, type Sandbox, type SandboxBind, type SandboxLimits } from "../sandbox/index.js";
import { runFinalStateChecks } from "./final-state.js";
import { startHostBridge, startPythonRepl, type HostAnswer, type HostBridge, type HostCall, type PythonRepl } from "../sandbox/repl/index.js";
import { renderTemplate } from "../text/template.js";
import { callHook, newHookScope, outsideHooks, releaseHookScope, type HookScope } from "./isolation.js";
import { policySchedulerId, type Policy } from "./policy.js";
import { describeCell, describeExec, TERMINAL_TOOLS, terminalToolImpls, type TerminalState, type TerminalToolName } from "./terminal.js";
import { executeToolCall } from "./tools.js";
import type { EnvReply, Environment, HookContext, HookLlmRequest, PolicyUsage, ResolvedSandboxConfig, StopReason, Task, ToolCallRecord, ToolImpl } from "./types.js";

/** Options of `openEpisode`. */
export interface EpisodeOptions {
  /** Model calls of the hooks (`ctx.llm`, `llm_query`) go through it: cache, schedulers, rate limits. */
  engine: Engine;
  /** Answers `ctx.judge`. */
  judge?: Judge;
  /** The policy playing: the default model of `ctx.llm` when the environment names none. */
  policy?: Policy;
  /** The environment's `models:` resolved to policies (by name). */
  models?: Record<string, Policy>;
  /** Which rollout of the task this is (part of the hook calls' cache keys). */
  index?: number;
  signal?: AbortSignal;
  /** Run sandbox commands on the host (`--unsafe-no-sandbox`): no isolation at all. */
  unsafeNoSandbox?: boolean;
}

/** What `close` reports: the teardown's own failure, which never replaces the rollout's result. */
export interface EpisodeClosed {
  teardownError?: { code: ErrorCode; message: string };
}

/**
 * One task being played, apart from any policy loop: made by `openEpisode`, stepped with
 * `runTool` and `respond`, read with `finish`, and always ended with `close`. The eval's
 * rollout drives it; an HTTP session can drive it the same way.
 */
export interface Episode {
  readonly env: Environment;
  readonly task: Task;
  readonly ctx: HookContext;
  readonly sandbox?: Sandbox;
  /** Runs one tool call of the policy (built-in terminal tools and the hooks' tools). Never throws for the tool's failure. */
  runTool(call: ToolCall): Promise<ToolCallRecord>;
  /** The environment's answer to an assistant message with no tool call (`envResponse`), or undefined without that hook. */
  respond(messages: ChatMessage[], turn: number, text: string): Promise<{ message?: string; done: boolean } | undefined>;
  /** The answer the policy submitted with the `submit` tool, once it has. */
  submitted(): string | undefined;
  /** A failure that escaped a hook since the last step (a timer that threw, process.exit in a callback). */
  fault(): RubricateError | undefined;
  /** The sample fields the episode adds: `finalize`'s, the final-state checks', the submitted answer. */
  finish(messages: ChatMessage[], response: string, stopReason: StopReason): Promise<Record<string, unknown>>;
  /** Model use of the hooks and the REPL so far. */
  usage(): PolicyUsage;
  /** Runs `teardown`, stops the REPL, destroys the sandbox, clears hook timers. Never throws; safe to call twice. */
  close(): Promise<EpisodeClosed>;
}

/** What a sub-RLM (started by `rlm_query`) is told. */
export const SUB_RLM_SYSTEM =
  "You answer a question about a text you cannot read directly: it is the string variable `context` of a Python REPL. Use the python tool to search it and print small pieces; llm_query(prompt) may ask a helper model. When you know the answer, reply with it in plain text (no tool call).";
const PYTHON_TOOL: ToolSpec = { name: "python", description: TERMINAL_TOOLS.python.description, parameters: TERMINAL_TOOLS.python.parameters };

const emptyPolicyUsage = (): PolicyUsage => ({ calls: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });

/** The sandbox limits of an environment file, in the runtime's units. */
export function sandboxLimitsOf(config: ResolvedSandboxConfig): Partial<SandboxLimits> {
  const l = config.limits;
  const mb = (v: number | undefined) => (v === undefined ? undefined : Math.round(v * 1024 * 1024));
  return {
    cpuSeconds: l.cpu_seconds,
    memoryBytes: mb(l.memory_mb),
    processes: l.processes,
    fileBytes: mb(l.file_size_mb),
    diskBytes: mb(l.disk_mb),
    openFiles: l.open_files,
    outputBytes: l.output_kb === undefined ? undefined : Math.round(l.output_kb * 1024),
    commandTimeoutMs: l.command_timeout_ms,
  };
}

/**
 * Starts one task: its sandbox (files written, setup commands run), the REPL bridge, and the
 * `setup` hook. A failure here cleans up what was made and throws (SANDBOX or HOOK_FAILED).
 * Outside `runEval`, call `installHookGuard()` while episodes run (and its returned function
 * after), so a hook's `process.exit` or stray throw fails its episode instead of the process.
 * @example const ep = await openEpisode(env, env.tasks[0], { engine }); try { await ep.runTool(call) } finally { await ep.close() }
 */
export async function openEpisode(env: Environment, task: Task, options: EpisodeOptions): Promise<Episode> {
  const signal = options.signal ?? new AbortController().signal;
  const index = options.index ?? 0;
  const scope: HookScope = newHookScope(task.id);
  const usage = emptyPolicyUsage();
  const hookTimeout = env.harness.hook_timeout_ms;
  const terminal: TerminalState = {};
  let sandbox: Sandbox | undefined;
  let bridge: HostBridge | undefined;
  let repl: Promise<PythonRepl> | undefined;
  let llmCalls = 0;
  let replCalls = 0;
  let closed: Promise<EpisodeClosed> | undefined;
  let ctx: HookContext | undefined;

  const modelFor = (name?: string): Policy => {
    const models = options.models ?? {};
    if (name !== undefined) {
      const found = models[name];
      if (!found) throw new RubricateError("BAD_INPUT", `no model named "${name}" (the environment's models: ${Object.keys(models).join(", ") || "none"})`);
      return found;
    }
    const first = Object.values(models)[0] ?? options.policy;
    if (!first) throw new RubricateError("BAD_INPUT", "ctx.llm has no model: name one under the environment's `models:`");
    return first;
  };

  /** A model call for a hook or the REPL: through the engine, outside the hook's scope (its timers are the engine's). */
  const complete = (request: HookLlmRequest & { tools?: ToolSpec[] }, purpose: string, n: number | string): Promise<CompletionResponse> =>
    outsideHooks(async () => {
      const model = modelFor(request.model);
      const scheduler = policySchedulerId(model);
      options.engine.schedulerFor(scheduler, model.limits);
      const messages: ChatMessage[] = request.messages ?? [{ role: "user", content: request.prompt ?? "" }];
      const temperature = request.temperature ?? model.params.temperature;
      const maxTokens = request.maxTokens ?? model.params.maxTokens;
      const req: CompletionRequest = {
        model: model.model,
        ...(request.system !== undefined ? { system: request.system } : {}),
        messages,
        ...(request.tools?.length ? { tools: request.tools } : {}),
        ...(temperature !== undefined ? { temperature } : {}),
        ...(maxTokens !== undefined ? { maxTokens } : {}),
      };
      // The model's cache rule holds for hook calls too: a trainer's live policy ("off") is never replayed, a versioned one per version.
      const version = typeof model.cache === "object" ? { policyVersion: model.cache.version } : {};
      const answer = await options.engine.complete(model.provider, req, { voteIndex: index, keyExtra: { env: env.id, task: task.id, hook: purpose, call: n, ...version }, noCache: model.cache === "off", scheduler, signal, price: model.price });
      usage.calls++;
      if (answer.cached) usage.cacheHits++;
      usage.inputTokens += answer.response.usage.inputTokens;
      usage.outputTokens += answer.response.usage.outputTokens;
      if (model.price) usage.costUsd += costUsd(answer.response.usage, model.price);
      return answer.response;
    });
  const callModel = async (request: HookLlmRequest, purpose: string, n: number | string) => (await complete(request, purpose, n)).text;

  const llm = (request: string | HookLlmRequest) => callModel(typeof request === "string" ? { prompt: request } : request, "llm", ++llmCalls);

  const judge = (question: string, sample: Record<string, unknown> = task.inputs): Promise<boolean> =>
    outsideHooks(async () => {
      if (!options.judge) throw new RubricateError("NO_JUDGE", "ctx.judge needs a judge (--judge)");
      const answer = await options.judge.answer({ rubric: { id: `${env.id}:hook`, inputs: Object.keys(sample) }, sample, questions: [{ id: "hook", question }] }, { signal });
      usage.inputTokens += answer.usage.inputTokens;
      usage.outputTokens += answer.usage.outputTokens;
      usage.costUsd += answer.usage.costUsd ?? 0;
      usage.calls++;
      const verdict = answer.verdicts.get("hook");
      if (!verdict) throw new RubricateError("JUDGE_PARSE", "the judge gave no answer");
      if (verdict instanceof RubricateError) throw verdict;
      return verdict.pass;
    });

  /**
   * `llm_query` / `rlm_query` from inside a REPL at `depth` - 1: the depth, the call budget and the
   * prompt size are checked here, on the host.
   */
  const onHostCall = async (call: HostCall, depth: number): Promise<HostAnswer> => {
    const repl = env.sandbox?.repl;
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

  /** `rlm_query`: a sub-model with a REPL of its own over `context`, at `depth`, until it answers in text. */
  const subRlm = async (call: HostCall & { context: string }, depth: number, n: number): Promise<string> => {
    const repl = env.sandbox!.repl!;
    const box = sandbox!;
    const file = `${box.workdir}/.rlm/context-${n}.txt`;
    await box.writeFile(file, call.context);
    const child = await startPythonRepl(box, { contextFile: file, bridge, depth });
    try {
      const messages: ChatMessage[] = [{ role: "user", content: `${call.prompt}\n\n(The variable \`context\` of your REPL holds ${call.context.length} characters.)` }];
      for (let turn = 0; turn < repl.sub_max_turns; turn++) {
        const res = await complete({ model: call.model ?? repl.model, system: SUB_RLM_SYSTEM, messages, tools: [PYTHON_TOOL] }, "rlm_query", `${n}.${turn}`);
        messages.push({ role: "assistant", content: res.text, ...(res.toolCalls?.length ? { toolCalls: res.toolCalls } : {}) });
        if (!res.toolCalls?.length) return res.text;
        for (const tc of res.toolCalls) {
          let code = "";
          try {
            code = String((JSON.parse(tc.arguments) as { code?: unknown }).code ?? "");
          } catch {
            code = "";
          }
          const result = code ? describeCell(await child.run(code, repl.cell_timeout_ms ? { timeoutMs: repl.cell_timeout_ms } : {}), box.limits.outputBytes) : "error: call python with {\"code\": \"...\"}";
          messages.push({ role: "tool", toolCallId: tc.id, content: result });
        }
      }
      throw new RubricateError("BAD_INPUT", `the sub-RLM gave no answer within ${repl.sub_max_turns} turns`);
    } finally {
      child.close();
    }
  };

  const close = (): Promise<EpisodeClosed> =>
    (closed ??= (async () => {
      const out: EpisodeClosed = {};
      if (env.hooks.teardown && ctx !== undefined) {
        try {
          // Teardown runs even after Ctrl-C: it gets a live signal of its own.
          const c = ctx;
          await callHook(scope, "teardown", () => env.hooks.teardown!(c), { timeoutMs: hookTimeout, evenAfterFault: true });
        } catch (e) {
          const err = toRubricateError(e);
          out.teardownError = { code: err.code, message: err.message };
        }
      }
      if (repl) await repl.then((r) => r.close()).catch(() => undefined);
      await sandbox?.destroy().catch(() => undefined);
      await bridge?.close().catch(() => undefined);
      releaseHookScope(scope);
      return out;
    })());

  /** A sandbox as the environment asks for: the agent's, and the fresh one its final-state checks run in. */
  const openSandbox = (binds: SandboxBind[] = []) =>
    createSandbox({
      backend: options.unsafeNoSandbox ? "unsafe-host" : env.sandbox!.backend,
      unsafe: options.unsafeNoSandbox,
      network: env.sandbox!.network,
      limits: sandboxLimitsOf(env.sandbox!),
      ...(env.sandbox!.image ? { image: env.sandbox!.image } : {}),
      ...(binds.length ? { binds } : {}),
    });

  try {
    const config = env.sandbox;
    if (config) {
      if (config.repl) bridge = await startHostBridge(onHostCall);
      sandbox = await openSandbox(bridge ? [bridge.bind] : []);
      bridge?.grant(sandbox.user);
      for (const [path, content] of Object.entries({ ...config.files, ...task.files })) await sandbox.writeFile(renderTemplate(path, task.inputs), content);
      for (const command of [...config.setup, ...(task.setup ?? [])]) {
        signal.throwIfAborted();
        const cmd = renderTemplate(command, task.inputs);
        const r = await sandbox.exec(cmd, { signal });
        if (r.exitCode !== 0) throw new RubricateError("SANDBOX", `setup command of task "${task.id}" failed: ${cmd}\n${describeExec(r, sandbox.limits.commandTimeoutMs)}`);
      }
    }
    const base = { task, config: env.config, envDir: env.dir, signal, ...(sandbox ? { sandbox } : {}), llm, judge };
    // Set before setup runs, so teardown runs (with state undefined) even when setup fails.
    ctx = { ...base, state: undefined };
    if (env.hooks.setup) ctx.state = await callHook(scope, "setup", () => env.hooks.setup!(base), { timeoutMs: hookTimeout, signal });
  } catch (e) {
    await close();
    throw e;
  }

  const box = sandbox;
  const replConfig = env.sandbox?.repl;
  const startRepl = () =>
    (repl ??= startPythonRepl(box!, {
      ...(replConfig?.context_file ? { contextFile: renderTemplate(replConfig.context_file, task.inputs) } : {}),
      ...(bridge ? { bridge } : {}),
    }));
  const builtins: Record<string, ToolImpl> = box && env.sandbox ? terminalToolImpls(env.sandbox.tools as TerminalToolName[], box, terminal, replConfig ? startRepl : undefined, replConfig?.cell_timeout_ms) : {};
  // Hook tools run in the rollout's scope, so a process.exit or a stray timer in them is caught.
  const hookTools: Record<string, ToolImpl> = Object.fromEntries(
    Object.entries(env.hooks.tools ?? {}).map(([name, impl]) => [name, (args: unknown, c: HookContext) => callHook(scope, `tool ${name}`, () => impl(args, c), { timeoutMs: env.harness.tool_timeout_ms * 2 })]),
  );
  const impls = { ...hookTools, ...builtins };

  return {
    env,
    task,
    ctx,
    ...(box ? { sandbox: box } : {}),
    runTool: (call) => executeToolCall(call, env.harness.tools, impls, ctx, env.harness.tool_timeout_ms),
    async respond(messages, turn, text) {
      if (!env.hooks.envResponse) return undefined;
      return normaliseReply(await callHook(scope, "envResponse", () => env.hooks.envResponse!({ ...ctx, messages, turn, text }), { timeoutMs: hookTimeout, signal }));
    },
    submitted: () => terminal.submitted,
    fault: () => scope.fault,
    async finish(messages, response, stopReason) {
      const extras = env.hooks.finalize ? await callHook(scope, "finalize", () => env.hooks.finalize!({ ...ctx, messages, response, stopReason }), { timeoutMs: hookTimeout, signal }) : {};
      const probes = box && env.sandbox ? await runFinalStateChecks({ agent: box, open: openSandbox, checks: env.sandbox.state, inputs: task.inputs, submitted: terminal.submitted, signal }) : {};
      return { ...(terminal.submitted !== undefined ? { submitted: terminal.submitted } : {}), ...probes, ...extras };
    },
    usage: () => ({ ...usage }),
    close,
  };
}

function normaliseReply(reply: EnvReply): { message?: string; done: boolean } {
  if (reply === null || reply === undefined) return { done: true };
  if (typeof reply === "string") return { message: reply, done: false };
  if (typeof reply !== "object") throw new RubricateError("HOOK_FAILED", `envResponse returned ${JSON.stringify(reply)}; expected a string, { message, done } or null`);
  return { message: reply.message, done: reply.done ?? reply.message === undefined };
}
