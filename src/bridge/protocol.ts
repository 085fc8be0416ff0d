/**
 * Wire formats of the reward server: request schemas (zod, so a 400 can name the wrong field) and
 * the adapters between each trainer's shape and rubricate's samples and results.
 */
import * as z from "zod";
import type { Rubric } from "../rubric/schema.js";
import type { Sample, ScoreResult } from "../types.js";
import { failureFunction, kmpStep } from "../text/kmp.js";
import { refuseTooDeep } from "./depth.js";
import { HttpError } from "./http.js";

const SampleSchema = z.record(z.string(), z.unknown());

/** `POST /v1/score`: samples as the rubric's inputs. */
export const ScoreRequestSchema = z.looseObject({
  samples: z.array(SampleSchema),
  /**
   * GRPO groups: responses whose sample has the same value of this field form a group, and the
   * answer adds `advantages` (reward minus the group mean, over the group's std unless `advantage`
   * says otherwise); a sample without a reward gets a null advantage.
   */
  group_by: z.string().min(1).max(256).optional(),
  advantage: z.enum(["group", "batch", "none"]).optional(),
});

/** `POST /v1/score/one`: one sample. */
export const ScoreOneRequestSchema = z.looseObject({ sample: SampleSchema });

/** `POST /get_reward` (OpenRLHF remote reward model). Unknown keys (forks add some) are ignored. */
export const OpenRLHFRequestSchema = z.looseObject({
  query: z.array(z.string()),
  prompts: z.array(z.string()).optional(),
  labels: z.array(z.unknown()).nullable().optional(),
});

/** Parses `value` with `schema`, or throws a 400 naming the first wrong field (`samples.3`, `query.0`). */
export function parseRequest<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue.path.map(String).join(".");
  throw new HttpError(400, "INVALID_REQUEST", `${field || "body"}: ${issue.message}`, field || undefined);
}

/** How OpenRLHF's `query`/`prompts`/`labels` map onto the rubric's inputs. */
export interface FieldMapping {
  /** The input that receives the response text (query minus its prompt). */
  response: string;
  /** The input that receives the prompt text, if any. */
  prompt?: string;
  /** The input that receives a label that is not a JSON object, if any. */
  label?: string;
  /** Inputs that JSON-object labels carry by name (declared so `serve` can check every input is fed). */
  labelFields: string[];
  /** Trailing end-of-turn markers removed from a response (the query is decoded with special tokens). */
  stripSuffixes: string[];
}

/** End-of-sequence markers of common chat templates. */
export const DEFAULT_STRIP_SUFFIXES = ["<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end_of_text|>", "<|end|>", "</s>", "<end_of_turn>", "<eos>", "<｜end▁of▁sentence｜>"];

// Conventional names, first match wins: OpenRLHF's `prompts[i]` feeds the prompt input, `labels[i]` the label input.
const PROMPT_NAMES = ["prompt", "question", "problem", "query", "input", "instruction", "task", "message"];
const LABEL_NAMES = ["reference", "answer", "label", "ground_truth", "solution", "target", "expected", "gold"];

/**
 * The mapping for a rubric: explicit names win; otherwise the rubric's `response_field` (or
 * `response`), and the first conventional prompt and label names among its inputs.
 * @example defaultMapping(rubric, { label: "answer" })
 */
export function defaultMapping(rubric: Pick<Rubric, "inputs" | "response_field">, explicit: Partial<FieldMapping> = {}): FieldMapping {
  const response = explicit.response ?? rubric.response_field ?? "response";
  const pick = (names: string[]) => names.find((n) => n !== response && rubric.inputs.includes(n));
  const prompt = explicit.prompt ?? pick(PROMPT_NAMES.filter((n) => n !== explicit.label));
  return {
    response,
    prompt,
    label: explicit.label ?? pick(LABEL_NAMES.filter((n) => n !== prompt)),
    labelFields: explicit.labelFields ?? [],
    stripSuffixes: explicit.stripSuffixes ?? DEFAULT_STRIP_SUFFIXES,
  };
}

/**
 * The rubric inputs an OpenRLHF request cannot feed with this mapping (not the response, prompt
 * or label input, nor a declared field of JSON-object labels). `serve` refuses to start with any.
 */
export function unfedInputs(rubric: Pick<Rubric, "inputs">, mapping: FieldMapping): string[] {
  const fed = new Set([mapping.response, mapping.prompt, mapping.label, ...mapping.labelFields].filter((n): n is string => n !== undefined));
  return rubric.inputs.filter((name) => !fed.has(name));
}

