/**
 * `tool_calls`: checks over a rollout's trajectory: a tool was (not) called, with arguments a
 * JSON Schema accepts, in an order, at most n times; the final answer uses a tool's result.
 * Reads rubricate rollouts (`tool_calls: [{ name, arguments, result }]`) and OpenAI chat
 * messages (`messages` with assistant `tool_calls` and `role: tool` results).
 *
 * rubric:  check: { tool_calls: { called: search, order: [search, answer], max_calls: 5 } }
 */
import { z } from "zod";
import { RubricateError } from "../errors.js";
import type { Sample } from "../types.js";
import { compileJsonSchema, describeAjvErrors } from "./compile.js";
import { defineCheck } from "./kind.js";
import { extractNumber } from "./number.js";

const names = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

export const ToolCallsSpec = z
  .strictObject({
    called: names.optional().describe("Each of these tools was called at least once"),
    not_called: names.optional().describe("None of these tools was called"),
    arguments: z
      .strictObject({ tool: z.string().min(1), schema: z.record(z.string(), z.unknown()) })
      .optional()
      .describe("Every call of `tool` has arguments that parse as JSON and satisfy `schema`"),
    order: z.array(z.string().min(1)).min(2).optional().describe("These tools are first called in this order"),
    max_calls: z.union([z.number().int().nonnegative(), z.record(z.string(), z.number().int().nonnegative())]).optional().describe("At most n calls in all, or per tool ({ search: 2 })"),
    min_calls: z.number().int().nonnegative().optional().describe("At least n calls in all"),
    answer_uses: z.string().min(1).optional().describe("The response contains the last result of this tool (numbers compared as numbers)"),
    trajectory: z.string().min(1).optional().describe("The sample input with the trajectory (default: tool_calls, else messages)"),
  })
  .refine((s) => Object.keys(s).some((k) => k !== "trajectory"), "tool_calls needs at least one condition (called, not_called, arguments, order, max_calls, min_calls, answer_uses)");
export type ToolCallsSpec = z.infer<typeof ToolCallsSpec>;

/** One call in a trajectory. */
export interface TrajectoryCall {
  name: string;
  /** The arguments as the model wrote them (a JSON string), or an object. */
  arguments: unknown;
  result?: string;
}

/** The tool calls of a sample, in order, from rubricate's `tool_calls` or OpenAI-style `messages`. */
export function readTrajectory(sample: Sample, field?: string): TrajectoryCall[] {
  const source = field ?? (sample.tool_calls !== undefined ? "tool_calls" : sample.messages !== undefined ? "messages" : undefined);
  if (source === undefined) throw new RubricateError("MISSING_INPUT", "the sample has no tool_calls or messages input for a tool_calls check");
  let value = sample[source];
  // An empty cell (a CSV column, a rollout without tools) is an empty trajectory.
  if (typeof value === "string" && value.trim() === "") return [];
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      throw new RubricateError("BAD_INPUT", `the sample's "${source}" input is not a JSON list of tool calls or messages`);
    }
  }
  if (!Array.isArray(value)) throw new RubricateError(value === undefined || value === null ? "MISSING_INPUT" : "BAD_INPUT", `the sample's "${source}" input is not a list of tool calls or messages`);
  const isMessages = value.some((m) => m && typeof m === "object" && "role" in m);
  return isMessages ? fromMessages(value) : value.map((c, i) => fromCall(c, `${source}[${i}]`));
}

function fromCall(raw: unknown, where: string): TrajectoryCall {
  if (!raw || typeof raw !== "object") throw new RubricateError("BAD_INPUT", `${where} is not a tool call object`);
  const call = raw as Record<string, unknown>;
  const fn = (call.function ?? call) as Record<string, unknown>;
  if (typeof fn.name !== "string") throw new RubricateError("BAD_INPUT", `${where} has no tool name`);
  const result = call.result ?? call.output;
  return { name: fn.name, arguments: fn.arguments ?? fn.args ?? fn.input ?? {}, ...(result !== undefined && result !== null ? { result: typeof result === "string" ? result : JSON.stringify(result) } : {}) };
}

