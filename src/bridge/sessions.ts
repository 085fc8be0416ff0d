/**
 * The environment API of `rubricate serve --env`: sessions a trainer drives turn by turn (it
 * generates; the environment runs tools, replies and scores) and rollouts the server plays
 * against the trainer's own policy endpoint. Routes, all JSON:
 *
 *   POST   /v1/sessions                    { task_id | task_index | task, key? } → the prompt, messages, tools
 *   GET    /v1/sessions                    open sessions and limits
 *   GET    /v1/sessions/:id                the conversation so far
 *   POST   /v1/sessions/:id/step           { content, tool_calls?, finish_reason?, turn? } → new messages, done
 *                                           (tool calls: OpenAI's or ours, else Hermes <tool_call> blocks in content)
 *   POST   /v1/sessions/:id/tools/:name    { arguments, id?, key? }             → the tool's result
 *                                           (`turn`, `key`: what makes a retry safe; see `keyedAnswer`)
 *   POST   /v1/sessions/:id/finish         { response? }                        → reward, verdicts, feedback
 *   DELETE /v1/sessions/:id                closes it (hooks' work stops; idle sessions also expire)
 *   POST   /v1/rollouts                    { task…, k?, policy: { base_url, model, extra_body?, … }, key? } → k rollouts
 *                                           (an open's or rollouts' `key`: sent again, the first one's answer; see kept-answers.ts)
 */
import * as z from "zod";
import type { Engine } from "../engine/engine.js";
import { toRubricateError, type ErrorCode } from "../errors.js";
import type { Judge } from "../judge/types.js";
import type { Session, SessionScore } from "../env/session.js";
import { RemotePolicySchema, runRemoteRollouts } from "../env/remote.js";
import { taskFromRef, type KeyedOutcome, type SessionManager, type TaskRef } from "../env/sessions.js";
import type { Environment, RolloutRecord } from "../env/types.js";
import type { ChatMessage, ToolCall } from "../providers/types.js";
import { canonicalJson } from "../text/canonical-json.js";
import type { ErrorPolicy } from "../types.js";
import { refuseTooDeep } from "./depth.js";
import { HttpAnswer, HttpError } from "./http.js";
import { keptAnswers } from "./kept-answers.js";
import { parseRequest, wireResult } from "./protocol.js";
import { StepToolCallSchema, toolCallsInText, type WireToolCall } from "./tool-calls.js";
import { refusedCriteria } from "./sample-criteria.js";

/** A route the reward server mounts: its method, whether it needs the token, and its handler. */
export interface ExtraRoute {
  method: string;
  /** The path pattern the server's stats count this route under (ids left out). */
  label?: string;
  auth: boolean;
  handle: (body: unknown, signal: AbortSignal) => Promise<unknown>;
}

/** Options of `sessionRoutes`. */
export interface SessionRoutesOptions {
  env: Environment;
  sessions: SessionManager;
  /** The engine rollouts call the policy through (the judge's, so limits and stats are shared). */
  engine: Engine;
  judge?: Judge;
  errors?: ErrorPolicy;
  /** The policy endpoints `/v1/rollouts` may call, as `host:port` (`--allow-policy-host`); none: it calls nothing. */
  allowPolicyHosts?: readonly string[];
  /** Most rollouts in one `/v1/rollouts` request (default 64). */
  maxGroup?: number;
  /** Accept task objects with their own `criteria` (default false: judge questions the operator did not write). */
  allowTaskCriteria?: boolean;
  /**
   * What is kept of finished keyed `/v1/rollouts` answers for their retries: at most `entries`
   * answers (default 1024) and `bytes` of their JSON (default 64 MiB), the oldest going first.
   */
  keptRollouts?: { entries?: number; bytes?: number };
}

const TaskRefShape = {
  task_id: z.union([z.string().min(1), z.number()]).optional(),
  task_index: z.number().int().nonnegative().optional(),
  task: z.unknown().optional(),
};
/** A key the client chose for one call (a UUID, say), sent again with each retry of it. */
const KeyShape = z.string().min(1).max(128).optional();
const OpenSchema = z.strictObject({ ...TaskRefShape, key: KeyShape });
const StepSchema = z.strictObject({
  content: z.string().default(""),
  tool_calls: z.array(StepToolCallSchema).max(128).optional(),
  finish_reason: z.string().optional(),
  /** The session's turn count when the client sent this step (`turns` of the last answer; 0 after opening): its key. */
  turn: z.number().int().nonnegative().optional(),
});
const ToolSchema = z.strictObject({
  id: z.string().min(1).max(256).optional(),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).default({}),
  key: KeyShape,
});
const FinishSchema = z.strictObject({ response: z.string().optional() });
const RolloutSchema = z.strictObject({ ...TaskRefShape, k: z.number().int().positive().default(1), policy: RemotePolicySchema, key: KeyShape });