/** Characters a decoded left-cut prompt may start with that are not in the prompt (a split multi-byte character decodes to U+FFFD). */
const CUT_SLACK = 4;
/** Lengths of the prompt tail searched for in the query, longest first (a cut may keep less than the longest). */
const ANCHORS = [64, 24, 8];

/**
 * Where the prompt ends inside the query, or -1. The query normally starts with the whole prompt;
 * OpenRLHF cuts prompts longer than its budget from the LEFT (keeping their last tokens), so the
 * query may start with only the prompt's end, possibly after a few undecodable characters. The
 * longest head of the query that is a suffix of the prompt wins (chat templates repeat markers,
 * so a shorter match can be a false one): the first anchor length (64, 24, 8 characters, at most
 * the prompt) that some head after 0 to CUT_SLACK skipped characters reaches decides, and among
 * those heads the one ending furthest in wins.
 *
 * Linear in the prompt: each skip's longest head is one KMP pass. Trying every occurrence of an
 * anchor against the prompt's end instead was quadratic, and a client's 250,000-character prompt
 * held the event loop for ~19 s.
 */
export function promptEnd(query: string, prompt: string): number {
  if (query.startsWith(prompt)) return prompt.length;
  const heads = Array.from({ length: CUT_SLACK + 1 }, (_, skip) => longestHeadEndingText(query.slice(skip, skip + prompt.length), prompt));
  for (const size of ANCHORS) {
    const anchor = Math.min(size, prompt.length);
    let best = -1;
    heads.forEach((head, skip) => {
      if (head >= anchor) best = Math.max(best, skip + head);
    });
    if (best >= 0) return best;
  }
  return -1;
}

/**
 * The length of the longest prefix of `candidate` that is a suffix of `text` (Knuth-Morris-Pratt:
 * the prefix function of `candidate`, then one pass over the end of `text` it could overlap).
 * Works on UTF-16 code units, as `startsWith`/`endsWith` do; no separator character is assumed
 * absent from either string.
 */
function longestHeadEndingText(candidate: string, text: string): number {
  if (candidate.length === 0) return 0;
  const border = failureFunction(candidate);
  let matched = 0;
  for (let i = Math.max(0, text.length - candidate.length); i < text.length; i++) matched = kmpStep(candidate, border, matched, text.charCodeAt(i));
  return matched;
}

/** The response inside an OpenRLHF query: the text after its prompt (or the prompt's kept end), end markers and padding removed. */
export function responseOf(query: string, prompt: string | undefined, strip: string[]): string | undefined {
  let text = query;
  if (prompt !== undefined) {
    const end = promptEnd(query, prompt);
    if (end < 0) return undefined;
    text = query.slice(end);
  }
  for (let changed = true; changed; ) {
    changed = false;
    const trimmed = text.trimEnd();
    for (const suffix of strip) {
      if (suffix && trimmed.endsWith(suffix)) {
        text = trimmed.slice(0, -suffix.length);
        changed = true;
      }
    }
  }
  return text.trim();
}

/**
 * A JSON-object label's fields, without `__proto__`: JSON.parse makes that an own key, and
 * assigning it would set the sample's prototype, so a client's label could add inherited fields
 * that no own-key check sees (zod drops the key from /v1/score's samples the same way).
 */
function ownFields(label: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(label).filter(([key]) => key !== "__proto__"));
}

/** One OpenRLHF row as a sample, or the reason it cannot be one. */
export type MappedRow = { sample: Sample } | { error: string };

/** Turns an OpenRLHF request into samples (a label that is a JSON object supplies inputs by name, and wins over the prompt). */
export function openrlhfSamples(request: z.infer<typeof OpenRLHFRequestSchema>, mapping: FieldMapping): MappedRow[] {
  const n = request.query.length;
  if (request.prompts !== undefined && request.prompts.length !== n) throw new HttpError(400, "INVALID_REQUEST", `prompts: ${request.prompts.length} prompts for ${n} queries; send one per query`, "prompts");
  const labels = request.labels ?? undefined;
  if (labels !== undefined && labels.length !== n) throw new HttpError(400, "INVALID_REQUEST", `labels: ${labels.length} labels for ${n} queries; send one per query`, "labels");
  // Before anything walks a label by recursion (JSON.stringify of a non-object label would overflow the stack).
  if (labels !== undefined) refuseTooDeep(labels, (i) => `labels.${i}`);
  return request.query.map((query, i): MappedRow => {
    const prompt = request.prompts?.[i];
    const response = responseOf(query, prompt, mapping.stripSuffixes);
    if (response === undefined) return { error: "BAD_INPUT: the query does not start with its prompt (nor with the prompt's end, as after a left cut), so the response cannot be cut out of it" };
    const sample: Sample = {};
    const label = labels?.[i];
    if (label !== null && typeof label === "object" && !Array.isArray(label)) Object.assign(sample, ownFields(label));
    else if (label !== undefined && label !== null && mapping.label) sample[mapping.label] = typeof label === "string" ? label : JSON.stringify(label);
    if (mapping.prompt && prompt !== undefined && sample[mapping.prompt] === undefined) sample[mapping.prompt] = prompt;
    sample[mapping.response] = response;
    return { sample };
  });
}