function fromMessages(messages: unknown[]): TrajectoryCall[] {
  const calls: TrajectoryCall[] = [];
  const byId = new Map<string, TrajectoryCall>();
  messages.forEach((m, i) => {
    if (!m || typeof m !== "object") return;
    const message = m as Record<string, unknown>;
    const toolCalls = message.tool_calls ?? message.toolCalls;
    if (message.role === "assistant" && Array.isArray(toolCalls)) {
      toolCalls.forEach((c, j) => {
        const call = fromCall(c, `messages[${i}].tool_calls[${j}]`);
        calls.push(call);
        const id = (c as { id?: unknown }).id;
        if (typeof id === "string") byId.set(id, call);
      });
    }
    if (message.role === "tool") {
      const id = message.tool_call_id ?? message.toolCallId;
      const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
      const call = typeof id === "string" ? byId.get(id) : calls[calls.length - 1];
      if (call) call.result = content;
    }
  });
  return calls;
}

const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function parseArguments(args: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  if (typeof args !== "string") return { ok: true, value: args };
  try {
    return { ok: true, value: JSON.parse(args) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** True when the response states the tool's result: the same number, or the result's text. */
function usesResult(response: string, result: string): boolean {
  const expected = extractNumber(result, "last");
  const trimmed = result.trim();
  if (expected !== undefined && /^[-−]?[\d.,\s/eE+]+$/.test(trimmed)) {
    const got = extractNumber(response, undefined);
    return got !== undefined && Math.abs(got - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
  }
  const norm = (s: string) => s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
  return trimmed !== "" && norm(response).includes(norm(trimmed));
}

export const toolCallsCheck = defineCheck<ToolCallsSpec>({
  key: "tool_calls",
  spec: ToolCallsSpec,
  summary: "the trajectory's tool calls: which tools, their arguments (JSON Schema), order, counts, answer uses a result",
  run(spec, { text, sample }) {
    const calls = readTrajectory(sample, spec.trajectory);
    const problems: string[] = [];
    const counts = new Map<string, number>();
    for (const c of calls) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
    for (const name of list(spec.called)) if (!counts.has(name)) problems.push(`${name} was not called`);
    for (const name of list(spec.not_called)) if (counts.has(name)) problems.push(`${name} was called ${counts.get(name)} time(s)`);
    if (spec.arguments) {
      const validate = compileJsonSchema(spec.arguments.schema);
      calls.forEach((c, i) => {
        if (c.name !== spec.arguments!.tool) return;
        const parsed = parseArguments(c.arguments);
        if (!parsed.ok) problems.push(`call ${i + 1} (${c.name}): arguments are not JSON (${parsed.error})`);
        else if (!validate(parsed.value)) problems.push(`call ${i + 1} (${c.name}): ${describeAjvErrors(validate)}`);
      });
    }
    if (spec.order) {
      const firsts = spec.order.map((name) => calls.findIndex((c) => c.name === name));
      const missing = spec.order.filter((_, i) => firsts[i] === -1);
      if (missing.length) problems.push(`order: ${missing.join(", ")} never called`);
      else if (firsts.some((p, i) => i > 0 && p < firsts[i - 1])) problems.push(`called in the order ${[...spec.order].sort((a, b) => firsts[spec.order!.indexOf(a)] - firsts[spec.order!.indexOf(b)]).join(" → ")}, expected ${spec.order.join(" → ")}`);
    }
    if (typeof spec.max_calls === "number" && calls.length > spec.max_calls) problems.push(`${calls.length} tool calls, at most ${spec.max_calls} allowed`);
    if (spec.max_calls && typeof spec.max_calls === "object") {
      for (const [name, max] of Object.entries(spec.max_calls)) if ((counts.get(name) ?? 0) > max) problems.push(`${name} called ${counts.get(name)} times, at most ${max} allowed`);
    }
    if (spec.min_calls !== undefined && calls.length < spec.min_calls) problems.push(`${calls.length} tool calls, at least ${spec.min_calls} needed`);
    if (spec.answer_uses) {
      const last = calls.filter((c) => c.name === spec.answer_uses).at(-1);
      if (!last) problems.push(`${spec.answer_uses} was not called, so the answer cannot use its result`);
      else if (last.result === undefined) problems.push(`the trajectory has no result for ${spec.answer_uses}`);
      else if (!usesResult(text, last.result)) problems.push(`the answer does not state ${spec.answer_uses}'s result ${JSON.stringify(last.result.slice(0, 80))}`);
    }
    const summary = calls.length ? calls.map((c) => c.name).join(" → ") : "no tool calls";
    return problems.length ? { pass: false, reasoning: `${problems.join("; ")} (trajectory: ${summary})` } : { pass: true, reasoning: `trajectory ${summary}` };
  },
});
