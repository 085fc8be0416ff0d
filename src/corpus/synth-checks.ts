/**
 * The judge questions `env synth` asks about a drafted task, through the normal judge path (a
 * rubric scored with `scoreSample`: cache, votes, parse retries, errors that are never a "no"):
 * whether its cited passages state the reference answer, and whether a model that saw no passage
 * gave that answer anyway (then the task tests recall, not search).
 */
import type { Judge } from "../judge/types.js";
import { parseRubric } from "../rubric/load.js";
import type { Rubric } from "../rubric/schema.js";
import { scoreSample } from "../score/score.js";
import type { Usage } from "../types.js";
import type { Chunk } from "./types.js";

/** A judge's answer to one check: yes or no, or why it could not answer. */
export type CheckAnswer = { pass: boolean; reasoning?: string; usage?: Usage } | { error: string; usage?: Usage };

let supportRubric: Rubric | undefined;
let closedBookRubric: Rubric | undefined;

/** The one-question rubric of the support check (parsed once). */
export function supportCheckRubric(): Rubric {
  supportRubric ??= parseRubric(
    `id: synth-supported
description: Whether a synthesised task's cited passages state its reference answer.
inputs: [question, answer, passages]
criteria:
  - id: passages-state-answer
    question: Do the passages state every fact that the reference answer gives to the question?
`,
    { filename: "env-synth:supported" },
  );
  return supportRubric;
}

/** The one-question rubric of the closed-book probe (parsed once). */
export function closedBookCheckRubric(): Rubric {
  closedBookRubric ??= parseRubric(
    `id: synth-closed-book
description: Whether an answer given without the documents already matches a synthesised task's reference answer.
inputs: [question, answer, response]
criteria:
  - id: response-gives-reference-answer
    question: Does the response state the fact that the reference answer gives to the question?
`,
    { filename: "env-synth:closed-book" },
  );
  return closedBookRubric;
}

/** The passages as the support check shows them to the judge: each with its id. */
export const passagesText = (chunks: readonly Chunk[]) => chunks.map((c) => `[${c.id}]\n${c.text}`).join("\n\n");

/**
 * Asks the judge whether the cited passages state the reference answer.
 * @example await supportedBy({ question, answer }, cited, judge) // { pass: true }
 */
export function supportedBy(task: { question: string; answer: string }, cited: readonly Chunk[], judge: Judge, signal?: AbortSignal): Promise<CheckAnswer> {
  return askOne(supportCheckRubric(), { question: task.question, answer: task.answer, passages: passagesText(cited) }, judge, signal);
}

/**
 * Asks the judge whether an answer given without the passages states the reference answer.
 * @example await matchesReference({ question, answer }, closedBookText, judge) // { pass: false }
 */
export function matchesReference(task: { question: string; answer: string }, response: string, judge: Judge, signal?: AbortSignal): Promise<CheckAnswer> {
  return askOne(closedBookCheckRubric(), { question: task.question, answer: task.answer, response }, judge, signal);
}

async function askOne(rubric: Rubric, sample: Record<string, unknown>, judge: Judge, signal?: AbortSignal): Promise<CheckAnswer> {
  const result = await scoreSample(rubric, sample, { judge, signal });
  const verdict = result.verdicts[0];
  if (result.errors.length > 0 || !verdict || verdict.status === "error") return { error: result.errors.map((e) => `${e.code}: ${e.message}`).join("; ") || "no verdict", usage: result.usage };
  return { pass: verdict.status === "met", reasoning: verdict.reasoning, usage: result.usage };
}
