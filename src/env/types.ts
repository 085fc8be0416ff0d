import type { ErrorCode } from "../errors.js";
import type { ToolSpec } from "../providers/types.js";
import type { CheckFunction } from "../checks/types.js";
import type { ChatMessage, ToolCall } from "../providers/types.js";
import type { Rubric } from "../rubric/schema.js";
import type { ScoreResult, Usage } from "../types.js";
import type { Sandbox } from "../sandbox/types.js";
import type { Harness, PolicyDefaults, SandboxConfig } from "./schema.js";

/** One task of a dataset, normalised: an id (given, or the line number), inputs, reference, extra criteria. */
export interface Task {
  id: string;
  inputs: Record<string, unknown>;
  answer?: unknown;
  criteria?: unknown[];
  /** Files written into this task's sandbox before it starts. */
  files?: Record<string, string>;
  /** Commands run in this task's sandbox before it starts. */
  setup?: string[];
  /** A task a client sent (a session's or rollout's `task`): its criteria's regexes run in linear time only. */
  fromClient?: boolean;
}

/** `sandbox:` of an environment file, with `{ from }` files read. */
export type ResolvedSandboxConfig = Omit<SandboxConfig, "files"> & { files: Record<string, string> };

/** A model call from a hook (a simulated user, a grader): a prompt, or a system prompt and messages. */
export interface HookLlmRequest {
  /** A name under the environment's `models:` (default: the first one, else the policy). */
  model?: string;
  system?: string;
  prompt?: string;
  messages?: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
}

/** `ctx.llm`: calls a model through the eval's engine (cache, scheduler, rate limits); usage counts to the rollout. */
export type HookLlm = (request: string | HookLlmRequest) => Promise<string>;

/** `ctx.judge`: asks the eval's judge one yes/no question about a sample (default: the task's inputs); usage counts to the rollout. */
export type HookJudge = (question: string, sample?: Record<string, unknown>) => Promise<boolean>;

/** What every hook sees: the task, this rollout's own state, the env's `config` and folder. */
export interface HookContext<State = unknown> {
  task: Task;
  /** Whatever `setup` returned for this rollout (fresh per rollout: tools may mutate it). */
  state: State;
  config: Record<string, unknown>;
  /** The environment file's folder, to resolve files shipped beside it. */
  envDir: string;
  signal: AbortSignal;
  /** This rollout's sandbox, when the environment declares `sandbox:`. */
  sandbox?: Sandbox;
  /** A model through the engine (see HookLlm); throws NO_MODEL-style errors when the eval has none. */
  llm: HookLlm;
  /** The eval's judge (see HookJudge). */
  judge: HookJudge;
}

/** A tool implementation: parsed, schema-checked arguments in, any JSON-able value (or text) out. Throwing shows the error to the model. */
export type ToolImpl<State = any> = (args: any, ctx: HookContext<State>) => unknown;

/** What `envResponse` returns: the next user message, `{ done: true }` to end, or null/undefined to end. */
export type EnvReply = string | { message?: string; done?: boolean } | null | undefined;

/** What `envResponse` sees: the hook context, the conversation so far, the turn number and the last assistant text. */
export interface EnvResponseContext<State = unknown> extends HookContext<State> {
  messages: ChatMessage[];
  /** Policy calls made so far (1 after the first answer). */
  turn: number;
  text: string;
}

/** What `finalize` sees at the end of a rollout. */
export interface FinalizeContext<State = unknown> extends HookContext<State> {
  messages: ChatMessage[];
  response: string;
  stopReason: StopReason;
}

/**
 * The TypeScript side of an environment, exported by the module its YAML names in `hooks:`.
 * @example export const tools = { search: ({ query }) => find(query) }; export const envResponse = ({ text }) => feedback(text);
 */
export interface EnvHooks<State = any> {
  /** Implementations of the tools the YAML declares, by name. */
  tools?: Record<string, ToolImpl<State>>;
  /** Answers each assistant message that calls no tool (multi-turn games, simulated users). */
  envResponse?: (ctx: EnvResponseContext<State>) => EnvReply | Promise<EnvReply>;
  /** Fresh state for one rollout (a game, a mock database). */
  setup?: (ctx: Omit<HookContext<never>, "state">) => State | Promise<State>;
  /** Extra sample fields for the rubric (e.g. the database's end state), merged over the defaults. */
  finalize?: (ctx: FinalizeContext<State>) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Runs when the rollout ends — after success, an error, a timeout or Ctrl-C — before the sandbox is destroyed. Its own failure is recorded, never thrown. */
  teardown?: (ctx: HookContext<State>) => void | Promise<void>;
  /** Custom checks the rubric names with `check: { custom: name }`; this environment's rollouts score with them (nothing process-wide). */
  checks?: Record<string, CheckFunction>;
}

