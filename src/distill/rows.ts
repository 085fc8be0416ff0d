/**
 * Turns any input line into a `DistillRow`: chat rows (`messages`), sample rows (the rubric's
 * inputs plus a response), `rubricate score` lines joined to their samples, and `rubricate eval`
 * rollouts (`env`, `task`, `rollout`, `messages`, `reward`, `verdicts`, `usage.policy`).
 */
import { isRolloutRecord, sampleOfRollout } from "../env/records.js";
import { renderTemplate } from "../text/template.js";
import { hashHex } from "./hash.js";
import type { ChatLine, DistillRow, RowOptions, RowVerdict } from "./types.js";

type Raw = Record<string, unknown>;

/** Reads a dot path ("meta.family") from an object. */
export function getPath(row: Raw, path: string): unknown {
  if (Object.hasOwn(row, path)) return row[path];
  let current: unknown = row;
  for (const part of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Raw)[part];
  }
  return current;
}

const textOf = (content: unknown): string => {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "")).join("");
  if (content === null || content === undefined) return "";
  return JSON.stringify(content);
};

/** One message (neutral rubricate shape or OpenAI's) in OpenAI's shape; null for what is not a message. */
export function toChatLine(m: unknown): ChatLine | null {
  if (typeof m !== "object" || m === null) return null;
  const raw = m as Raw;
  const role = raw.role === "developer" ? "system" : raw.role;
  if (role !== "system" && role !== "user" && role !== "assistant" && role !== "tool") return null;
  const line: ChatLine = { role, content: textOf(raw.content) };
  const calls = (raw.tool_calls ?? raw.toolCalls) as unknown;
  if (role === "assistant" && Array.isArray(calls) && calls.length > 0) {
    line.tool_calls = calls.map((c: Raw) => {
      const fn = (c.function ?? c) as Raw;
      const args = fn.arguments;
      return { id: String(c.id ?? ""), type: "function" as const, function: { name: String(fn.name ?? ""), arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) } };
    });
    if (line.content === "") line.content = null;
  }
  const callId = raw.tool_call_id ?? raw.toolCallId;
  if (role === "tool" && callId !== undefined) line.tool_call_id = String(callId);
  return line;
}

/** Splits a conversation: the completion is the trailing run of assistant/tool turns, the prompt all before. */
export function splitConversation(messages: ChatLine[]): { prompt: ChatLine[]; completion: ChatLine[] } {
  let cut = messages.length;
  while (cut > 0 && (messages[cut - 1].role === "assistant" || messages[cut - 1].role === "tool")) cut--;
  return { prompt: messages.slice(0, cut), completion: messages.slice(cut) };
}

/** The prompt text of a non-chat row: the template, the `prompt` input, the rubric's one other input, or common names. */
function promptText(row: Raw, options: RowOptions, responseField: string): string | undefined {
  if (options.promptTemplate) return renderTemplate(options.promptTemplate, row);
  const str = (v: unknown) => (v === undefined || v === null ? undefined : typeof v === "string" ? v : JSON.stringify(v));
  if (row.prompt !== undefined) return str(row.prompt);
  const others = (options.inputs ?? []).filter((i) => i !== responseField && i !== "answer" && row[i] !== undefined);
  if (others.length === 1) return str(row[others[0]]);
  if (others.length > 1) return others.map((i) => `${i}:\n${str(row[i])}`).join("\n\n");
  for (const name of ["question", "input", "instruction", "query"]) if (row[name] !== undefined) return str(row[name]);
  return undefined;
}

