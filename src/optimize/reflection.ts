import type { ReflectiveRecord } from "./types.js";

function render(value: unknown): string {
  if (value === undefined) return "(none recorded)";
  if (typeof value === "string") return value.trim();
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** The reflective dataset as markdown: one section per example with input, output, score and feedback. */
export function formatReflectiveDataset(records: readonly ReflectiveRecord[]): string {
  return records
    .map((r, n) =>
      [
        `## Example ${n + 1}`,
        `### Input\n${render(r.input)}`,
        `### Output\n${render(r.output)}`,
        `### Score\n${r.score}`,
        `### Feedback\n${r.feedback.trim() || "(no feedback)"}`,
      ].join("\n\n"),
    )
    .join("\n\n");
}

/**
 * A prompt asking a reflection model to rewrite a text from examples of its use, with the new
 * text in a ``` block (what `parseProposal` reads). Pass its answer back from `reflect`.
 * @example
 * reflect: async ({ candidate, component, reflectiveDataset }) =>
 *   llm(buildReflectionPrompt(candidate[component], reflectiveDataset))
 */
export function buildReflectionPrompt(currentText: string, records: readonly ReflectiveRecord[]): string {
  return [
    "A system was run with the text below as its instructions.",
    "```",
    currentText,
    "```",
    "",
    "Here is how it did on some tasks: each example shows the task input, what the system produced, the score it got and feedback on what was missing or wrong.",
    "",
    formatReflectiveDataset(records),
    "",
    "Write an improved version of the instructions. Work out what the tasks have in common and what the feedback keeps asking for; keep what already works; add the specific rules, facts and strategies the failures show are missing, stated generally enough to help on new tasks of the same kind. Do not copy the example inputs into the instructions.",
    "",
    "Give the complete new instructions inside one ``` block, and nothing after it.",
  ].join("\n");
}
