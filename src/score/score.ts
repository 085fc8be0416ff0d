import { RubricateError, toRubricateError } from "../errors.js";
import { CheckMemo } from "../checks/memo.js";
import { runCheck } from "../checks/run.js";
import { runClientChecksOffThread } from "../checks/off-thread.js";
import type { CustomChecks } from "../checks/custom.js";
import type { Judge, JudgeQuestion } from "../judge/types.js";
import type { JudgeConfigInput } from "../judge/config.js";
import { createJudge } from "../judge/create.js";
import { CriterionSchema, type Criterion, type Rubric } from "../rubric/schema.js";
import { whenCycle } from "../rubric/when.js";
import { asksAlone } from "../rubric/judge-mode.js";
import { renderTemplate } from "../text/template.js";
import { aggregate, type ErrorPolicy, type Outcome } from "./aggregate.js";
import { buildFeedback } from "./feedback.js";
import { reasoningView, type ReasoningMode } from "./reasoning-view.js";
import { attachGroups, groupMemberOf, type GroupBy, type GroupFields, type GroupSummary } from "./group.js";
import { dirname } from "node:path";
import { addUsage, emptyUsage, type Sample, type ScoreResult, type Verdict } from "../types.js";
import { issueLines } from "../config/issues.js";

/** Options of `score`, `scoreStream` and `scoreSample`: judge, checks, concurrency, error policy, groups. */
export interface ScoreOptions {
  /**
   * Answers the rubric's questions: a `Judge`, or a judge config, file path or packaged id (built
   * for this call, with `cache`, and closed after it). Without one, LLM criteria are `NO_JUDGE` errors.
   */
  judge?: Judge | JudgeConfigInput | string;
  /** For a judge built from a config: the cache file, `false` for memory only, `null` for none. */
  cache?: string | false | null;
  /** Samples scored at once (default 128); the judge's scheduler limits the calls themselves. */
  concurrency?: number;
  /** What a criterion error does to the reward (default "null": no reward, errors listed). */
  errors?: ErrorPolicy;
  signal?: AbortSignal;
  /** Called after each sample with the count done so far. */
  onProgress?: (progress: { done: number; result: ScoreResult; index: number }) => void;
  /** "input" (default) yields results in input order; "completed" as they finish. */
  order?: "input" | "completed";
  /** Custom check functions by name for `check: { custom: name }` (built-ins such as sql-result-matches need not be passed). */
  checks?: CustomChecks;
  /**
   * GRPO-style groups (`score()` only: it needs every response of a group): results gain `group`
   * and `advantage` (and `lengthPenalty`); see `scoreGroups` for pass@k per group.
   */
  group?: GroupBy;
  /**
   * The samples' own `criteria` come from clients (a reward server): their checks run in a worker
   * thread, awaited, under a CPU limit (`clientCheckCpuMs`), and their regexes on RE2 only (linear
   * time), never the backtracking engine. The rubric's criteria are unaffected.
   */
  clientCriteria?: boolean;
  /** CPU a sample's client checks may spend together before each is a forfeited no (default 1,000 ms). */
  clientCheckCpuMs?: number;
}

/** A result with the position of its sample in the input. */
export type IndexedResult = ScoreResult & { index: number };

/**
 * Scores one sample: code checks run here, LLM questions go to the judge in rounds (a `when`
 * dependant is asked only after its condition is answered "yes").
 * @example const result = await scoreSample(rubric, { response: "42" }, { judge })
 */
export async function scoreSample(rubric: Rubric, sample: Sample, options: Omit<ScoreOptions, "concurrency" | "order" | "onProgress"> = {}): Promise<ScoreResult> {
  const owned = resolveJudge(options);
  try {
    return await scoreOne(rubric, sample, { ...options, judge: owned.judge });
  } finally {
    await owned.close();
  }
}

/**
 * The judge of `options`: a `Judge` as given, or one built from a config, file path or packaged
 * id (with `options.cache`), with `close` releasing it only when it was built here.
 */
