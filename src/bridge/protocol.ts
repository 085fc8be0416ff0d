/**
 * Wire formats of the reward server: request schemas (zod, so a 400 can name the wrong field) and
 * the adapters between each trainer's shape and rubricate's samples and results.
 */
import { z } from "zod";
import type { Rubric } from "../rubric/schema.js";
import type { CriterionResult, Sample, ScoreResult } from "../types.js";
import { HttpError } from "./http.js";

const SampleSchema = z.record(z.string(), z.unknown());

/** `POST /v1/score`: samples as the rubric's inputs. */
export const ScoreRequestSchema = z.looseObject({ samples: z.array(SampleSchema) });

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
  /** Trailing end-of-turn markers removed from a response (the query is decoded with special tokens). */
  stripSuffixes: string[];
}

/** End-of-sequence markers of common chat templates. */
export const DEFAULT_STRIP_SUFFIXES = ["<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end_of_text|>", "<|end|>", "</s>", "<end_of_turn>", "<eos>", "<｜end▁of▁sentence｜>"];

const PROMPT_NAMES = ["prompt", "question", "query", "input", "instruction"];
const LABEL_NAMES = ["reference", "answer", "label", "ground_truth", "solution", "target", "expected"];

/**
 * The mapping for a rubric: explicit names win; otherwise the rubric's `response_field` (or
 * `response`), and the first conventional prompt and label names among its inputs.
 * @example defaultMapping(rubric, { label: "answer" })
 */
export function defaultMapping(rubric: Pick<Rubric, "inputs" | "response_field">, explicit: Partial<FieldMapping> = {}): FieldMapping {
  const response = explicit.response ?? rubric.response_field ?? "response";
  const pick = (names: string[]) => names.find((n) => n !== response && rubric.inputs.includes(n));
  return {
    response,
    prompt: explicit.prompt ?? pick(PROMPT_NAMES),
    label: explicit.label ?? pick(LABEL_NAMES.filter((n) => n !== explicit.prompt)),
    stripSuffixes: explicit.stripSuffixes ?? DEFAULT_STRIP_SUFFIXES,
  };
}

/** The response inside an OpenRLHF query: the text after its prompt, end markers and padding removed. */
export function responseOf(query: string, prompt: string | undefined, strip: string[]): string | undefined {
  if (prompt !== undefined && !query.startsWith(prompt)) return undefined;
  let text = prompt === undefined ? query : query.slice(prompt.length);
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

/** One OpenRLHF row as a sample, or the reason it cannot be one. */
export type MappedRow = { sample: Sample } | { error: string };

/** Turns an OpenRLHF request into samples (a label that is a JSON object supplies inputs by name, and wins over the prompt). */
export function openrlhfSamples(request: z.infer<typeof OpenRLHFRequestSchema>, mapping: FieldMapping): MappedRow[] {
  const n = request.query.length;
  if (request.prompts !== undefined && request.prompts.length !== n) throw new HttpError(400, "INVALID_REQUEST", `prompts: ${request.prompts.length} prompts for ${n} queries; send one per query`, "prompts");
  const labels = request.labels ?? undefined;
  if (labels !== undefined && labels.length !== n) throw new HttpError(400, "INVALID_REQUEST", `labels: ${labels.length} labels for ${n} queries; send one per query`, "labels");
  return request.query.map((query, i): MappedRow => {
    const prompt = request.prompts?.[i];
    const response = responseOf(query, prompt, mapping.stripSuffixes);
    if (response === undefined) return { error: "BAD_INPUT: the query does not start with its prompt, so the response cannot be cut out of it" };
    const sample: Sample = {};
    const label = labels?.[i];
    if (label !== null && typeof label === "object" && !Array.isArray(label)) Object.assign(sample, label);
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

const logValue = (v: CriterionResult | undefined): number | null => (v === undefined || v.status === "error" ? null : v.status === "met" ? 1 : 0);

/**
 * OpenRLHF's answer: `rewards` (advantages), `scores` (its 0–1 dynamic-filtering signal; the
 * same numbers, rubric rewards are already in [0, 1]), `extra_logs` per criterion (1 met, 0 not
 * met or skipped, null on error) plus `rubricate_error` (1 when the reward is null), and
 * `errors` parallel to `rewards`.
 */
export function openrlhfResponse(rows: (ScoreResult | string)[]): { rewards: (number | null)[]; scores: (number | null)[]; extra_logs: Record<string, (number | null)[]>; errors: (string | null)[] } {
  const ids: string[] = [];
  for (const row of rows) if (typeof row !== "string") for (const v of row.verdicts) if (!ids.includes(v.id)) ids.push(v.id);
  const extra: Record<string, (number | null)[]> = Object.fromEntries(ids.map((id) => [id, []]));
  extra.rubricate_error = [];
  const rewards: (number | null)[] = [];
  const errors: (string | null)[] = [];
  for (const row of rows) {
    const result = typeof row === "string" ? undefined : row;
    rewards.push(result?.reward ?? null);
    errors.push(result ? errorText(result) : (row as string));
    for (const id of ids) extra[id].push(result ? logValue(result.verdicts.find((v) => v.id === id)) : null);
    extra.rubricate_error.push(result?.reward === null || !result ? 1 : 0);
  }
  return { rewards, scores: [...rewards], extra_logs: extra, errors };
}
