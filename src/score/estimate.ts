import type { JudgeConfig } from "../judge/config.js";
import { buildJudgeRequest } from "../judge/prompt.js";
import type { Rubric } from "../rubric/schema.js";
import { renderTemplate } from "../text/template.js";
import type { Sample } from "../types.js";
import { estimateTokens } from "../engine/usage.js";

/** What a run would cost at most, before any call: the `--dry-run` answer. */
export interface RunEstimate {
  samples: number;
  llmQuestions: number;
  /** Upper bound: every `when` condition met, every vote needed, no cache hits. */
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
}

/** Output tokens a judge spends per question (a short reason and a verdict). */
const OUTPUT_TOKENS_PER_QUESTION = 60;

/** Adds one sample's calls and tokens to an estimate, building the real prompts it would send. */
export function estimateSample(estimate: RunEstimate, rubric: Rubric, sample: Sample, judge: JudgeConfig | undefined): void {
  estimate.samples++;
  const questions = rubric.criteria
    .filter((c) => c.question)
    .map((c) => {
      try {
        return { id: c.id, question: renderTemplate(c.question!, sample), examples: c.examples, ...(c.quote ? { quote: true } : {}) };
      } catch {
        return undefined;
      }
    })
    .filter((q) => q !== undefined);
  estimate.llmQuestions += questions.length;
  if (!judge || questions.length === 0) return;
  const settings = { model: judge.model, system: judge.system, systemPreset: judge.system_preset, reasoning: judge.reasoning, quoteEvidence: judge.quote_evidence, temperature: judge.temperature, maxTokens: 0, logprobs: false, structuredOutput: judge.structured_output };
  const rounds = roundsOf(rubric);
  const batched = judge.mode !== "single";
  const requests = batched ? [buildJudgeRequest(rubric, sample, questions, true, settings)] : questions.map((q) => buildJudgeRequest(rubric, sample, [q], false, settings));
  const perVote = batched ? rounds : questions.length;
  estimate.calls += perVote * judge.samples;
  const input = requests.reduce((sum, r) => sum + estimateTokens(r), 0);
  estimate.inputTokens += input * judge.samples * (batched ? rounds : 1);
  estimate.outputTokens += questions.length * OUTPUT_TOKENS_PER_QUESTION * judge.samples;
  if (judge.price) estimate.costUsd = (estimate.inputTokens * judge.price.input + estimate.outputTokens * judge.price.output) / 1e6;
}

/** How many rounds of LLM questions `when` chains need (1 without `when`). */
function roundsOf(rubric: Rubric): number {
  const depth = new Map<string, number>();
  const byId = new Map(rubric.criteria.map((c) => [c.id, c]));
  const of = (id: string, seen = new Set<string>()): number => {
    if (depth.has(id)) return depth.get(id)!;
    const c = byId.get(id);
    const d = c?.when && !seen.has(id) ? of(c.when, seen.add(id)) + 1 : 1;
    depth.set(id, d);
    return d;
  };
  return Math.max(1, ...rubric.criteria.filter((c) => c.question).map((c) => of(c.id)));
}

/** A zero estimate, to add samples to with `estimateSample`. */
export const emptyEstimate = (): RunEstimate => ({ samples: 0, llmQuestions: 0, calls: 0, inputTokens: 0, outputTokens: 0 });