const STATUS: Partial<Record<ErrorCode, number>> = { BAD_INPUT: 400, SESSION_NOT_FOUND: 404, SESSION_BUSY: 409, TURN_MISMATCH: 409, KEY_MISMATCH: 409, SESSION_TOO_LARGE: 413, SESSION_LIMIT: 429, ABORTED: 499 };

/** Bytes of what a client sends into a session with one call (its text and tool arguments), charged to the memory budgets. */
const sentBytes = (...parts: unknown[]): number => parts.reduce<number>((n, p) => n + (p === undefined ? 0 : Buffer.byteLength(typeof p === "string" ? p : JSON.stringify(p))), 0);

/** A RubricateError from the environment layer, as an HTTP answer (bad input 4xx; the rest 5xx). */
function asHttp(e: unknown): never {
  if (e instanceof HttpError) throw e;
  const err = toRubricateError(e);
  throw new HttpError(STATUS[err.code] ?? 500, err.code, err.message);
}

/** Marks an answer given again from the record of a keyed call: a failure so marked is final, retrying it changes nothing. */
const REPLAYED_HEADER = "idempotent-replayed";

/**
 * A keyed call's answer: its value, or its failure as the HTTP error it was the first time; one
 * given again from the record is marked `Idempotent-Replayed: true` (a failure so marked is final,
 * so a client stops retrying what already ran). Keys are what make a retry safe: a step sent
 * without `turn`, a tool call, open or rollouts request without `key`, that timed out may have
 * run, and sending it again runs it again.
 */
function keyedAnswer<T>(outcome: KeyedOutcome<T>): T | HttpAnswer {
  const replayed = outcome.replayed ? { [REPLAYED_HEADER]: "true" } : undefined;
  if (outcome.ok) return replayed ? new HttpAnswer(outcome.value, replayed) : outcome.value;
  const err = outcome.error;
  throw new HttpError(STATUS[err.code] ?? 500, err.code, err.message, undefined, replayed ?? {});
}

/** A step whose `turn` is not the session's: sent out of order, or for a turn the session already took with another step. */
function refuseOtherTurn(id: string, sent: number, session: Session): void {
  if (sent === session.turns) return;
  const why = sent < session.turns ? "it already took that turn with another step (a retry must send the same step)" : "it has not taken the turns before it";
  throw new HttpError(409, "TURN_MISMATCH", `session "${id}" is at turn ${session.turns}, and this step says turn ${sent}: ${why}; read GET /v1/sessions/${id} for where it is`, "turn");
}

const guard =
  <T>(fn: (body: unknown, signal: AbortSignal) => Promise<T>) =>
  async (body: unknown, signal: AbortSignal) => {
    try {
      return await fn(body, signal);
    } catch (e) {
      asHttp(e);
    }
  };

/**
 * Refuses a body with a field nested past the limit, before anything walks it by recursion: a
 * task's inputs render into the prompt, tool arguments are measured and passed on as JSON text,
 * and 20,000 levels of either overflowed the stack (a 500) instead of being the client's 400.
 */
function refuseDeepFields(body: unknown): void {
  if (body === null || typeof body !== "object") return;
  const fields = Object.entries(body);
  refuseTooDeep(fields.map(([, value]) => value), (i) => fields[i][0]);
}

/** A POST route that needs the token, its failures mapped to HTTP answers. */
const authedPost = <T>(fn: (body: unknown, signal: AbortSignal) => Promise<T>): ExtraRoute => ({
  method: "POST",
  auth: true,
  handle: guard((body, signal) => {
    refuseDeepFields(body);
    return fn(body, signal);
  }),
});

/**
 * Runs `fn` for a task reference; when the client sent its own task, a template variable its
 * inputs lack is the client's mistake (400, naming `task.inputs`), not the server's 500. For the
 * operator's own tasks it stays a 500: their environment is broken.
 */
async function withClientTask<T>(task: unknown, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const err = toRubricateError(e);
    if (task !== undefined && err.code === "TEMPLATE_MISSING_VAR") throw new HttpError(400, "TEMPLATE_MISSING_VAR", `task.inputs: ${err.message}; send it in task.inputs`, "task.inputs");
    throw e;
  }
}

let callCounter = 0;
const toolCall = (c: WireToolCall): ToolCall => ({
  id: c.id ?? `call_${(++callCounter).toString(36)}`,
  name: c.name,
  arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
});

