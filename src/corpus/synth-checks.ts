/**
 * The judge questions `env synth` asks about a drafted task, through the normal judge path (a
 * rubric scored with `scoreSample`: cache, votes, parse retries, errors that are never a "no"):
 * whether its cited passages state the reference answer, and whether a model that saw no passage
 * gave that answer anyway (then the task tests recall, not search), and whether the task's own
 * criteria tell its reference answer from a response that only echoes the question.
 */
import type { Judge } from "../judge/types.js";
import { parseRubric } from "../rubric/load.js";
import type { Criterion, Rubric } from "../rubric/schema.js";
import { stringify } from "yaml";
import { scoreSample } from "../score/score.js";
import { addUsage, emptyUsage, type Usage } from "../types.js";
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

/** A response that does no work: it echoes the question and answers nothing (a policy's cheapest attack). */
export const nonAnswer = (question: string) => `I could not find the answer to "${question}" in the documents.`;

/**
 * Scores a task's own criteria on its reference answer and on a non-answer: every essential
 * criterion must be met by the reference, and no criterion that earns points by the non-answer
 * (else the criteria reward a response that did not do the work). Returns why not, or null.
 * @example await criteriaDiscriminate({ question, answer }, criteria, judge) // { pass: true }
 */
export async function criteriaDiscriminate(task: { question: string; answer: string }, criteria: readonly Criterion[], judge: Judge, signal?: AbortSignal): Promise<CheckAnswer> {
  const rubric = parseRubric(stringify({ id: "synth-task-criteria", inputs: ["prompt", "answer", "response"], criteria }), { filename: "env-synth:task-criteria" });
  const usage = emptyUsage();
  const add = (u?: Usage) => u && addUsage(usage, u);
  const reference = await scoreSample(rubric, { prompt: task.question, answer: task.answer, response: task.answer }, { judge, signal });
  add(reference.usage);
  const echo = await scoreSample(rubric, { prompt: task.question, answer: task.answer, response: nonAnswer(task.question) }, { judge, signal });
  add(echo.usage);
  const errors = [...reference.errors, ...echo.errors];
  if (errors.length > 0) return { error: errors.map((e) => `${e.criterion}: ${e.code}: ${e.message}`).join("; "), usage };
  const essential = new Set(criteria.filter((c) => c.tags?.includes("essential")).map((c) => c.id));
  const missed = reference.verdicts.filter((v) => essential.has(v.id) && v.status !== "met").map((v) => v.id);
  if (missed.length > 0) return { pass: false, reasoning: `the reference answer fails essential criteria ${missed.join(", ")}`, usage };
  const won = echo.verdicts.filter((v) => v.points > 0 && v.status === "met").map((v) => v.id);
  if (won.length > 0) return { pass: false, reasoning: `a response that only echoes the question meets ${won.join(", ")}`, usage };
  return { pass: true, usage };
}