/** A loaded environment: tasks read, rubric loaded, hooks imported and matched to declared tools. */
export interface Environment {
  id: string;
  version: number | string;
  description?: string;
  /** The YAML file it came from. */
  source?: string;
  dir: string;
  tasks: Task[];
  harness: Harness;
  rubric: Rubric;
  hooks: EnvHooks;
  policy: PolicyDefaults;
  config: Record<string, unknown>;
  /** A sandbox per rollout with terminal tools and final-state checks. */
  sandbox?: ResolvedSandboxConfig;
  /** Models the hooks call (`ctx.llm`): name -> provider:model spec or policy config file. */
  models?: Record<string, string>;
  /** The package it came from (`rubricate eval <name@version>`); its version is then `version`. */
  package?: EnvPackage;
}

/** An environment package as installed: stamped into every rollout, summary and report. */
export interface EnvPackage {
  name: string;
  version: string;
  /** The registry tarball's hash (`sha512-…`), when npm installed it. */
  integrity?: string;
  /** Where npm fetched it from (a tarball URL, or a git URL with its commit). */
  resolved?: string;
}

/** Why a rollout ended. */
export type StopReason = "final_answer" | "env_done" | "max_turns" | "max_tool_calls" | "stop_match" | "policy_error" | "length" | "submitted" | "error" | "timeout";

/** One executed tool call and what the model was shown. */
export interface ToolCallRecord extends ToolCall {
  /** The text returned to the model as the tool result. */
  result: string;
  /** Set when the call failed; the model saw `result`, which explains it. */
  error?: "bad_arguments" | "unknown_tool" | "tool_error" | "timeout";
  ms: number;
}

/** Token use of a rollout's policy calls. */
export interface PolicyUsage {
  calls: number;
  /** Calls served from the cache (nothing paid this time). */
  cacheHits: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** One rollout, as written to the rollouts JSONL (one line each). */
export interface RolloutRecord {
  env: string;
  /** The environment's version: its package's, else the YAML's `version:`. */
  envVersion?: string;
  /** The package the environment came from: name, version, integrity. */
  envPackage?: EnvPackage;
  model: string;
  task: string;
  rollout: number;
  /** The system prompt the policy saw, so the rollout can be exported as training data as it was played. */
  system?: string;
  /** The tools the policy was offered. */
  tools?: ToolSpec[];
  messages: ChatMessage[];
  toolCalls: ToolCallRecord[];
  response: string;
  turns: number;
  stopReason: StopReason;
  /**
   * Set when the rollout has no result (reward null; `--resume` plays it again): the policy could
   * not be called (after retries), a hook or the sandbox failed, or the time limit ended a model
   * call or a hook.
   */
  error?: { code: ErrorCode; message: string };
  /**
   * Set when the agent made its own scoring impossible and is scored 0 for it: the time limit
   * ended its tool call or the final-state checks on its work, or came after its own actions took
   * half of it or more (`ROLLOUT_TIMEOUT`), or its work folder was too large to check (`SANDBOX`).
   * A result: `--resume` keeps it.
   */
  forfeit?: { code: ErrorCode; message: string };
  reward: number | null;
  passed: boolean | null;
  verdicts: ScoreResult["verdicts"];
  errors: ScoreResult["errors"];
  feedback: string;
  usage: { policy: PolicyUsage; judge: Usage; hooks?: PolicyUsage };
  /**
   * The sample fields the record does not hold elsewhere: the task's inputs, answer, id and
   * criteria, and what the rollout produced (`finalize`'s fields, the sandbox's final-state
   * checks, the submitted answer). With it, `score` and `distill --rescore` rebuild the sample
   * the rubric saw (response, transcript, turns, tool_calls and stop_reason come from the record).
   */
  sample?: Record<string, unknown>;
  /** Set when `teardown` failed (the rollout's result stands). */
  teardownError?: { code: ErrorCode; message: string };
  ms: number;
}
