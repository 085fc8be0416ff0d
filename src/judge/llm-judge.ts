import { RubricateError, toRubricateError } from "../errors.js";
import { addUsage, emptyUsage, type Sample, type Usage, type VerdictOrError } from "../types.js";
import { JudgeConfigSchema, type JudgeConfig, type JudgeConfigInput, type Price } from "./config.js";
import { parseBatched, parseSingle, probeProbability, type ParsedAnswer } from "./parse.js";
import { buildJudgeRequest, buildProbeRequest, sampleBlock, sampleNonce, sampleText, type PromptSettings } from "./prompt.js";
import { canonicalJson as stableJson } from "../text/canonical-json.js";
import { Rng } from "../stats/rng.js";
import { quoteProblem } from "./quote.js";
import type { CompletionRequest, CompletionResponse, Provider } from "../providers/types.js";
import type { Judge, JudgeAnswer, JudgeQuestion, JudgeRequest } from "./types.js";
import { tallyVotes, votesStillNeeded, type VoteTally } from "./votes.js";

/** What a judge needs from the engine: one cached, scheduled, retried call. */
export interface CallEngine {
  complete(
    provider: Provider,
    request: CompletionRequest,
    options: { voteIndex?: number; keyExtra?: unknown; signal?: AbortSignal; scheduler?: string; price?: Price },
  ): Promise<{ response: CompletionResponse; cached: boolean; usage: Usage }>;
}

/** Parse attempts per question before its answer becomes a `JUDGE_PARSE` error. */
export const PARSE_ATTEMPTS = 3;

/**
 * A judge over an LLM: batched or single questions, majority votes with early stop, parse
 * retries. All calls go through the engine (cache, scheduler, retries).
 * @example const judge = createLLMJudge({ provider: "openai", model: "gpt-4.1-mini" }, { engine, provider })
 */
export function createLLMJudge(configInput: JudgeConfigInput | JudgeConfig, deps: { engine: CallEngine; provider: Provider; id?: string }): Judge {
  const config = JudgeConfigSchema.parse(configInput);
  const id = deps.id ?? config.id ?? `${config.provider}:${config.model}`;
  const total = emptyUsage();
  const withSource = withSourceFor(config);
  const settings: PromptSettings = {
    model: config.model,
    system: config.system,
    systemPreset: config.system_preset,
    reasoning: config.reasoning,
    quoteEvidence: config.quote_evidence,
    confidence: config.probability === "confidence",
    temperature: config.temperature,
    maxTokens: config.max_tokens,
    logprobs: config.logprobs,
    structuredOutput: config.structured_output,
  };

  async function answer(request: JudgeRequest, options: { signal?: AbortSignal } = {}): Promise<JudgeAnswer> {
    const usage = emptyUsage();
    const quotable = request.questions.some((q) => q.quote) ? sampleText(request.rubric, request.sample) : "";
    /** Why an answer to a `quote: true` question cannot be trusted (its quote is not in the sample), if so. */
    const badQuote = (question: JudgeQuestion, a: ParsedAnswer) => (question.quote ? quoteProblem(a, quotable, question.question) : undefined);
    // Every call of this answer shares the sample block: hash and render it once, not once per question and vote.
    let shared: { nonce: string; block: string } | undefined;
    const call = async (questions: JudgeQuestion[], batched: boolean, voteIndex: number, attempt: number) => {
      if (!shared) {
        const nonce = sampleNonce(request.rubric.id, request.sample);
        shared = { nonce, block: sampleBlock(request.rubric, request.sample, nonce) };
      }
      const built = buildJudgeRequest(request.rubric, request.sample, questions, batched, settings, shared);
      const keyExtra = { attempt, versions: questions.map((q) => q.version ?? null), ...(request.repeat ? { repeat: request.repeat } : {}) };
      const result = await deps.engine.complete(deps.provider, built, { voteIndex, keyExtra, signal: options.signal, scheduler: id, price: config.price });
      addUsage(usage, result.usage);
      return result.response;
    };
    const askOne = async (question: JudgeQuestion, voteIndex: number, firstAttempt: number): Promise<ParsedAnswer | RubricateError> => {
      let last: RubricateError | undefined;
      for (let attempt = firstAttempt; attempt < PARSE_ATTEMPTS; attempt++) {
        try {
          const parsed = withSource(parseSingle(await call([question], false, voteIndex, attempt), question.id));
          const problem = badQuote(question, parsed);
          // Asked again (a new attempt is a new cache key), like an unreadable answer.
          if (problem) throw new RubricateError("JUDGE_PARSE", problem, { retryable: true });
          return parsed;
        } catch (e) {
          last = toRubricateError(e);
          if (last.code === "ABORTED" || !["JUDGE_PARSE", "JUDGE_REFUSAL"].includes(last.code)) return last;
        }
      }
      return new RubricateError(last!.code, `${last!.message} (after ${PARSE_ATTEMPTS} attempts)`);
    };
    const castVote = async (questions: JudgeQuestion[], voteIndex: number): Promise<Map<string, ParsedAnswer | RubricateError>> => {
      const out = new Map<string, ParsedAnswer | RubricateError>();
      if (config.mode === "single" || questions.length === 1) {
        await Promise.all(questions.map(async (q) => out.set(q.id, await askOne(q, voteIndex, 0))));
        return out;
      }
      const groups = callGroups(questions, request.rubric.max_criteria, voteIndex, request.sample);
      if (groups.length > 1 || groups[0].length !== questions.length) {
        const parts = await Promise.all(groups.map((g) => castVote(g, voteIndex)));
        for (const part of parts) for (const [qid, a] of part) out.set(qid, a);
        return out;
      }
      questions = groups[0];
      let retry = questions;
      try {
        const parsed = parseBatched(await call(questions, true, voteIndex, 0), questions.map((q) => q.id));
        for (const [qid, a] of parsed.answers) out.set(qid, withSource(a));
        retry = questions.filter((q) => parsed.problems.has(q.id) || (out.has(q.id) && badQuote(q, out.get(q.id) as ParsedAnswer) !== undefined));
        for (const q of retry) out.delete(q.id);
      } catch (e) {
        const error = toRubricateError(e);
        if (error.code === "ABORTED" || !["JUDGE_PARSE", "JUDGE_REFUSAL"].includes(error.code)) {
          for (const q of questions) out.set(q.id, error);
          return out;
        }
      }
      // The batch left these unanswered or malformed: ask each alone before calling it an error.
      await Promise.all(retry.map(async (q) => out.set(q.id, await askOne(q, voteIndex, 1))));
      return out;
    };

    const tallies = new Map<string, VoteTally>(request.questions.map((q) => [q.id, { yes: 0, no: 0, answers: [], errors: [] }]));
    let nextVote = 0;
    const maxVotes = config.samples;
    let wave = votesStillNeeded({ yes: 0, no: 0, answers: [], errors: [] }, maxVotes);
    while (wave > 0) {
      const open = request.questions.filter((q) => votesStillNeeded(tallies.get(q.id)!, maxVotes, nextVote) > 0);
      if (open.length === 0) break;
      const indices = Array.from({ length: Math.min(wave, maxVotes + 1 - nextVote) }, (_, i) => nextVote + i);
      nextVote += indices.length;
      const votes = await Promise.all(indices.map((v) => castVote(open, v)));
      for (const vote of votes) for (const [qid, a] of vote) record(tallies.get(qid)!, a);
      wave = Math.max(...open.map((q) => votesStillNeeded(tallies.get(q.id)!, maxVotes, nextVote)), 0);
    }
    options.signal?.throwIfAborted();
    const verdicts = new Map<string, VerdictOrError>();
    for (const q of request.questions) verdicts.set(q.id, tallyVotes(tallies.get(q.id)!, maxVotes));
    if (config.probability === "probe") {
      // One extra one-token call per answered question; its P(yes) replaces the vote share.
      await Promise.all(
        request.questions.map(async (q) => {
          const v = verdicts.get(q.id);
          if (!v || v instanceof Error) return;
          const built = buildProbeRequest(request.rubric, request.sample, q, settings);
          const { response, usage: callUse } = await deps.engine.complete(deps.provider, built, { keyExtra: { probe: true, version: q.version ?? null }, signal: options.signal, scheduler: id, price: config.price });
          addUsage(usage, callUse);
          const p = probeProbability(response);
          // No logprobs came back (a server that ignores the field): no probability, never the vote's P = 1.
          if (p !== undefined) v.probability = p;
          else delete v.probability;
        }),
      );
    }
    addUsage(total, usage);
    return { verdicts, usage };
  }

  return { id, answer, usage: () => ({ ...total }) };
}