/** The conversation of a row: its `messages` (with `system` prepended when separate), or built from its fields. */
export function conversationOf(row: Raw, options: RowOptions = {}): ChatLine[] | undefined {
  const responseField = options.responseField ?? "response";
  let messages: ChatLine[];
  if (Array.isArray(row.messages)) {
    messages = row.messages.map(toChatLine).filter((m): m is ChatLine => m !== null);
    const last = messages.at(-1);
    // A rollout whose final text is kept apart from its messages still has an answer.
    if (last?.role !== "assistant" && typeof row[responseField] === "string") messages.push({ role: "assistant", content: row[responseField] as string });
  } else {
    const response = row[responseField];
    const prompt = promptText(row, options, responseField);
    if (response === undefined || response === null || prompt === undefined) return undefined;
    messages = [
      { role: "user", content: prompt },
      { role: "assistant", content: typeof response === "string" ? response : JSON.stringify(response) },
    ];
  }
  if (typeof row.system === "string" && messages[0]?.role !== "system") messages.unshift({ role: "system", content: row.system });
  return messages;
}

/** A row's verdicts from `score`/`eval` results (a list of {id, status, points}) or a map id → boolean/status. */
export function readVerdicts(value: unknown): RowVerdict[] {
  if (Array.isArray(value)) {
    return value
      .filter((v): v is Raw => typeof v === "object" && v !== null && typeof (v as Raw).id === "string")
      .map((v) => ({
        id: v.id as string,
        status: (["met", "unmet", "skipped", "error"].includes(v.status as string) ? v.status : v.pass === true ? "met" : v.pass === false ? "unmet" : "error") as RowVerdict["status"],
        points: typeof v.points === "number" ? v.points : 1,
      }));
  }
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).map(([id, v]) => ({ id, status: v === true ? "met" : v === false ? "unmet" : ((["met", "unmet", "skipped", "error"].includes(v as string) ? v : "error") as RowVerdict["status"]), points: 1 }));
  }
  return [];
}

/** Completion tokens: the row's own count when it reports one, else ⌈characters / 4⌉ of the completion. */
export function completionTokens(row: Raw, completion: ChatLine[]): number {
  const usage = row.usage as Raw | undefined;
  const policy = usage?.policy as Raw | undefined;
  const own = policy?.outputTokens ?? usage?.outputTokens;
  if (typeof own === "number" && Number.isFinite(own)) return own;
  let chars = 0;
  for (const m of completion) {
    chars += m.content?.length ?? 0;
    for (const c of m.tool_calls ?? []) chars += c.function.name.length + c.function.arguments.length;
  }
  return Math.ceil(chars / 4);
}

/** The default group key: task_id, prompt_id, a rollout's env/task, else a hash of the prompt messages. */
export function groupKey(row: Raw, prompt: ChatLine[], groupBy?: string): string {
  const pick = (v: unknown) => (v === undefined || v === null ? undefined : typeof v === "string" ? v : JSON.stringify(v));
  if (groupBy) {
    const v = pick(getPath(row, groupBy));
    if (v !== undefined) return v;
  } else {
    const v = pick(row.task_id) ?? pick(row.prompt_id);
    if (v !== undefined) return v;
    if (typeof row.env === "string" && row.task !== undefined && row.rollout !== undefined) return `${row.env}/${pick(row.task)}`;
  }
  return `prompt:${hashHex(JSON.stringify(prompt))}`;
}

/** The tags of a row from `tagField` (default "tags"): a string or a list of strings. */
export function tagsOf(row: Raw, tagField = "tags"): string[] {
  const v = getPath(row, tagField);
  if (typeof v === "string") return [v];
  if (typeof v === "number") return [String(v)];
  if (Array.isArray(v)) return v.filter((t) => typeof t === "string" || typeof t === "number").map(String);
  return [];
}

const REF_FIELDS = ["id", "task_id", "prompt_id", "env", "task", "model", "rollout"];