export function resolveJudge(options: Pick<ScoreOptions, "judge" | "cache">): { judge?: Judge; close: () => Promise<void> } {
  const given = options.judge;
  if (given === undefined || isJudge(given)) return { judge: given, close: async () => undefined };
  const judge = createJudge(given, { cache: options.cache });
  return { judge, close: async () => void (await judge.close?.()) };
}

export const isJudge = (value: unknown): value is Judge => typeof value === "object" && value !== null && typeof (value as Judge).answer === "function";

async function scoreOne(rubric: Rubric, sample: Sample, options: Omit<ScoreOptions, "concurrency" | "order" | "onProgress" | "judge"> & { judge?: Judge }): Promise<ScoreResult> {
  const usage = emptyUsage();
  const prepared = prepareCriteria(rubric, sample);
  if (prepared instanceof RubricateError) return sampleError(prepared, sample, options.errors ?? "null");
  const criteria = prepared;
  const outcomes = new Map<string, Outcome>();
  const questions = new Map<string, string>();
  const rubricDir = rubric.source ? dirname(rubric.source) : undefined;
  // Each criterion sees the response with reasoning stripped (default), kept, or alone.
  const responseField = rubric.response_field ?? "response";
  const views = new Map<ReasoningMode, Sample>();
  const viewOf = (mode: ReasoningMode = "strip") => {
    let view = views.get(mode);
    if (!view) views.set(mode, (view = reasoningView(sample, responseField, mode)));
    return view;
  };
  // The sample's own criteria are the client's (a reward server); looked up in a set, not a list per criterion.
  const rubricOwn = options.clientCriteria === true ? new Set(rubric.criteria) : undefined;
  // Work the sample's checks share: a text folded for contains once, an input's JSON once.
  const memo = new CheckMemo();
  const record = (criterion: Criterion, verdict: Verdict): void => {
    outcomes.set(criterion.id, { verdict: criterion.points < 0 ? asPitfall(verdict) : verdict });
  };
  const runCriterionCheck = async (criterion: Criterion, check: NonNullable<Criterion["check"]>): Promise<void> => {
    try {
      record(criterion, await runCheck(check, viewOf(criterion.reasoning), { defaultField: rubric.response_field, rubricDir, checks: options.checks, memo }));
    } catch (e) {
      outcomes.set(criterion.id, { error: toRubricateError(e, "CHECK_FAILED") });
    }
  };
  // A client's checks run in a worker, awaited: whatever pattern and text it sends, the event loop goes on.
  const runClientCriteria = async (group: Criterion[]): Promise<void> => {
    for (const view of new Set(group.map((c) => viewOf(c.reasoning)))) {
      const same = group.filter((c) => viewOf(c.reasoning) === view);
      try {
        const answers = await runClientChecksOffThread(view, same.map((c) => c.check!), { defaultField: rubric.response_field, cpuMs: options.clientCheckCpuMs });
        same.forEach((criterion, i) => {
          const answer = answers[i];
          if (answer instanceof RubricateError) outcomes.set(criterion.id, { error: answer });
          else record(criterion, answer);
        });
      } catch (e) {
        for (const criterion of same) outcomes.set(criterion.id, { error: toRubricateError(e, "CHECK_FAILED") });
      }
    }
  };
  let pending = criteria;
  while (pending.length > 0) {
    const ready = pending.filter((c) => c.when === undefined || outcomes.has(c.when));
    if (ready.length === 0) throw new RubricateError("WHEN_CYCLE", `criteria ${pending.map((c) => c.id).join(", ")} wait on each other`);
    const readySet = new Set(ready);
    pending = pending.length === ready.length ? [] : pending.filter((c) => !readySet.has(c));
    // Questions are gathered in order, synchronously; only code checks run (and are awaited) in parallel.
    const asks: JudgeQuestion[] = [];
    const askViews: Sample[] = [];
    const checks: Promise<void>[] = [];
    const clientChecks: Criterion[] = [];
    for (const criterion of ready) {
      const condition = criterion.when === undefined ? undefined : outcomes.get(criterion.when);
      if (condition && !("verdict" in condition && condition.verdict.pass)) {
        outcomes.set(criterion.id, { skipped: `asked only when "${criterion.when}" is met` });
        continue;
      }
      if (criterion.check) {
        if (rubricOwn !== undefined && !rubricOwn.has(criterion)) clientChecks.push(criterion);
        else checks.push(runCriterionCheck(criterion, criterion.check));
        continue;
      }
      try {
        const view = viewOf(criterion.reasoning);
        const question = renderTemplate(criterion.question!, view);
        questions.set(criterion.id, question);
        const alone = asksAlone(criterion, rubric.judge_mode);
        asks.push({ id: criterion.id, question, examples: criterion.examples, version: criterion.version, ...(criterion.quote ? { quote: true } : {}), ...(alone ? { alone } : {}) });
        askViews.push(view);
      } catch (e) {
        outcomes.set(criterion.id, { error: toRubricateError(e) });
      }
    }
    if (clientChecks.length > 0) checks.push(runClientCriteria(clientChecks));
    if (checks.length > 0) await Promise.all(checks);
    // One judge call per view of the sample (usually one: every question sees the stripped answer).
    if (asks.length > 0 && askViews.every((view) => view === askViews[0])) await askJudge(rubric, askViews[0], asks, outcomes, usage, options);
    else await Promise.all([...new Set(askViews)].map((view) => askJudge(rubric, view, asks.filter((_, i) => askViews[i] === view), outcomes, usage, options)));
    for (const criterion of ready) applyThreshold(criterion, outcomes);
  }
  const result = aggregate(criteria, outcomes, rubric.scoring, { errors: options.errors, questions });
  if (sample.id !== undefined) result.id = sample.id;
  result.usage = usage;
  return result;
}