/** The reason a result has no reward, as one line; null when it has one. */
export function errorText(result: ScoreResult): string | null {
  if (result.reward !== null) return null;
  if (result.errors.length === 0) return "no reward";
  return result.errors.map((e) => `${e.criterion === "*" ? "" : `${e.criterion}: `}${e.code}: ${e.message}`).join("; ");
}

/** A result as it goes on the wire (usage is reported per request, not per sample). */
export function wireResult(result: ScoreResult): Omit<ScoreResult, "usage"> {
  const { usage: _usage, ...rest } = result;
  return rest;
}

/** Outcome of one OpenRLHF row: a result, or the reason it was not scored. */
export type RowOutcome = ScoreResult | string;

/** What `/get_reward` answers; every number a float, none null (see `trainerJson`). */
export interface OpenRLHFAnswer {
  rewards: number[];
  scores: number[];
  extra_logs: Record<string, number[]>;
  errors: (string | null)[];
}

/**
 * The `extra_logs` keys of a server: fixed for the rubric, so every response (even an empty one)
 * carries the same keys; OpenRLHF reads the first response's keys from every other.
 */
export function extraLogKeys(criterionIds: string[]): string[] {
  return [...criterionIds, "rubricate_error", ...criterionIds.map((id) => `rubricate_error/${id}`)];
}

/**
 * OpenRLHF's answer. `rewards` (advantages) and `scores` (its 0-1 dynamic-filtering signal) are
 * the rubric reward, or `fallback` for a sample without one. `extra_logs`: per criterion 1 met, 0
 * not met, skipped or errored; `rubricate_error` 1 when the sample got the fallback or had any
 * error (so `--errors zero` cannot hide an outage behind zeros); and
 * `rubricate_error/<criterion>` 1 when that criterion errored (their batch means are error rates).
 * `errors` is parallel to `rewards` (null when the reward is real). Criteria a sample brought
 * itself are not logged (their ids vary between requests).
 */
export function openrlhfResponse(rows: RowOutcome[], criterionIds: string[], fallback: number): OpenRLHFAnswer {
  const extra: Record<string, number[]> = Object.fromEntries(extraLogKeys(criterionIds).map((k) => [k, []]));
  const rewards: number[] = [];
  const errors: (string | null)[] = [];
  for (const row of rows) {
    const result = typeof row === "string" ? undefined : row;
    const reward = result?.reward ?? null;
    rewards.push(reward ?? fallback);
    errors.push(result ? errorText(result) : (row as string));
    extra.rubricate_error.push(reward === null || (result?.errors.length ?? 0) > 0 ? 1 : 0);
    for (const id of criterionIds) {
      const verdict = result?.verdicts.find((v) => v.id === id);
      extra[id].push(verdict?.status === "met" ? 1 : 0);
      extra[`rubricate_error/${id}`].push(!result || verdict?.status === "error" || (result.errors.some((e) => e.criterion === "*") && reward === null) ? 1 : 0);
    }
  }
  return { rewards, scores: [...rewards], extra_logs: extra, errors };
}

/**
 * JSON text in which every number is written as a float (`1.0`, `0.0`): Python's json then gives
 * floats, so OpenRLHF's `torch.as_tensor` makes a float tensor (an all-integer list would be
 * int64, and `std()` of it fails). Non-finite numbers cannot be written and throw.
 */
export function trainerJson(value: unknown): string {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError(`cannot send ${value} to a trainer`);
    return Number.isInteger(value) && Math.abs(value) < 1e21 ? value.toFixed(1) : String(value);
  }
  if (Array.isArray(value)) return `[${value.map(trainerJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) if (v !== undefined) parts.push(`${JSON.stringify(k)}:${trainerJson(v)}`);
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