/** Normalises a scored input line; `null` when it holds no usable prompt and response. */
export function normalizeRow(row: Raw, index: number, options: RowOptions = {}): DistillRow | null {
  const messages = conversationOf(row, options);
  if (!messages) return null;
  const { prompt, completion } = splitConversation(messages);
  if (!completion.some((m) => m.role === "assistant") || prompt.length === 0) return null;
  const lastAssistant = [...completion].reverse().find((m) => m.role === "assistant");
  const read = readReward(row.reward);
  const reward = read.problem ? null : read.reward;
  const ref: Record<string, unknown> = {};
  for (const f of REF_FIELDS) if (row[f] !== undefined) ref[f] = row[f];
  const out: DistillRow = {
    index,
    group: groupKey(row, prompt, options.groupBy),
    prompt,
    completion,
    response: lastAssistant?.content ?? "",
    reward,
    verdicts: readVerdicts(row.verdicts),
    tokens: completionTokens(row, completion),
    tags: tagsOf(row, options.tagField),
    ref,
  };
  if (read.problem) out.rewardProblem = read.problem;
  if (reward === null && Array.isArray(row.errors)) {
    out.errorCodes = row.errors.map((e: Raw) => String(e?.code ?? "ERROR"));
    const first = row.errors[0] as Raw | undefined;
    if (first && typeof first.message === "string") out.errorMessage = `${typeof first.criterion === "string" ? `${first.criterion}: ` : ""}${String(first.code ?? "ERROR")}: ${first.message}`;
  }
  if (Array.isArray(row.tools) && row.tools.length > 0) out.tools = row.tools.map(toOpenAITool);
  return out;
}

/** A tool declaration in OpenAI's `{type: "function", function: {...}}` shape. */
function toOpenAITool(t: unknown): unknown {
  const raw = t as Raw;
  if (raw?.type === "function" && raw.function) return raw;
  return { type: "function", function: { name: raw?.name, description: raw?.description, parameters: raw?.parameters ?? { type: "object", properties: {} } } };
}

/**
 * A line's reward: a number in [0, 1], or null when absent or null (an error upstream). Anything
 * else — 7, -1, the string "0.9" — is a problem that drops the row with its own reason, never a
 * silent reward and never a stop of the whole run.
 * @example readReward(7) // { reward: null, problem: "reward 7 is outside [0, 1]" }
 */
export function readReward(value: unknown): { reward: number | null; problem?: string } {
  if (value === null || value === undefined) return { reward: null };
  if (typeof value !== "number") return { reward: null, problem: `reward ${JSON.stringify(value).slice(0, 40)} is a ${typeof value}, not a number` };
  if (!Number.isFinite(value) || value < 0 || value > 1) return { reward: null, problem: `reward ${value} is outside [0, 1]` };
  return { reward: value };
}

/** True when a line already carries a score (a `reward` key, whatever its value): no re-scoring unless asked. */
export const isScored = (row: Raw): boolean => Object.hasOwn(row, "reward");

/**
 * The sample a rubric scores for a row: its own fields, plus for chat rows the response input
 * (the last assistant text) and the prompt input (the user turns, joined by blank lines).
 */
export function sampleForRubric(row: Raw, inputs: string[], responseField = "response"): Raw {
  // An eval rollout carries the sample its rubric saw (task inputs, final state): score that.
  if (isRolloutRecord(row) && row.sample) return sampleOfRollout(row);
  if (!Array.isArray(row.messages)) return row;
  const messages = row.messages.map(toChatLine).filter((m): m is ChatLine => m !== null);
  const sample: Raw = { ...row };
  const lastAssistant = [...messages].reverse().find((m) => m.role === "assistant");
  if (sample[responseField] === undefined && lastAssistant) sample[responseField] = lastAssistant.content ?? "";
  const users = messages.filter((m) => m.role === "user").map((m) => m.content ?? "").join("\n\n");
  const promptInputs = inputs.includes("prompt") ? ["prompt"] : inputs.filter((i) => i !== responseField && i !== "answer");
  if (promptInputs.length === 1 && sample[promptInputs[0]] === undefined) sample[promptInputs[0]] = users;
  if (sample.prompt === undefined) sample.prompt = users;
  return sample;
}
