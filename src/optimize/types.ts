/** A candidate: named text components (a system prompt, a judge question, ...). */
export type Candidate = Record<string, string>;

/** What an evaluation of one candidate on some instances returns, one entry per instance. */
export interface EvalResult {
  /** Scores in [0, perfectScore]; higher is better. */
  scores: number[];
  /** What the system did on each instance (outputs, transcripts), when traces were asked for. */
  traces?: unknown[];
  /** Why each instance scored as it did (for rubrics: failed criteria with the judge's reasons). */
  feedback?: string[];
}

/** Runs a candidate on instances; each instance passed costs one metric call. */
export type Evaluate<I> = (
  candidate: Candidate,
  instances: I[],
  options: { captureTraces: boolean; signal?: AbortSignal },
) => Promise<EvalResult>;

/** One row of the reflective dataset shown to the reflection model. */
export interface ReflectiveRecord<I = unknown> {
  input: I;
  /** The trace of the run (undefined when the evaluator returned none). */
  output: unknown;
  score: number;
  feedback: string;
}

/** Asks the reflection model for a new text of one component; returns its raw output. */
export type Reflect<I> = (args: {
  candidate: Candidate;
  component: string;
  reflectiveDataset: ReflectiveRecord<I>[];
  signal?: AbortSignal;
  /**
   * The run's reflection call number (1-based, saved with the state). A reflector that caches
   * should key on it: a resumed run then re-asks an interrupted call for free, while a later
   * call with the same prompt is asked afresh (a sampled model may answer differently).
   */
  call?: number;
}) => Promise<string>;

/** When to stop; the first condition met ends the run. Checked between iterations. */
export interface StopConditions {
  /** Metric calls (instances evaluated); the smaller of this and `budget` applies. */
  maxMetricCalls?: number;
  /** Metric calls plus reflection calls: every paid call of the run, as `rubricate optimize --budget` counts them. */
  maxTotalCalls?: number;
  /** Stop after this many iterations without a better best mean valset score. */
  noImprovementIterations?: number;
  /** Stop once the best mean valset score reaches this. */
  targetScore?: number;
  /** Wall-clock limit of this process's run, in ms (not carried over a resume). */
  timeMs?: number;
  /** Stop when this file exists. */
  stopFile?: string;
  /** Stop after this many iterations in total. */
  maxIterations?: number;
  /** Stop once this many reflection calls have been made. */
  maxReflectionCalls?: number;
  /** Stop once `reflectionCostUsd()` reaches this many USD (the reference's `max_reflection_cost`). */
  maxReflectionCostUsd?: number;
}

/** Why a proposal was not evaluated. */
export type ProposalFailure = "unfenced" | "truncated" | "reasoning" | "empty" | "reflect_error" | "invalid";

/** What happened in one iteration, for progress display. */
export type ProgressEvent =
  | { type: "seed"; metricCalls: number; meanScore: number }
  | {
      type: "iteration";
      iteration: number;
      kind: "accepted" | "rejected" | "duplicate" | "skipped_perfect" | "skipped_no_data" | "failed_proposal" | "merge_accepted" | "merge_rejected";
      parent?: number;
      child?: number;
      metricCalls: number;
      reflectionCalls: number;
      bestScore: number;
      detail?: string;
    }
  | { type: "warning"; message: string };

/** Everything about one candidate found during a run. */
export interface CandidateRecord {
  index: number;
  candidate: Candidate;
  /** Parent indices: none for the seed, one for a reflection, two for a merge. */
  parents: number[];
  tag: "seed" | "reflection" | "merge" | "random";
  /** Component the reflection rewrote, for reflection children. */
  component?: string;
  /** Valset score of every instance, in valset order. */
  valScores: number[];
  meanScore: number;
  iteration: number;
  /** Metric calls spent when this candidate's valset evaluation finished. */
  discoveredAtCalls: number;
  /** Warnings about this candidate (e.g. `copies-training-input:4`). */
  flags: string[];
  /** Round-robin pointer: which component to rewrite next when this candidate is the parent. */
  nextComponent: number;
}

/** A point of the best-so-far curve. */
export interface CurvePoint {
  metricCalls: number;
  bestScore: number;
}

