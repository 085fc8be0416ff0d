/**
 * The prompts `rubricate env synth` sends: the drafting model writes one task (question, reference
 * answer, cited passages, rubric criteria in `draft --per-sample`'s format, under the linter's
 * rules) from one or two passages; the closed-book probe asks the question with no passage.
 */
import { IMPORTANCE_GUIDE, QUESTION_RULES } from "../draft/prompt.js";
import type { Chunk } from "./types.js";

/** The drafting model's system prompt: the task's shape and the rules its criteria follow. */
export const SYNTH_SYSTEM_PROMPT = `You write one training task for an assistant that answers people's questions from a company's documents. You are shown one or two passages of those documents.

Write a question that a real user of these documents would ask, whose answer the passages state and which someone who has not read these documents could not answer from general knowledge. Then write the reference answer, using only what the passages say, and the criteria a judge will use to grade an assistant's response to the question.

Answer with YAML only (no prose, no code fence), in exactly this shape:

question: The user's question, in the language of the passages.
answer: The reference answer, one or two sentences, only from the passages.
chunks: [the ids of the passages that support the answer, as shown in brackets]
criteria:
  - id: kebab-case-id
    question: Does the response <one observable property>?
    importance: essential | important | optional | pitfall | severe-pitfall | condition

${IMPORTANCE_GUIDE}

${QUESTION_RULES}
9. Give 2 to 6 criteria: at least one essential criterion that asks whether the response states the fact the question asks for, with that fact written in the question; then important, optional, and pitfalls last (for example a wrong figure the passages could be misread as).`;

/** The user message: the passages, each with its id in brackets. */
export function synthUserPrompt(chunks: readonly Chunk[]): string {
  const passages = chunks.map((c) => `[${c.id}] (from "${c.title}")\n${c.text}`).join("\n\n");
  return `## Passages\n${passages}\n\nWrite the task YAML now.`;
}

/** The follow-up that sends an unreadable answer back, with what was wrong. */
export function synthRepairPrompt(problems: readonly string[]): string {
  return ["Your answer could not be read:", ...problems.map((p) => `- ${p}`), "", "Return the complete task as YAML only, in the shape asked for."].join("\n");
}

/** The closed-book probe's system prompt: the question alone, no documents. */
export const CLOSED_BOOK_SYSTEM_PROMPT = "Answer the question in one or two sentences from what you know. If you do not know, say so.";
