/**
 * What a criterion sees of a reasoning model's output. By default (`strip`) checks and judge
 * questions grade the answer alone: `<think>…</think>` is removed, and an unclosed block leaves
 * no answer at all (a format failure, not an answer). `keep` shows the whole output, `only` the
 * reasoning; a provider's separate reasoning (`reasoning_content`, as vLLM and DeepSeek return
 * it, or `reasoning`) joins the view for those two.
 */
import { splitReasoning } from "../text/reasoning.js";
import type { Sample } from "../types.js";

/** What of a reasoning model's output a criterion sees: the answer (default), both, or only the reasoning. */
export type ReasoningMode = "strip" | "keep" | "only";

/** Sample inputs that hold a provider's separate reasoning, first found wins. */
export const SEPARATE_REASONING_FIELDS = ["reasoning_content", "reasoning"] as const;

/**
 * The sample as a criterion in `mode` sees it: only `field` changes. The same object comes back
 * when there is nothing to change, so judge cache keys of ordinary samples stay as they were.
 */
export function reasoningView(sample: Sample, field: string, mode: ReasoningMode): Sample {
  const value = sample[field];
  if (typeof value !== "string") return sample;
  const separate = SEPARATE_REASONING_FIELDS.map((f) => sample[f]).find((v): v is string => typeof v === "string" && v.trim() !== "");
  const hasTags = /<\/?(?:think|thinking)>/i.test(value);
  if (!hasTags && separate === undefined) return mode === "only" ? { ...sample, [field]: "" } : sample;
  if (mode === "keep") return separate === undefined ? sample : { ...sample, [field]: `<think>\n${separate}\n</think>\n\n${value}` };
  const split = splitReasoning(value);
  if (mode === "only") return { ...sample, [field]: [separate, split.reasoning].filter((r) => r && r.trim() !== "").join("\n\n") };
  return hasTags ? { ...sample, [field]: split.answer } : sample;
}
