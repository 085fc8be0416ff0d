import { verdictBudgets } from "../checks/regex.js";
import type { Engine } from "../engine/engine.js";
import { RubricateError, toRubricateError, type ErrorCode } from "../errors.js";
import type { Judge } from "../judge/types.js";
import type { ChatMessage, ToolCall } from "../providers/types.js";
import { createSandbox, type Sandbox, type SandboxBind, type SandboxLimits, type SandboxOptions } from "../sandbox/index.js";
import { startHostBridge, startPythonRepl, type PythonRepl } from "../sandbox/repl/index.js";
import { renderTemplate } from "../text/template.js";
import { episodeCalls, type EpisodeCalls, type EpisodeWorld } from "./episode-calls.js";
import { runFinalStateChecks } from "./final-state.js";
import { callHook, newHookScope, releaseHookScope, type HookScope } from "./isolation.js";
import { EpisodePhase } from "./phase.js";
import type { Policy } from "./policy.js";
import { describeExec, terminalToolImpls, type TerminalState, type TerminalToolName } from "./terminal.js";
import { executeToolCall } from "./tools.js";
import type { EnvReply, Environment, HookContext, PolicyUsage, ResolvedSandboxConfig, StopReason, Task, ToolCallRecord, ToolImpl } from "./types.js";

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
  /**
   * The agent's own action running now ("the bash tool call", "the final-state checks"), or
   * undefined while a model call, a hook or a sandbox start runs (or nothing does): a rollout's
   * time limit that ends the agent's action is its forfeit, scored 0; one that ends the harness's
   * work, an error, unless the agent's own actions took half of the limit (`agentTimeMs`, phase.ts `stallOf`).
   */
  agentAction(): string | undefined;
  /** Milliseconds the agent's own actions have taken so far (model calls they made not counted). */
  agentTimeMs(): number;
  /** The sample fields the episode adds: `finalize`'s, the final-state checks', the submitted answer. */
  finish(messages: ChatMessage[], response: string, stopReason: StopReason): Promise<Record<string, unknown>>;
  /** Model use of the hooks and the REPL so far. */
  usage(): PolicyUsage;
  /** Runs `teardown`, stops the REPL, destroys the sandbox, clears hook timers. Never throws; safe to call twice. */
  close(): Promise<EpisodeClosed>;
}

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
  const scope: HookScope = newHookScope(task.id);
  const hookTimeout = env.harness.hook_timeout_ms;
  const terminal: TerminalState = {};
  const world: EpisodeWorld = {};
  const phase = new EpisodePhase();
  const calls = episodeCalls({ env, task, engine: options.engine, judge: options.judge, policy: options.policy, models: options.models, index: options.index ?? 0, signal, phase }, world);
  let repl: Promise<PythonRepl> | undefined;
  let closed: Promise<EpisodeClosed> | undefined;
  let ctx: HookContext | undefined;

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
      await world.sandbox?.destroy().catch(() => undefined);
      await world.bridge?.close().catch(() => undefined);
      releaseHookScope(scope);
      return out;
    })());

  /** A sandbox as the environment asks for: the agent's, and the fresh one its final-state checks run in. */
  const openSandbox = (binds: SandboxBind[] = [], extra: Pick<SandboxOptions, "guardChecker"> = {}) =>
    createSandbox({
      ...extra,
      backend: options.unsafeNoSandbox ? "unsafe-host" : env.sandbox!.backend,
      unsafe: options.unsafeNoSandbox,
      network: env.sandbox!.network,
      limits: sandboxLimitsOf(env.sandbox!),
      ...(env.sandbox!.image ? { image: env.sandbox!.image } : {}),
      ...(binds.length ? { binds } : {}),
    });

  try {
    if (env.sandbox) await prepareSandbox(env.sandbox, task, world, calls.onHostCall, openSandbox, signal);
    const base = { task, config: env.config, envDir: env.dir, signal, ...(world.sandbox ? { sandbox: world.sandbox } : {}), llm: calls.llm, judge: calls.judge };
    // Set before setup runs, so teardown runs (with state undefined) even when setup fails.
    ctx = { ...base, state: undefined };
    if (env.hooks.setup) ctx.state = await callHook(scope, "setup", () => env.hooks.setup!(base), { timeoutMs: hookTimeout, signal });
  } catch (e) {
    await close();
    throw e;
  }

  const box = world.sandbox;
  const bridge = world.bridge;
  const replConfig = env.sandbox?.repl;
  const startRepl = () =>
    (repl ??= startPythonRepl(box!, {
      ...(replConfig?.context_file ? { contextFile: renderTemplate(replConfig.context_file, task.inputs) } : {}),
      ...(bridge ? { bridge } : {}),
    }));
  // Starting the REPL is the harness's work, though the agent's first python call asks for it.
  const replOnCall = replConfig ? () => phase.harness(startRepl) : undefined;
  const builtins: Record<string, ToolImpl> = box && env.sandbox ? terminalToolImpls(env.sandbox.tools as TerminalToolName[], box, terminal, replOnCall, replConfig?.cell_timeout_ms) : {};
  // Hook tools run in the rollout's scope, so a process.exit or a stray timer in them is caught;
  // and end with the rollout, also a handler that does not follow its signal.
  const hookTools: Record<string, ToolImpl> = Object.fromEntries(
    Object.entries(env.hooks.tools ?? {}).map(([name, impl]) => [name, (args: unknown, c: HookContext) => callHook(scope, `tool ${name}`, () => impl(args, c), { timeoutMs: env.harness.tool_timeout_ms * 2, signal })]),
  );
  const impls = { ...hookTools, ...builtins };
  // One regex budget for all the rollout's tool calls: arguments built to make a parameter's
  // pattern costly spend it once, not a verdict's worth of worker CPU again on every call.
  const regexBudgets = verdictBudgets();

  return {
    env,
    task,
    ctx,
    ...(box ? { sandbox: box } : {}),
    runTool: (call) => phase.agent(toolAction(env, call), () => executeToolCall(call, env.harness.tools, impls, ctx, env.harness.tool_timeout_ms, regexBudgets)),
    async respond(messages, turn, text) {
      if (!env.hooks.envResponse) return undefined;
      return normaliseReply(await callHook(scope, "envResponse", () => env.hooks.envResponse!({ ...ctx, messages, turn, text }), { timeoutMs: hookTimeout, signal }));
    },
    submitted: () => terminal.submitted,
    fault: () => scope.fault,
    agentAction: () => phase.agentAction(),
    agentTimeMs: () => phase.agentTimeMs(),
    async finish(messages, response, stopReason) {
      const extras = env.hooks.finalize ? await callHook(scope, "finalize", () => env.hooks.finalize!({ ...ctx, messages, response, stopReason }), { timeoutMs: hookTimeout, signal }) : {};
      const probes = await phase.agent("the final-state checks", async () => {
        // The agent is gone before its work is judged. Its REPL (and all it started) outlived every
        // bash command: while the work folder was archived it could lock /work again or hold every
        // process the limit allows, so the archive failed and the rollout was an error, not its 0.
        if (repl) await repl.then((r) => r.close()).catch(() => undefined);
        if (!box || !env.sandbox) return {};
        // The checker's sandbox is the harness's to open; what runs in it reads what the agent left.
        return runFinalStateChecks({ agent: box, open: (checker) => phase.harness(() => openSandbox([], checker)), checks: env.sandbox.state, inputs: task.inputs, submitted: terminal.submitted, signal });
      });
      return { ...(terminal.submitted !== undefined ? { submitted: terminal.submitted } : {}), ...probes, ...extras };
    },
    usage: calls.usage,
    close,
  };
}