async function askJudge(rubric: Rubric, sample: Sample, asks: JudgeQuestion[], outcomes: Map<string, Outcome>, usage: ReturnType<typeof emptyUsage>, options: { judge?: Judge; signal?: AbortSignal }): Promise<void> {
  if (!options.judge) {
    const error = new RubricateError("NO_JUDGE", "no judge configured: this criterion is an LLM question (pass --judge <file> or options.judge)");
    for (const ask of asks) outcomes.set(ask.id, { error });
    return;
  }
  options.signal?.throwIfAborted();
  let answer;
  try {
    answer = await options.judge.answer({ rubric, sample, questions: asks }, { signal: options.signal });
  } catch (e) {
    const error = toRubricateError(e);
    if (error.code === "ABORTED") throw error;
    for (const ask of asks) outcomes.set(ask.id, { error });
    return;
  }
  addUsage(usage, answer.usage);
  for (const ask of asks) {
    const verdict = answer.verdicts.get(ask.id);
    if (verdict === undefined) outcomes.set(ask.id, { error: new RubricateError("INTERNAL", `judge ${options.judge.id} gave no answer for "${ask.id}"`) });
    else if (verdict instanceof Error) outcomes.set(ask.id, { error: verdict });
    else outcomes.set(ask.id, { verdict });
  }
}

/** A criterion with a `threshold` is met when the judge's P(yes) reaches it (the verdict stands without a probability). */
function applyThreshold(criterion: Criterion, outcomes: Map<string, Outcome>): void {
  const outcome = outcomes.get(criterion.id);
  if (criterion.threshold === undefined || !outcome || !("verdict" in outcome) || outcome.verdict.source !== "llm") return;
  const p = outcome.verdict.probability;
  if (p === undefined) return;
  outcomes.set(criterion.id, { verdict: { ...outcome.verdict, pass: p >= criterion.threshold } });
}

