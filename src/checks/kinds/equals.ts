/**
 * `equals`: the text is exactly a value (a {{variable}} allowed), after normalisation by default.
 *
 * rubric:  check: { equals: "{{answer}}" }
 */
import * as z from "zod";
import { missingReference, renderTemplate } from "../../text/template.js";
import { defineCheck } from "../kind.js";
import { onceWith } from "../memo.js";

export const EqualsSpec = z.union([z.string(), z.number(), z.boolean()]).describe("A string, number or boolean, or a {{variable}} holding the value");
export type EqualsSpec = z.infer<typeof EqualsSpec>;

/** Trim, collapse white space, lower-case, and drop trailing punctuation. */
export function normalizeText(text: string): string {
  return text.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase().replace(TRAILING_PUNCTUATION, "");
}
// Tried only where a run of punctuation starts: from every position of a run that does not end
// the text, `[.!?;:]+$` ran to the run's end and failed, quadratic (50,000 dots and an "x": 5 s).
const TRAILING_PUNCTUATION = /(?<![.!?;:])[.!?;:]+$/;

export const truncate = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n)}…` : s);

export const equals = defineCheck<EqualsSpec>({
  key: "equals",
  spec: EqualsSpec,
  summary: "the text equals a value, after trimming, lower-casing and dropping trailing punctuation",
  options: { normalize: z.boolean().optional().describe("Trim, collapse white space, lower-case, drop trailing punctuation (default true)") },
  pure: true,
  gradesAnswer: true,
  keywords: (spec) => [String(spec)],
  run(spec, { text, sample, options, memo }) {
    const expected = typeof spec === "string" ? renderTemplate(spec, sample) : String(spec);
    const normalize = options.normalize !== false;
    const reference = normalize ? normalizeText(expected) : expected;
    // A sample whose reference is empty is the data's error: "" (or "...", which normalizes to it) would match it.
    if (reference === "" && typeof spec === "string" && spec.includes("{{")) throw missingReference("equals", spec);
    // The text is normalized once for all the sample's equals criteria (the expected values differ).
    const normalized = () => onceWith(memo, "equals-normalize", text, normalizeText);
    const pass = normalize ? normalized() === reference : text === reference;
    return { pass, reasoning: pass ? "equals the expected value" : `expected "${truncate(expected)}", got "${truncate(text)}"` };
  },
});