/**
 * Makes the episode's sandbox as the environment asks: the REPL bridge (when the REPL may call
 * models), the sandbox itself, the environment's and the task's files, then their setup commands.
 */
async function prepareSandbox(config: ResolvedSandboxConfig, task: Task, world: EpisodeWorld, onHostCall: EpisodeCalls["onHostCall"], open: (binds: SandboxBind[]) => Promise<Sandbox>, signal: AbortSignal): Promise<void> {
  if (config.repl) world.bridge = await startHostBridge(onHostCall);
  const sandbox = (world.sandbox = await open(world.bridge ? [world.bridge.bind] : []));
  world.bridge?.grant(sandbox.user);
  for (const [path, content] of Object.entries({ ...config.files, ...task.files })) await sandbox.writeFile(renderTemplate(path, task.inputs), content);
  for (const command of [...config.setup, ...(task.setup ?? [])]) {
    signal.throwIfAborted();
    const cmd = renderTemplate(command, task.inputs);
    const r = await sandbox.exec(cmd, { signal });
    if (r.exitCode !== 0) throw new RubricateError("SANDBOX", `setup command of task "${task.id}" failed: ${cmd}\n${describeExec(r, sandbox.limits.commandTimeoutMs)}`);
  }
}

/** A tool call as the record names it: a declared tool by its name, anything else the policy wrote by none. */
function toolAction(env: Environment, call: ToolCall): string {
  return env.harness.tools.some((t) => t.name === call.name) ? `the ${call.name} tool call` : "a tool call";
}

function normaliseReply(reply: EnvReply): { message?: string; done: boolean } {
  if (reply === null || reply === undefined) return { done: true };
  if (typeof reply === "string") return { message: reply, done: false };
  if (typeof reply !== "object") throw new RubricateError("HOOK_FAILED", `envResponse returned ${JSON.stringify(reply)}; expected a string, { message, done } or null`);
  return { message: reply.message, done: reply.done ?? reply.message === undefined };
}
