import { RubricateError } from "../errors.js";
import type { Judge } from "../judge/types.js";
import type { ChatMessage, ToolCall, ToolSpec } from "../providers/types.js";
import { scoreSample } from "../score/score.js";
import { renderTemplate } from "../text/template.js";
import { emptyUsage, type ErrorPolicy, type Sample, type ScoreResult } from "../types.js";
import { lastAssistantText, renderTranscript } from "./rollout.js";
import { executeToolCall } from "./tools.js";
import type { EnvReply, Environment, HookContext, StopReason, Task, ToolCallRecord } from "./types.js";

/** Options of `startEpisode`. */
export interface EpisodeOptions {
  /** Answers the rubric's LLM questions at `finish`; without one they are `NO_JUDGE` errors. */
  judge?: Judge;
  /** What a criterion error does to the reward (default "null"). */
  errors?: ErrorPolicy;
  /** Aborts tool calls, hooks and scoring in flight. */
  signal?: AbortSignal;
}

/** An assistant turn as the caller's policy produced it. */
export interface AssistantTurn {
  content: string;
  toolCalls?: ToolCall[];
  /** "length" when the policy ran out of tokens (ends the episode like a rollout). */
  finishReason?: string;
}

/** What the environment did with one assistant turn. */
export interface StepResult {
  /** The messages the environment added after the assistant's: tool results, or its reply. */
  messages: ChatMessage[];
  done: boolean;
  stopReason?: StopReason;
}

/** The score of a finished episode, with the sample the rubric saw (kept so stored episodes can be re-scored). */
export interface EpisodeScore extends ScoreResult {
  sample: Sample;
  stopReason: StopReason;
  turns: number;
}

/**
 * One task of an environment played turn by turn by a caller that owns the policy: a trainer
 * generating with its own weights, or the HTTP session API. The caller sends each assistant
 * turn; the episode runs the tools, asks `envResponse`, and applies the harness's stop rules
 * exactly as `rollout` does; `finish` builds the sample and scores it.
 * @example
 * const ep = await startEpisode(env, env.tasks[0], { judge });
 * const { messages, done } = await ep.step({ content: "CRANE" });
 * if (done) console.log((await ep.finish()).reward);
 */
export async function startEpisode(env: Environment, task: Task, options: EpisodeOptions = {}): Promise<Episode> {
  const base = { task, config: env.config, envDir: env.dir };
  const state = env.hooks.setup ? await env.hooks.setup(base) : undefined;
  // The episode's own signal: closing it stops its tools and scoring even when the caller's signal never fires.
  const controller = new AbortController();
  const outer = options.signal;
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", () => controller.abort(outer.reason), { once: true });
  return new Episode(env, task, { ...base, state, signal: controller.signal }, options, controller);
}

export class Episode {
  /** The rendered system prompt, if the harness has one. */
  readonly system?: string;
  /** The tools the policy is offered. */
  readonly tools: ToolSpec[];
  /** Few-shot turns shown before the task (not part of the transcript that is scored). */
  readonly shots: ChatMessage[];
  /** The conversation so far, starting with the task's first user message. */
  readonly messages: ChatMessage[];
  readonly toolCalls: ToolCallRecord[] = [];
  private turnCount = 0;
  private stop?: StopReason;
  private scored?: Promise<EpisodeScore>;
  private readonly stopMatch?: RegExp;

