/** Types shared by the distillation pipeline: normalised rows, options, export formats. */

/** A chat message in OpenAI's wire shape, the shape every export writes. */
export interface ChatLine {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** A criterion's outcome as distillation reads it. */
export interface RowVerdict {
  id: string;
  status: "met" | "unmet" | "skipped" | "error";
  /** Negative for a pitfall (met = bad). */
  points: number;
}

/** One input row after normalisation: a prompt, a completion, its score, and what filters read. */
export interface DistillRow {
  /** 0-based position in the input (blank lines not counted; after --sort, in the sorted stream). */
  index: number;
  /** The group (prompt) this row belongs to. */
  group: string;
  /** Messages through the last user/system turn. */
  prompt: ChatLine[];
  /** The trailing assistant/tool turns: what the model is trained to produce. */
  completion: ChatLine[];
  /** The last assistant message's text (what length limits read). */
  response: string;
  reward: number | null;
  verdicts: RowVerdict[];
  /** Error codes of an unscored row. */
  errorCodes?: string[];
  /** Its first error, `criterion: CODE: message`, for the report's warning. */
  errorMessage?: string;
  /** Why the line's reward could not be used (not a number, outside [0, 1]); the row is dropped for it. */
  rewardProblem?: string;
  /** Completion tokens: usage.outputTokens when the row has it, else ⌈characters / 4⌉. */
  tokens: number;
  tags: string[];
  /** Tools declared to the model (OpenAI `tools` shape), exported with the conversation. */
  tools?: unknown[];
  /** Carried to `metadata` with --with-metadata: the row's id, task, model, rollout index. */
  ref: Record<string, unknown>;
}

/** A chosen/rejected pair of one prompt. */
export interface PreferencePair {
  group: string;
  prompt: ChatLine[];
  chosen: DistillRow;
  rejected: DistillRow;
}

/** Export formats. */
export const FORMATS = ["openai", "trl-messages", "trl-prompt-completion", "dpo", "openai-dpo"] as const;
/** One of `FORMATS`. */
export type ExportFormat = (typeof FORMATS)[number];

/** True for the formats made of preference pairs. */
export const isPreferenceFormat = (f: ExportFormat): boolean => f === "dpo" || f === "openai-dpo";

/** Every filter; each is off unless set. */
export interface FilterOptions {
  /** Keep rows with reward ≥ this. */
  minReward?: number;
  /** Criteria that must be met (pitfalls, with negative points: must not be met). */
  require?: string[];
  /** Keep the best n rows of each group. */
  bestOf?: number;
  /** Keep the top fraction (0, 1] of rows (pairs: by chosen reward) across the whole run. */
  topFraction?: number;
  /** Keep a group only when its best reward beats its worst by at least this. */
  margin?: number;
  minChars?: number;
  maxChars?: number;
  /** On completion tokens (usage when present, else ⌈characters / 4⌉). */
  maxTokens?: number;
  /** "none", "exact" (default) or "near" (exact, then MinHash LSH). */
  dedup?: "none" | "exact" | "near";
  /** Jaccard threshold for near-duplicates (default 0.8). */
  nearThreshold?: number;
  /** Characters per shingle (default 5). */
  ngram?: number;
  /** What dedup compares: the whole conversation (default) or the completion only. */
  dedupOn?: "conversation" | "completion";
  /** Keep at most this many rows (pairs) per tag. */
  maxPerTag?: number;
}

/** How rows are read and grouped. */
export interface RowOptions {
  /** A field (dot path) holding the group key; default task_id, prompt_id, env+task, else a hash of the prompt. */
  groupBy?: string;
  /** A field (dot path) holding a tag or a list of tags (default "tags"). */
  tagField?: string;
  /** Builds the user turn of a non-chat row from its fields ({{var}}). */
  promptTemplate?: string;
  /** The field holding the response of a non-chat row (default: the rubric's response_field, else "response"). */
  responseField?: string;
  /** The rubric's inputs, to find the prompt field of a non-chat row. */
  inputs?: string[];
}
