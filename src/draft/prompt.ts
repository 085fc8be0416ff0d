/**
 * The prompts `rubricate draft` sends to the drafting model: the format it must answer in, the
 * rules every question must follow (the linter's rules in words), and the expert's material.
 */

/** A response the expert labels good or bad, with a word on why. */
export interface DraftResponse {
  response: string;
  why?: string;
}

/** What the expert has: any of notes, a reference answer, and good / bad responses. */
export interface DraftInput {
  /** The rubric id (default: the model's suggestion). */
  id?: string;
  description?: string;
  /** The prompt or task the graded responses answer. */
  task?: string;
  /** Free notes: what matters, what experts look for, common mistakes. */
  notes?: string;
  /** A reference answer an expert would accept. */
  reference?: string;
  good?: DraftResponse[];
  bad?: DraftResponse[];
  /** The rubric's inputs (default ["prompt", "response"]). */
  inputs?: string[];
  /** The rubric's pass threshold (default 0.7). */
  passThreshold?: number;
}

/** Points per importance label, after Rubrics as Rewards (essential / important / optional / pitfall). */
export const IMPORTANCE_POINTS = { essential: 5, important: 3, optional: 1, pitfall: -3, "severe-pitfall": -5, condition: 0 } as const;
export type Importance = keyof typeof IMPORTANCE_POINTS;

/** What each importance label means (shared by `draft` and `env synth`). */
export const IMPORTANCE_GUIDE = `Importance: essential = a response failing it is wrong or unsafe; important = a clear expert expectation; optional = nice to have; pitfall = a mistake an expert would mark down; severe-pitfall = a mistake that makes the response harmful or misleading; condition = a 0-point question about the inputs (for example "Does the prompt describe a symptom that needs emergency care?") that other criteria name in "when", so they are asked only when it holds.`;

/** The linter's rules in words, numbered 1–8 (shared by `draft` and `env synth`). */
export const QUESTION_RULES = `Rules for every question:
1. It is a yes/no question that starts with an auxiliary verb (Does, Is, Are, Did, Has, Can). Never "How well", "To what extent", "Rate", "Evaluate", or a scale.
2. It asks one thing. Do not join two asks with "and" or "or", and do not list several required items; write one criterion per item.
3. It names the standard: no "appropriate", "good", "relevant", "adequate", "reasonable", "properly", "sufficient", "clear", "helpful" unless the question says what counts (for example "such as X or Y").
4. No double negatives ("not fail to", "not without").
5. A pitfall asks about the mistake itself, so that "yes" means the mistake happened: "Does the response state a dose without…?", never "Does the response avoid…?" or "Is it free of…?".
6. Positive criteria are phrased so that "yes" is the good behaviour.
7. No two questions ask nearly the same thing.
8. Questions refer to the inputs by name in words ("the prompt", "the reference answer"); never use {{ }} templates.`;

/** The system prompt: format and rules. */
export const DRAFT_SYSTEM_PROMPT = `You turn an expert's material into a grading rubric of binary (yes/no) questions that an LLM judge will answer about one response.

Answer with YAML only (no prose, no code fence), in exactly this shape:

id: short-kebab-case-id
description: One line saying what is graded.
criteria:
  - id: kebab-case-id
    question: Does the response <one observable property>?
    importance: essential | important | optional | pitfall | severe-pitfall | condition
    required: true          # only on an essential criterion without which the response is worthless
    when: other-criterion-id  # optional: ask this only when that criterion's answer is yes
    answers:                # the answer to this question for each labelled response you were given
      G1: { answer: true, reason: "why, in a few words" }
      B1: { answer: false, reason: "why" }

${IMPORTANCE_GUIDE}

${QUESTION_RULES}
9. Give 4 to 12 criteria: the essentials first, then important, optional, and pitfalls last.
Fill "answers" for every labelled response (G1, G2… are good, B1, B2… are bad), judging each question on its own.`;

/** The user message: the expert's material, with labelled responses. */
export function draftUserPrompt(input: DraftInput): string {
  const parts: string[] = [];
  if (input.task) parts.push(`## The prompt the responses answer\n${input.task}`);
  if (input.notes) parts.push(`## Expert notes\n${input.notes}`);
  if (input.reference) parts.push(`## Reference answer (what an expert accepts)\n${input.reference}`);
  for (const [label, response] of labelledResponses(input)) {
    const kind = label.startsWith("G") ? "good" : "bad";
    parts.push(`## ${label} (a ${kind} response)${response.why ? `\nWhy it is ${kind}: ${response.why}` : ""}\n<response>\n${response.response}\n</response>`);
  }
  parts.push(`## Inputs the judge will see\n${(input.inputs ?? ["prompt", "response"]).join(", ")}`);
  parts.push("Write the rubric YAML now.");
  return parts.join("\n\n");
}

/** The good and bad responses with their labels G1…, B1…. */
export function labelledResponses(input: DraftInput): [string, DraftResponse][] {
  return [...(input.good ?? []).map((r, i) => [`G${i + 1}`, r] as [string, DraftResponse]), ...(input.bad ?? []).map((r, i) => [`B${i + 1}`, r] as [string, DraftResponse])];
}

/** The follow-up that sends a bad draft back once, with every problem found. */
export function repairPrompt(problems: string[]): string {
  return [
    "Your rubric has these problems:",
    ...problems.map((p) => `- ${p}`),
    "",
    "Return the complete corrected rubric as YAML only, in the same shape, fixing every problem. Keep the criteria that had no problem unchanged.",
  ].join("\n");
}