  constructor(
    readonly env: Environment,
    readonly task: Task,
    private readonly ctx: HookContext,
    private readonly options: EpisodeOptions,
    private readonly controller = new AbortController(),
  ) {
    const { harness } = env;
    this.system = harness.system === undefined ? undefined : renderTemplate(harness.system, task.inputs);
    this.tools = harness.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters }));
    this.shots = harness.few_shot.map((s) => ({ role: s.role, content: s.content }));
    this.messages = [{ role: "user", content: renderTemplate(harness.prompt, task.inputs) }];
    this.stopMatch = harness.stop.match === undefined ? undefined : new RegExp(harness.stop.match);
  }

  /** Assistant turns taken so far. */
  get turns(): number {
    return this.turnCount;
  }

  get done(): boolean {
    return this.stop !== undefined;
  }

  /** True once `close` ran. */
  get closed(): boolean {
    return this.controller.signal.aborted;
  }

  /** Stops whatever still runs for this episode (tools, hooks, scoring in flight). Idempotent. */
  close(reason = "the session was closed"): void {
    if (!this.controller.signal.aborted) this.controller.abort(new RubricateError("ABORTED", reason));
  }

  /** Why the episode ended (undefined while it runs). */
  get stopReason(): StopReason | undefined {
    return this.stop;
  }

  /**
   * Applies one assistant turn: records it, runs its tool calls or asks the environment for its
   * reply, and says whether the episode is over. A turn after the end is a `BAD_INPUT` error.
   */
  async step(turn: AssistantTurn): Promise<StepResult> {
    if (this.stop) throw new RubricateError("BAD_INPUT", `the episode is over (${this.stop}); finish it to get the reward`);
    const { harness, hooks } = this.env;
    const start = this.messages.length;
    const added = (stopReason?: StopReason): StepResult => {
      if (stopReason) this.stop = stopReason;
      else if (this.turnCount >= harness.max_turns) this.stop = "max_turns";
      return { messages: this.messages.slice(start + 1), done: this.stop !== undefined, ...(this.stop ? { stopReason: this.stop } : {}) };
    };
    this.turnCount++;
    const calls = turn.toolCalls ?? [];
    this.messages.push({ role: "assistant", content: turn.content, ...(calls.length ? { toolCalls: calls } : {}) });
    if (this.stopMatch?.test(turn.content)) return added("stop_match");
    if (calls.length) {
      const limit = harness.stop.max_tool_calls;
      if (limit !== undefined && this.toolCalls.length + calls.length > limit) return added("max_tool_calls");
      for (const call of calls) {
        this.ctx.signal.throwIfAborted();
        const rec = await executeToolCall(call, harness.tools, hooks.tools ?? {}, this.ctx, harness.tool_timeout_ms);
        this.toolCalls.push(rec);
        this.messages.push({ role: "tool", toolCallId: call.id, content: rec.result });
      }
      return added();
    }
    if (hooks.envResponse) {
      const reply = normaliseReply(await hooks.envResponse({ ...this.ctx, messages: this.messages, turn: this.turnCount, text: turn.content }));
      if (reply.done) {
        if (reply.message !== undefined) this.messages.push({ role: "user", content: reply.message });
        return added("env_done");
      }
      this.messages.push({ role: "user", content: reply.message ?? "" });
      return added();
    }
    if (turn.finishReason === "length") return added("length");
    if (harness.stop.on_final_answer) return added("final_answer");
    this.messages.push({ role: "user", content: "Continue." });
    return added();
  }

  /**
   * Runs one tool directly, outside an assistant turn (a trainer whose model called the tool on
   * its side, as TRL's `environment_factory` does). The call and its result join the transcript.
   */
  async callTool(call: ToolCall): Promise<ToolCallRecord> {
    if (this.stop) throw new RubricateError("BAD_INPUT", `the episode is over (${this.stop}); tools can no longer be called`);
    const limit = this.env.harness.stop.max_tool_calls;
    if (limit !== undefined && this.toolCalls.length + 1 > limit) {
      this.stop = "max_tool_calls";
      throw new RubricateError("BAD_INPUT", `the episode allows ${limit} tool calls; it is over (max_tool_calls)`);
    }
    const rec = await executeToolCall(call, this.env.harness.tools, this.env.hooks.tools ?? {}, this.ctx, this.env.harness.tool_timeout_ms);
    this.toolCalls.push(rec);
    this.messages.push({ role: "assistant", content: "", toolCalls: [call] }, { role: "tool", toolCallId: call.id, content: rec.result });
    return rec;
  }

  /**
   * Ends the episode and scores it. `response` (the caller's final answer, when it kept the
   * conversation itself) is added as the last assistant turn. Calling it again returns the same score.
   */
  finish(response?: string): Promise<EpisodeScore> {
    this.scored ??= this.score(response);
    return this.scored;
  }

  private async score(response?: string): Promise<EpisodeScore> {
    if (response !== undefined && response !== "") this.messages.push({ role: "assistant", content: response });
    this.stop ??= "final_answer";
    const stopReason = this.stop;
    const { hooks } = this.env;
    const finalResponse = lastAssistantText(this.messages);
    const extras = hooks.finalize ? await hooks.finalize({ ...this.ctx, messages: this.messages, response: finalResponse, stopReason }) : {};
    const task = this.task;
    const sample: Sample = {
      ...task.inputs,
      ...(task.answer !== undefined ? { answer: task.answer } : {}),
      response: finalResponse,
      transcript: renderTranscript(this.messages),
      turns: this.turnCount,
      tool_calls: this.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments, error: c.error ?? null })),
      stop_reason: stopReason,
      ...extras,
      id: task.id,
      ...(task.criteria ? { criteria: task.criteria } : {}),
    };
    const result = await scoreSample(this.env.rubric, sample, { judge: this.options.judge, signal: this.ctx.signal, errors: this.options.errors });
    return { ...result, usage: result.usage ?? emptyUsage(), sample, stopReason, turns: this.turnCount };
  }
}

function normaliseReply(reply: EnvReply): { message?: string; done: boolean } {
  if (reply === null || reply === undefined) return { done: true };
  if (typeof reply === "string") return { message: reply, done: false };
  if (typeof reply !== "object") throw new RubricateError("BAD_INPUT", `envResponse returned ${JSON.stringify(reply)}; expected a string, { message, done } or null`);
  return { message: reply.message, done: reply.done ?? reply.message === undefined };
}