/** Messages in the OpenAI chat shape trainers use (`tool_calls`, `tool_call_id`). */
export function wireMessages(messages: readonly ChatMessage[]): Record<string, unknown>[] {
  return messages.map((m) => {
    const content = typeof m.content === "string" ? m.content : m.content.map((p) => p.text).join("");
    return {
      role: m.role,
      content,
      ...(m.toolCalls?.length ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) } : {}),
      ...(m.toolCallId !== undefined ? { tool_call_id: m.toolCallId } : {}),
    };
  });
}

const openAITools = (episode: Session) => episode.tools.map((t) => ({ type: "function", function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters } }));

function scoreBody(score: SessionScore) {
  const { sample: _sample, stopReason, turns, ...result } = score;
  return { ...wireResult(result), stop_reason: stopReason, turns, usage: score.usage };
}

function rolloutBody(r: RolloutRecord) {
  return {
    task_id: r.task,
    rollout: r.rollout,
    messages: wireMessages(r.messages),
    response: r.response,
    turns: r.turns,
    stop_reason: r.stopReason,
    ...(r.error ? { error: r.error } : {}),
    ...(r.forfeit ? { forfeit: r.forfeit } : {}),
    reward: r.reward,
    passed: r.passed,
    verdicts: r.verdicts,
    errors: r.errors,
    feedback: r.feedback,
    usage: r.usage,
  };
}

/**
 * The environment routes for a reward server: returns the route for a method and path, a
 * 405-shaped route for a known path and another method, or undefined for paths it does not own.
 * @example createRewardServer({ rubric: env.rubric, judge, routes: sessionRoutes({ env, sessions, engine: judge.engine, judge }) })
 */