/** The rubric's criteria plus the sample's own, validated; or the error that makes the sample unscorable. */
function prepareCriteria(rubric: Rubric, sample: Sample): Criterion[] | RubricateError {
  if (typeof sample !== "object" || sample === null || Array.isArray(sample)) return new RubricateError("BAD_INPUT", "a sample is a JSON object of the rubric's inputs");
  const missing = rubric.inputs.filter((name) => sample[name] === undefined || sample[name] === null);
  if (missing.length > 0) return new RubricateError("MISSING_INPUT", `the sample lacks input${missing.length > 1 ? "s" : ""} ${missing.map((m) => `"${m}"`).join(", ")}`);
  if (sample.criteria === undefined) {
    return rubric.criteria_from_samples && rubric.criteria.length === 0 ? new RubricateError("BAD_INPUT", "the rubric takes its criteria from each sample (`criteria_from_samples`), and this sample has no `criteria`") : rubric.criteria;
  }
  if (!Array.isArray(sample.criteria)) return new RubricateError("BAD_INPUT", "the sample's `criteria` must be a list of criteria");
  const extra: Criterion[] = [];
  for (const [i, raw] of sample.criteria.entries()) {
    const parsed = CriterionSchema.safeParse(raw);
    if (!parsed.success) return new RubricateError("BAD_INPUT", `sample criterion ${i + 1}: ${issueLines(parsed.error, { root: "criterion" }).join("; ")}`);
    extra.push(parsed.data);
  }
  const ids = new Set(rubric.criteria.map((c) => c.id));
  for (const c of extra) {
    if (ids.has(c.id)) return new RubricateError("DUPLICATE_ID", `sample criterion "${c.id}" repeats an id already in the rubric or sample`);
    ids.add(c.id);
  }
  for (const c of extra) if (c.when !== undefined && !ids.has(c.when)) return new RubricateError("WHEN_MISSING", `sample criterion "${c.id}" has when: ${c.when}, which names no criterion`);
  const all = [...rubric.criteria, ...extra];
  if (all.length === 0) return new RubricateError("BAD_INPUT", "the sample's `criteria` list is empty and the rubric has none of its own");
  // A cycle would leave criteria waiting on each other forever: one sample's error, not the whole run's.
  const cycle = whenCycle(all);
  if (cycle) return new RubricateError("WHEN_CYCLE", `sample criteria form a \`when\` cycle: ${cycle.join(" -> ")}`);
  return all;
}


function sampleError(error: RubricateError, sample: Sample, policy: ErrorPolicy): ScoreResult {
  const result: ScoreResult = { reward: policy === "zero" ? 0 : null, verdicts: [], errors: [{ criterion: "*", code: error.code, message: error.message }], feedback: "", usage: emptyUsage() };
  if (sample && typeof sample === "object" && (sample as Sample).id !== undefined) result.id = (sample as Sample).id;
  result.feedback = buildFeedback(result, policy);
  return result;
}

/** Samples launched in a row, while the window fills, between two turns of the event loop. */
const FILL_STEP = 8;

/**
 * Scores samples as a stream, results in input order by default. Memory stays bounded: at most
 * `concurrency` samples are being scored at once, and at most as many scored ones wait behind a
 * slower earlier one for their turn. Aborting stops new work and rejects with `ABORTED`.
 * @example for await (const r of scoreStream(rubric, readJsonl("s.jsonl"), { judge })) console.log(r.reward)
 */