/** With `probability: confidence`, P(yes) is the stated confidence (logprobs after a reason are flattened). */
function withSourceFor(config: JudgeConfig) {
  return (a: ParsedAnswer): ParsedAnswer => {
    if (config.probability !== "confidence") return a;
    const { probability: _flattened, ...rest } = a;
    return a.confidence === undefined ? rest : { ...rest, probability: a.confidence };
  };
}

function record(tally: VoteTally, answer: ParsedAnswer | RubricateError): void {
  if (answer instanceof RubricateError) {
    if (answer.code === "ABORTED") throw answer;
    tally.errors.push(answer);
    return;
  }
  tally.answers.push(answer);
  if (answer.verdict) tally.yes++;
  else tally.no++;
}

/**
 * How one vote's questions are split into calls: each `alone` question by itself, the rest in
 * batches of at most `maxCriteria`. Vote 0 keeps the rubric's order; later votes shuffle it
 * (seeded by the sample and the vote), so an order effect (earlier verdicts pulling later ones)
 * varies across votes instead of repeating.
 */
export function callGroups(questions: JudgeQuestion[], maxCriteria: number | undefined, voteIndex: number, sample: Sample): JudgeQuestion[][] {
  // The usual case, one call of every question in the rubric's order, without copying them.
  if (questions.length > 0 && (voteIndex === 0 || questions.length < 2) && (maxCriteria ?? Infinity) >= questions.length && !questions.some((q) => q.alone)) return [questions];
  const alone = questions.filter((q) => q.alone).map((q) => [q]);
  let rest = questions.filter((q) => !q.alone);
  if (voteIndex > 0 && rest.length > 1) rest = new Rng(hashSeed(`${stableJson(sample)}\0${voteIndex}`)).shuffle([...rest]);
  const size = maxCriteria ?? Infinity;
  const batches: JudgeQuestion[][] = [];
  for (let i = 0; i < rest.length; i += Math.min(size, rest.length)) batches.push(rest.slice(i, i + Math.min(size, rest.length)));
  return [...batches, ...alone];
}

function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
