import type { Engine } from "../engine/engine.js";
import { RubricateError } from "../errors.js";
import type { Judge } from "../judge/types.js";
import type { ChatMessage, ToolCall, ToolSpec } from "../providers/types.js";
import { scoreSample } from "../score/score.js";
import { renderTemplate } from "../text/template.js";
import { emptyUsage, type ErrorPolicy, type Sample, type ScoreResult } from "../types.js";
import { openEpisode, type Episode } from "./episode.js";
import { forfeitResult, isFinalStateForfeit } from "./final-state.js";
import type { Policy } from "./policy.js";
import { episodeSample, lastAssistantText } from "./sample.js";
import type { Environment, StopReason, Task, ToolCallRecord } from "./types.js";

/** Options of `startSession`. */
export interface SessionOptions {
  /** Model calls of the hooks (`ctx.llm`) go through it. */
  engine: Engine;
  /** The default model of `ctx.llm` when the environment names none. */
  policy?: Policy;
  models?: Record<string, Policy>;
  /** Run sandbox commands on the host (`--unsafe-no-sandbox`). */
  unsafeNoSandbox?: boolean;
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

/** The score of a finished session, with the sample the rubric saw (kept so stored sessions can be re-scored). */
export interface SessionScore extends ScoreResult {
  sample: Sample;
  stopReason: StopReason;
  turns: number;
}

/**
 * One task of an environment played turn by turn by a caller that owns the policy: a trainer
 * generating with its own weights, or the HTTP session API. The caller sends each assistant
 * turn; the session runs the tools (in the environment's sandbox), asks the environment, and
 * applies the harness's stop rules as `rollout` does; `finish` builds the sample and scores it;
 * `close` (also run by `finish`) tears the episode down.
 * @example
 * const s = await startSession(env, env.tasks[0], { engine, judge });
 * const { messages, done } = await s.step({ content: "CRANE" });
 * if (done) console.log((await s.finish()).reward);
 */
export async function startSession(env: Environment, task: Task, options: SessionOptions): Promise<Session> {
  // The session's own signal: closing it stops its tools and scoring even when the caller's never fires.
  const controller = new AbortController();
  const outer = options.signal;
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", () => controller.abort(outer.reason), { once: true });
  const episode = await openEpisode(env, task, { engine: options.engine, judge: options.judge, policy: options.policy, models: options.models, signal: controller.signal, unsafeNoSandbox: options.unsafeNoSandbox });
  return new Session(env, task, episode, options, controller);
}

/** What a task's conversation starts from: the rendered system prompt, the offered tools, few-shot turns and the first user message. */
export function openingOf(env: Environment, task: Task): { system?: string; tools: ToolSpec[]; shots: ChatMessage[]; messages: ChatMessage[] } {
  const { harness } = env;
  return {
    ...(harness.system === undefined ? {} : { system: renderTemplate(harness.system, task.inputs) }),
    tools: harness.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters })),
    shots: harness.few_shot.map((s) => ({ role: s.role, content: s.content })),
    messages: [{ role: "user", content: renderTemplate(harness.prompt, task.inputs) }],
  };
}

/**
 * One task played turn by turn by a caller that owns the policy (see `startSession`). `rollout`
 * plays its turns through it too, so both apply the harness's stop rules the same way.
 */
export class Session {
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
  private scored?: Promise<SessionScore>;
  private closing?: Promise<unknown>;
  private readonly stopMatch?: RegExp;

  constructor(
    readonly env: Environment,
    readonly task: Task,
    private readonly episode: Episode,
    private readonly options: SessionOptions,
    private readonly controller: AbortController,
  ) {
    const opening = openingOf(env, task);
    this.system = opening.system;
    this.tools = opening.tools;
    this.shots = opening.shots;
    this.messages = opening.messages;
    this.stopMatch = env.harness.stop.match === undefined ? undefined : new RegExp(env.harness.stop.match);
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

  /** Stops whatever still runs (tools, hooks, scoring in flight) and tears the episode down (teardown, sandbox). Idempotent. */
  close(reason = "the session was closed"): Promise<unknown> {
    if (!this.controller.signal.aborted) this.controller.abort(new RubricateError("ABORTED", reason));
    this.closing ??= this.episode.close();
    return this.closing;
  }

  private checkFault(): void {
    const fault = this.episode.fault();
    if (fault) throw fault;
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
    const { harness } = this.env;
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
        this.controller.signal.throwIfAborted();
        const rec = await this.episode.runTool(call);
        this.toolCalls.push(rec);
        this.messages.push({ role: "tool", toolCallId: call.id, content: rec.result });
        this.checkFault();
      }
      return added(this.episode.submitted() !== undefined ? "submitted" : undefined);
    }
    const reply = await this.episode.respond(this.messages, this.turnCount, turn.content);
    this.checkFault();
    if (reply) {
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
    const rec = await this.episode.runTool(call);
    this.toolCalls.push(rec);
    this.messages.push({ role: "assistant", content: "", toolCalls: [call] }, { role: "tool", toolCallId: call.id, content: rec.result });
    this.checkFault();
    if (this.episode.submitted() !== undefined) this.stop = "submitted";
    return rec;
  }

  /**
   * Ends the episode and scores it. `response` (the caller's final answer, when it kept the
   * conversation itself) is added as the last assistant turn. Calling it again returns the same score.
   */
  finish(response?: string): Promise<SessionScore> {
    this.scored ??= this.score(response);
    return this.scored;
  }

  private async score(response?: string): Promise<SessionScore> {
    if (response !== undefined && response !== "") this.messages.push({ role: "assistant", content: response });
    this.stop ??= "final_answer";
    const stopReason = this.stop;
    const finalResponse = this.episode.submitted() ?? lastAssistantText(this.messages);
    let extras: Record<string, unknown> = {};
    let forfeit: RubricateError | undefined;
    try {
      extras = await this.episode.finish(this.messages, finalResponse, stopReason);
      this.checkFault();
    } catch (e) {
      if (!isFinalStateForfeit(e)) throw e;
      forfeit = e;
    } finally {
      await this.close("the session finished");
    }
    const sample: Sample = episodeSample(this.task, { messages: this.messages, toolCalls: this.toolCalls, response: finalResponse, turns: this.turnCount, stopReason }, extras);
    if (forfeit) return { ...forfeitResult(this.env.rubric, forfeit), usage: emptyUsage(), sample, stopReason, turns: this.turnCount };
    const result = await scoreSample(this.env.rubric, sample, { judge: this.options.judge, signal: this.options.signal, errors: this.options.errors, checks: this.env.hooks.checks, clientCriteria: this.task.fromClient });
    return { ...result, usage: result.usage ?? emptyUsage(), sample, stopReason, turns: this.turnCount };
  }
}
