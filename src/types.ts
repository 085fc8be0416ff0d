import type { ErrorCode, RubricateError } from "./errors.js";

/** A sample: the rubric's inputs by name, plus optional extra criteria of its own (HealthBench-style). */
export interface Sample {
  [input: string]: unknown;
  /** Extra criteria for this sample only, merged after the rubric's. */
  criteria?: unknown[];
  /** An id carried through to results. */
  id?: string | number;
}

/** A judge's or a check's answer to one binary criterion. */
export interface Verdict {
  pass: boolean;
  /** P(yes): vote share, or renormalised from logprobs when the provider gives them. */
  probability?: number;
  reasoning?: string;
  /** The span of the sample the judge quoted (criteria with `quote: true`). */
  quote?: string;
  source: "llm" | "check";
  /** Votes cast when `samples > 1`. */
  votes?: { yes: number; no: number };
  /** Partial credit in [0, 1] from a check (share of tests passed, similarity): the share of the criterion's points earned. */
  score?: number;
  /**
   * A check the response made unable to answer (its pattern backtracked past the deadline, its
   * formula past the time limit): `pass` is false; scoring counts a pitfall (negative points) as hit.
   */
  forfeit?: boolean;
  /**
   * What the check looks for is in the text only where a page does not show it (an HTML comment, a
   * hidden element), or the text as written and as a page shows it disagree on it (`regex`): `pass`
   * is false; scoring counts a pitfall (negative points) as hit.
   */
  unshown?: boolean;
}

/** Token usage and calls of some work, summed. */
export interface Usage {
  calls: number;
  cacheHits: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
}

export const emptyUsage = (): Usage => ({ calls: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0 });

export function addUsage(into: Usage, more: Partial<Usage>): Usage {
  into.calls += more.calls ?? 0;
  into.cacheHits += more.cacheHits ?? 0;
  into.inputTokens += more.inputTokens ?? 0;
  into.outputTokens += more.outputTokens ?? 0;
  into.cachedInputTokens += more.cachedInputTokens ?? 0;
  into.costUsd += more.costUsd ?? 0;
  return into;
}

/** An answer to one criterion, or the error that prevented one. Never an error silently read as "no". */
export type VerdictOrError = Verdict | RubricateError;

/** How one criterion fared in a scored sample. */
export interface CriterionResult {
  id: string;
  /** met: the criterion's answer is yes; unmet: no; skipped: its `when` failed; error: no answer. */
  status: "met" | "unmet" | "skipped" | "error";
  points: number;
  /** Points this criterion contributed (negative for a met pitfall). */
  earned: number;
  required: boolean;
  source: "llm" | "check";
  probability?: number;
  /** Partial credit in [0, 1] a check gave (the share of `points` earned). */
  score?: number;
  reasoning?: string;
  /** The span of the sample the judge quoted (criteria with `quote: true`). */
  quote?: string;
  question?: string;
  error?: { code: ErrorCode; message: string };
}

/** The score of one sample under a rubric. */
export interface ScoreResult {
  /** In [0, 1], or null when errors prevented a reward (never a made-up 0). */
  reward: number | null;
  /** reward ≥ pass_threshold, when the rubric sets one and the reward exists. */
  passed?: boolean | null;
  verdicts: CriterionResult[];
  errors: { criterion: string; code: ErrorCode; message: string }[];
  /** What failed and why, one line each, for people and for optimisers. */
  feedback: string;
  /** Set when a required criterion failed. */
  gated?: boolean;
  id?: string | number;
  usage?: Usage;
}

/** What to do with a sample when a criterion could not be answered. */
export const ERROR_POLICIES = ["null", "zero", "skip-criterion"] as const;
/**
 * What a criterion error does to the reward: null (no reward), zero, or skip-criterion (score the
 * rest; a judge error the response can cause, JUDGE_REFUSAL or JUDGE_PARSE, still withholds it).
 */
export type ErrorPolicy = (typeof ERROR_POLICIES)[number];

/**
 * Errors the response itself can cause: a judge that refused to answer about it, or whose answers
 * stayed unreadable (or quoted what it does not say) over every attempt, which a response written
 * to derail the judge can bring about. `skip-criterion` does not leave these out: a response that
 * fails a criterion could otherwise drop it from its reward by making the judge refuse. They
 * withhold the reward instead, as under `null`; an error of the machinery (a provider down, a
 * timeout, a check that cannot run) is still left out.
 */
export const RESPONSE_CAUSABLE_ERRORS: ReadonlySet<string> = new Set(["JUDGE_PARSE", "JUDGE_REFUSAL"]);

/** Whether an error with this code withholds the reward under `policy` (rather than zeroing it, or leaving its criterion out). */
export const withholdsReward = (policy: ErrorPolicy, code: string): boolean => policy === "null" || (policy === "skip-criterion" && RESPONSE_CAUSABLE_ERRORS.has(code));
