import type { Example, Rubric } from "../rubric/schema.js";
import type { Sample, Usage, VerdictOrError } from "../types.js";

/** One binary question for a judge, its `{{variables}}` already filled from the sample. */
export interface JudgeQuestion {
  id: string;
  question: string;
  examples?: Example[];
  /** Asked in a call of its own, never batched with other questions (`judge_mode: single`). */
  alone?: boolean;
  /** The judge must quote the deciding span of the sample; a quote not in the sample is re-asked. */
  quote?: boolean;
  /** Part of the cache key: bump a criterion's version to re-ask it. */
  version?: string | number;
}

/** What a judge is asked about one sample. */
export interface JudgeRequest {
  rubric: Pick<Rubric, "id" | "description" | "context" | "inputs" | "response_field"> & { max_criteria?: number };
  sample: Sample;
  questions: JudgeQuestion[];
  /** Ask again as a separate call (order-flip baselines): part of the cache key, so a repeat is a fresh answer that a re-run replays. */
  repeat?: number;
}

/** A judge's answers for one request: one entry per question id, and what it cost. */
export interface JudgeAnswer {
  verdicts: Map<string, VerdictOrError>;
  usage: Usage;
}

/**
 * Anything that answers binary questions about a sample: an LLM judge over a provider, or a
 * scripted one in tests. Never answers a question it could not parse with "no": that is an error.
 */
export interface Judge {
  readonly id: string;
  answer(request: JudgeRequest, options?: { signal?: AbortSignal }): Promise<JudgeAnswer>;
  /** Totals since the judge was created. */
  usage(): Usage;
  /** Releases the cache and timers the judge owns. */
  close?(): void | Promise<void>;
}