export async function* scoreStream(rubric: Rubric, samples: Iterable<Sample> | AsyncIterable<Sample>, options: ScoreOptions = {}): AsyncGenerator<IndexedResult> {
  const owned = resolveJudge(options);
  const scoring = { ...options, judge: owned.judge };
  // The loop below never has more than `width` samples being scored, so no limiter is needed.
  const width = Math.max(1, options.concurrency ?? 128);
  const inCompletionOrder = options.order === "completed";
  /** Launched and not yet yielded, by input index. */
  const tasks = new Map<number, Promise<IndexedResult>>();
  /** Indexes of the tasks that have settled, in the order they settled. */
  const settled: number[] = [];
  const settledSet = new Set<number>();
  let running = 0;
  let next = 0;
  let done = 0;
  let wake: (() => void) | undefined;
  const launch = (sample: Sample, index: number) => {
    running++;
    const task = (async () => {
      options.signal?.throwIfAborted();
      // scoreOne's result is a fresh object: the index goes on it (last, as a spread put it) rather than on a copy.
      const result = (await scoreOne(rubric, sample, scoring)) as IndexedResult;
      result.index = index;
      options.onProgress?.({ done: ++done, result, index });
      return result;
    })();
    const onSettled = () => {
      running--;
      settled.push(index);
      settledSet.add(index);
      wake?.();
    };
    // The rejection reaches the caller when its turn comes, never as "unhandled" meanwhile.
    task.then(onSettled, onSettled);
    tasks.set(index, task);
  };
  /** The index to yield now, when its sample is scored: the next in input order, or the first to settle. */
  const ready = (): number | undefined => (inCompletionOrder ? settled[0] : settledSet.has(next) ? next : undefined);
  const take = (index: number): Promise<IndexedResult> => {
    const task = tasks.get(index)!;
    tasks.delete(index);
    settledSet.delete(index);
    if (inCompletionOrder) settled.shift();
    else next++;
    return task;
  };
  const anySettles = () => new Promise<void>((resolve) => (wake = resolve));
  // A sample slower than the rest holds back only its own slot: the others go on being replaced
  // until `width` scored results wait behind it (a batched judge makes one call per sample, so
  // waiting on it would leave the judge's other slots idle).
  const full = () => running >= width || tasks.size >= 2 * width;
  let index = 0;
  let launchedInARow = 0;
  try {
    for await (const sample of samples) {
      if (options.signal?.aborted) break;
      launch(sample, index++);
      // Filling the window (the start of a run): every few samples, a turn of the event loop sends
      // the calls they asked for (a new connection needs one), rather than all `width` samples'
      // prompts being built before the first request goes out; the answers then come back spread
      // out instead of in one burst.
      if (full()) launchedInARow = 0;
      else if (++launchedInARow % FILL_STEP === 0) await new Promise((resolve) => setImmediate(resolve));
      while (full()) {
        const head = ready();
        if (head === undefined) await anySettles();
        else yield await take(head);
      }
    }
    while (tasks.size > 0) {
      const head = ready();
      if (head === undefined) await anySettles();
      else yield await take(head);
    }
    options.signal?.throwIfAborted();
  } catch (e) {
    throw toRubricateError(e);
  } finally {
    // Let in-flight work settle so nothing writes after the caller thinks we are done.
    await Promise.allSettled(tasks.values());
    await owned.close();
  }
}

/**
 * Scores every sample and returns the results in input order.
 * @example const results = await score(rubric, [{ response: "4" }]); results[0].reward
 */
export async function score(rubric: Rubric, samples: Iterable<Sample> | AsyncIterable<Sample>, options: ScoreOptions = {}): Promise<IndexedResult[]> {
  if (options.group) return (await scoreGroups(rubric, samples, { ...options, group: options.group })).results;
  const results: IndexedResult[] = [];
  for await (const result of scoreStream(rubric, samples, options)) results.push(result);
  return results;
}

/**
 * Scores k responses per prompt together (GRPO): each result gains its group's advantage; each
 * group its mean, std and pass@k.
 * @example const { results, passAtK } = await scoreGroups(rubric, samples, { group: { by: "prompt" } })
 */
export async function scoreGroups(rubric: Rubric, samples: Iterable<Sample> | AsyncIterable<Sample>, options: ScoreOptions & { group: GroupBy }): Promise<{ results: (IndexedResult & GroupFields)[]; groups: GroupSummary[]; passAtK: Record<string, number> }> {
  const members: { group: string; length?: number }[] = [];
  // Group keys are read as the samples stream past, so a bad key fails before any judge call is paid for it.
  async function* recording() {
    for await (const sample of samples) {
      members.push(groupMemberOf(sample, { responseField: rubric.response_field, ...options.group }));
      yield sample;
    }
  }
  const results: IndexedResult[] = [];
  for await (const result of scoreStream(rubric, recording(), { ...options, group: undefined })) results.push(result);
  return attachGroups(results, members, options.group);
}

/**
 * A check's verdict on a pitfall (negative points). Two kinds of no would spare the response its
 * penalty, so there they count as hit: one the response forced (a forfeit: it made the check unable
 * to answer), and one only what a page hides made (unshown: the banned string is in an HTML
 * comment, which is in the text all the same).
 */
function asPitfall(verdict: Verdict): Verdict {
  if (verdict.forfeit === true) return { ...verdict, pass: true, reasoning: `${verdict.reasoning ?? "the response made the check unable to answer"}; a pitfall counts that as hit` };
  if (verdict.unshown === true) return { ...verdict, pass: true, reasoning: `${verdict.reasoning ?? "found only where a page does not show it"}; a pitfall counts what a page hides as hit` };
  return verdict;
}
