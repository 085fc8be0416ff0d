import type { ToolSpec } from "../providers/types.js";
import type { CheckFunction } from "../checks/types.js";
import type { ChatMessage, ToolCall } from "../providers/types.js";
import type { Rubric } from "../rubric/schema.js";
import type { ScoreResult, Usage } from "../types.js";
import type { Harness, PolicyDefaults } from "./schema.js";

/** One task of a dataset, normalised: an id (given, or the line number), inputs, reference, extra criteria. */
export interface Task {
  id: string;
  inputs: Record<string, unknown>;
  answer?: unknown;
  criteria?: unknown[];
}

/** What every hook sees: the task, this rollout's own state, the env's `config` and folder. */
export interface HookContext<State = unknown> {
  task: Task;
  /** Whatever `setup` returned for this rollout (fresh per rollout: tools may mutate it). */
  state: State;
  config: Record<string, unknown>;
  /** The environment file's folder, to resolve files shipped beside it. */
  envDir: string;
  signal: AbortSignal;
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
  setup?: (ctx: Omit<HookContext<never>, "state" | "signal">) => State | Promise<State>;
  /** Extra sample fields for the rubric (e.g. the database's end state), merged over the defaults. */
  finalize?: (ctx: FinalizeContext<State>) => Record<string, unknown> | Promise<Record<string, unknown>>;
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
}

/** Why a rollout ended. */
export type StopReason = "final_answer" | "env_done" | "max_turns" | "max_tool_calls" | "stop_match" | "policy_error" | "length";

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
  /** Set when the policy could not be called (after retries); the rollout then has no reward. */
  error?: { code: string; message: string };
  reward: number | null;
  passed: boolean | null;
  verdicts: ScoreResult["verdicts"];
  errors: ScoreResult["errors"];
  feedback: string;
  usage: { policy: PolicyUsage; judge: Usage };
  ms: number;
}