export function sessionRoutes(options: SessionRoutesOptions): (method: string, path: string) => ExtraRoute | undefined {
  const { env, sessions } = options;
  const maxGroup = options.maxGroup ?? 64;
  // A client's task brings criteria under the rule of /v1/score's sample criteria (no server files or code, linear regexes).
  const refuseTaskCriteria = (task: unknown) => {
    if (!options.allowTaskCriteria || !task || typeof task !== "object") return; // off: taskFromRef refuses any criteria
    const refused = refusedCriteria((task as { criteria?: unknown }).criteria, "task.criteria", "questions");
    if (refused) throw refused;
  };
  const describe = (id: string, episode: Session) => ({
    session_id: id,
    env: { id: env.id, version: env.version },
    task_id: episode.task.id,
    ...(episode.system !== undefined ? { system: episode.system } : {}),
    few_shot: wireMessages(episode.shots),
    messages: wireMessages(episode.messages),
    tools: openAITools(episode),
    max_turns: env.harness.max_turns,
    // The environment answers plain turns (an envResponse hook): adapters whose trainer only
    // reaches environments through tools (TRL) offer a `reply` tool for them.
    answers_turns: env.hooks.envResponse !== undefined,
    // The rubric's criteria: trainers that need the same log keys on every sample (OpenRLHF's
    // extra_logs) know them before any episode is scored, or fails.
    criteria: env.rubric.criteria.map((c) => c.id),
    /** How many tasks `task_index` ranges over (adapters that build a dataset of the environment's tasks). */
    task_count: env.tasks.length,
    turns: episode.turns,
    done: episode.done,
    ...(episode.stopReason ? { stop_reason: episode.stopReason } : {}),
  });

  const collection: Record<string, ExtraRoute> = {
    POST: authedPost(async (body) => {
      const { key, ...ref } = parseRequest(OpenSchema, body) as TaskRef & { key?: string };
      refuseTaskCriteria(ref.task);
      if (key === undefined) {
        const { id, episode } = await withClientTask(ref.task, () => sessions.open(ref));
        return describe(id, episode);
      }
      // Sent again after a lost answer, it finds the session the first copy opened (or is opening).
      const outcome = await withClientTask(ref.task, () => sessions.openOnce(ref, { key, request: canonicalJson(ref) }, ({ id, episode }) => describe(id, episode)));
      return keyedAnswer(outcome);
    }),
    GET: { method: "GET", auth: true, handle: async () => sessions.stats() },
  };
  const kept = keptAnswers(options.keptRollouts);
  const rollouts = authedPost(async (body, signal) => {
    const { key, ...request } = parseRequest(RolloutSchema, body);
    const { task_id, task_index, task, k, policy } = request;
    if (k > maxGroup) throw new HttpError(413, "TOO_MANY_ROLLOUTS", `k=${k} rollouts in one request; the limit is ${maxGroup} (--max-group)`, "k");
    refuseTaskCriteria(task);
    // The same task rules as sessions (client criteria refused unless the operator allowed them).
    const resolved = taskFromRef(env, { task_id, task_index, task }, { allowTaskCriteria: options.allowTaskCriteria });
    // Each rollout holds a sandbox as a session does: they share the --max-sessions cap.
    const play = (stop: AbortSignal) =>
      withClientTask(task, () =>
        sessions.hold(k, async (held) => {
          const records = await runRemoteRollouts(env, resolved, k, policy, { engine: options.engine, judge: options.judge, errors: options.errors, signal: AbortSignal.any([stop, held]), allowHosts: options.allowPolicyHosts });
          return { env: { id: env.id, version: env.version }, task_id: resolved.id, rollouts: records.map(rolloutBody), rewards: records.map((r) => r.reward) };
        }),
      );
    if (key === undefined) return play(signal);
    // Keyed: the rollouts play on when the client hangs up, so its retry gets their answer instead of playing them again.
    return keyedAnswer(await kept.run(key, canonicalJson(request), signal, play));
  });

  const one = (id: string, action: string | undefined, toolName: string | undefined): Record<string, ExtraRoute> | undefined => {
    if (action === undefined) {
      return {
        GET: { method: "GET", auth: true, handle: guard(() => sessions.use(id, async (ep) => describe(id, ep), 0, true)) },
        DELETE: { method: "DELETE", auth: true, handle: async () => ({ session_id: id, closed: sessions.close(id) }) },
      };
    }
    if (action === "step") {
      return {
        POST: authedPost((body) => {
          const turn = parseRequest(StepSchema, body);
          // Calls the trainer parsed win; otherwise the ones written in the text (Hermes format).
          const { content, calls } = turn.tool_calls?.length ? { content: turn.content, calls: turn.tool_calls } : toolCallsInText(turn.content);
          const step = async (ep: Session) => {
            const result = await ep.step({ content, toolCalls: calls.map(toolCall), finishReason: turn.finish_reason });
            return { session_id: id, messages: wireMessages(result.messages), done: result.done, ...(result.stopReason ? { stop_reason: result.stopReason } : {}), turns: ep.turns };
          };
          const bytes = sentBytes(turn.content, turn.tool_calls);
          if (turn.turn === undefined) return sessions.use(id, step, bytes);
          const { turn: sent, ...request } = turn;
          const key = { kind: "step" as const, key: String(sent), request: canonicalJson(request) };
          return sessions.useOnce(id, key, step, { bytes, admit: (ep) => refuseOtherTurn(id, sent, ep) }).then(keyedAnswer);
        }),
      };
    }
    if (action === "tools" && toolName !== undefined) {
      return {
        POST: authedPost((body) => {
          const call = parseRequest(ToolSchema, body);
          const run = async (ep: Session) => {
            const rec = await ep.callTool(toolCall({ ...call, name: toolName }));
            return { session_id: id, tool_call_id: rec.id, name: rec.name, result: rec.result, ...(rec.error ? { error: rec.error } : {}), done: ep.done };
          };
          const bytes = sentBytes(call.arguments);
          if (call.key === undefined) return sessions.use(id, run, bytes);
          const { key, ...request } = call;
          return sessions.useOnce(id, { kind: "tool", key, request: canonicalJson({ ...request, name: toolName }) }, run, { bytes }).then(keyedAnswer);
        }),
      };
    }
    if (action === "finish") {
      return {
        POST: authedPost((body) => {
          const { response } = parseRequest(FinishSchema, body);
          return sessions.use(id, async (ep) => ({ session_id: id, ...scoreBody(await ep.finish(response)) }), sentBytes(response));
        }),
      };
    }
    return undefined;
  };

  return (method, path) => {
    let table: Record<string, ExtraRoute> | undefined;
    if (path === "/v1/sessions") table = collection;
    else if (path === "/v1/rollouts") table = { POST: rollouts };
    else {
      const m = /^\/v1\/sessions\/([A-Za-z0-9-]{1,64})(?:\/(step|finish|tools)(?:\/([A-Za-z0-9_-]{1,64}))?)?$/.exec(path);
      if (m) table = one(m[1], m[2], m[3]);
    }
    if (!table) return undefined;
    const route = table[method] ?? Object.values(table)[0];
    return { ...route, label: path.replace(/^\/v1\/sessions\/[^/]+/, "/v1/sessions/:id").replace(/\/tools\/[^/]+$/, "/tools/:name") };
  };
}