/** Why a run ended. */
export type StopReason =
  | "budget"
  | "no_improvement"
  | "target_score"
  | "time"
  | "stop_file"
  | "max_iterations"
  | "aborted"
  | "stalled"
  | "reflection_budget";

/** A proposal that was thrown away before evaluation. */
export interface FailedProposal {
  iteration: number;
  reason: ProposalFailure;
  detail: string;
}

/** The outcome of `optimize` or `randomSearch`. */
export interface OptimizeResult {
  best: { index: number; candidate: Candidate; meanScore: number; lineage: number[] };
  candidates: CandidateRecord[];
  /** For each valset instance, the candidates with the best score on it (after dominated ones are removed). */
  front: number[][];
  budget: { metricCalls: number; maxMetricCalls: number; reflectionCalls: number; cacheHits: number };
  curve: CurvePoint[];
  iterations: number;
  stopReason: StopReason;
  failedProposals: FailedProposal[];
  warnings: string[];
}

/** Options of `optimize` and `randomSearch`. */
export interface OptimizeOptions<I> {
  /** The starting candidate; its component names are the ones rewritten (round robin). */
  seed: Candidate;
  evaluate: Evaluate<I>;
  reflect: Reflect<I>;
  /** Minibatches for reflection come from here. */
  trainset: readonly I[];
  /** Candidates are compared, and the Pareto front kept, on these instances. */
  valset: readonly I[];
  /** Metric calls allowed (one per instance evaluated; cache hits are free). */
  budget: number;
  /** Training instances per reflection (default 3). */
  minibatchSize?: number;
  /** Seed of the PRNG every random choice comes from (default 0). */
  rngSeed?: number;
  /** A child is accepted when its minibatch sum beats the parent's by more than this (default 0). */
  acceptTolerance?: number;
  /** The best score an instance can get (default 1). */
  perfectScore?: number;
  /** Skip reflection when the parent is perfect on the whole minibatch (default true). */
  skipPerfect?: boolean;
  /** Try merging two front members through a common ancestor after accepted proposals (default false). */
  useMerge?: boolean;
  /**
   * How the parent of a reflection is chosen: `pareto` (default: the reference's draw from the
   * per-instance Pareto front, weighted by the number of instances each member is best on),
   * `current_best` (the best mean valset score: greedy hill-climbing) or `uniform` (any
   * candidate of the pool, equally likely).
   */
  candidateSelection?: "pareto" | "current_best" | "uniform";
  /** Merges accepted at most (default 5). */
  maxMergeInvocations?: number;
  stop?: StopConditions;
  /** Where the run's state is written after every iteration. */
  stateFile?: string;
  /** Continue from `stateFile` when it exists (it must come from the same seed, data and options). */
  resume?: boolean;
  onProgress?: (event: ProgressEvent) => void;
  /** Receives warnings (default: `console.warn`). They are also in the result. */
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
  /** A new text sharing this many consecutive characters with a training input is flagged (default 60). */
  copyThreshold?: number;
  /** The text of an instance, for the copy check (default: strings as is, others as JSON). */
  instanceText?: (instance: I) => string;
  /**
   * Builds the rows shown to the reflection model (default: input, trace, score, feedback). No
   * rows (e.g. no minibatch item concerns the chosen component) skips the proposal: nothing is
   * asked of the reflection model and the iteration is reported as `skipped_no_data`.
   */
  makeReflectiveDataset?: (args: {
    candidate: Candidate;
    component: string;
    instances: I[];
    result: EvalResult;
  }) => ReflectiveRecord<I>[];
  /** Warn before starting when the budget pays for fewer accepted proposals than this (default 5). */
  minProposals?: number;
  /**
   * Refuses a parsed proposal before it is evaluated (e.g. a judge question that fails the
   * linter): return why, or undefined to accept. Refusals are recorded as `invalid`.
   */
  validateProposal?: (text: string, component: string, candidate: Candidate) => string | undefined;
  /** USD spent on reflection so far (e.g. `() => reflector.usage().costUsd`), for `stop.maxReflectionCostUsd`. */
  reflectionCostUsd?: () => number;
  /** Stop when this many iterations in a row spend no metric calls (default 100). */
  maxIdleIterations?: number;
}
