/**
 * `similarity`: the response is close enough to a reference text (edit distance or ROUGE-L; see
 * ../similarity.ts). Both are lexical: they count shared characters or words, not meaning.
 *
 * rubric:  check: { similarity: { reference: "{{reference}}", metric: rouge-l, min: 0.5 } }
 */
import * as z from "zod";
import { shownText } from "../../text/markup.js";
import { renderReference } from "../../text/template.js";
import { defineCheck } from "../kind.js";
import { shownOnce } from "../memo.js";
import { referenceCases } from "../hacks.js";
import { editSimilarity, rougeL } from "../similarity.js";

/** The reference saying the opposite: "not" after its first verb-like word, else in front. */
function negate(reference: string): string {
  const verb = /\b(is|are|was|were|has|have|had|can|will|does|do|did|should|must)\b/i.exec(reference);
  return verb ? `${reference.slice(0, verb.index + verb[0].length)} not${reference.slice(verb.index + verb[0].length)}` : `It is not true that ${reference}`;
}

/** The reference's words in reverse order, each followed by a stop word. */
function stuff(reference: string): string {
  const stop = ["the", "of", "and", "a", "to", "in", "is"];
  return reference.split(/\s+/).filter(Boolean).reverse().map((w, i) => `${w} ${stop[i % stop.length]}`).join(" ");
}

export const SimilaritySpec = z
  .strictObject({
    reference: z.string().min(1).describe("The reference text, or a {{variable}} holding it"),
    metric: z.enum(["levenshtein", "rouge-l"]).optional().describe("levenshtein: 1 − edit distance / longer length (default); rouge-l: LCS F-measure over words"),
    min: z.number().min(0).max(1).describe("Pass at or above this similarity"),
    normalize: z.boolean().optional().describe("Trim, collapse white space and lower-case before comparing (default true; ROUGE-L always lower-cases)"),
    partial: z.boolean().optional().describe("Earn points in proportion to the similarity instead of all or nothing (default false)"),
  });
export type SimilaritySpec = z.infer<typeof SimilaritySpec>;

const normalise = (s: string) => s.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase();

export const similarity = defineCheck<SimilaritySpec>({
  key: "similarity",
  spec: SimilaritySpec,
  summary: "close to a reference text: normalised edit distance or ROUGE-L, with a threshold",
  tag: true,
  gradesAnswer: true,
  hacks: referenceCases<SimilaritySpec>(
    [
      { id: "similarity-negated", description: "the reference with its claim negated", response: (reference) => negate(reference) },
      { id: "similarity-stuffed", description: "the reference's words shuffled among stop words", response: (reference) => stuff(reference) },
      { id: "similarity-hidden", description: "a non-answer with the reference in an HTML comment, which no page shows", response: (reference) => `I am not sure. <!-- ${reference} -->` },
    ],
    (spec) => spec.reference,
  ),
  notAloneReason: "similarity is lexical (shared characters or words, not meaning): a negated reference scores near 1 and the reference's words stuffed in any order score well",
  lint(spec) {
    if (spec.min >= 0.3) return [];
    return [
      {
        rule: "loose-threshold",
        severity: "warning",
        message: `similarity min ${spec.min} with ${spec.metric ?? "levenshtein"}: unrelated texts of similar length often score this high`,
        suggestion: "Raise `min` (measure it on a few wrong answers first) or use `partial: true` for graded credit.",
      },
    ];
  },
  run(spec, { text, sample, memo }) {
    // Both sides as a page shows them (text/markup.ts): the reference in an HTML comment or a hidden
    // element is not what a reader sees, and markup a reference is written in (`**Paris**`) is not
    // held against a response that shows the same.
    const shown = shownOnce(text, memo);
    const reference = shownText(renderReference("similarity", spec.reference, sample));
    const metric = spec.metric ?? "levenshtein";
    const normalize = spec.normalize ?? true;
    const value = metric === "rouge-l" ? rougeL(shown, reference) : normalize ? editSimilarity(normalise(shown), normalise(reference)) : editSimilarity(shown, reference);
    const pass = value >= spec.min;
    const reading = shown === text ? "" : " as a page shows the response";
    return { pass, reasoning: `${metric} similarity ${value.toFixed(3)}${reading} (needs ${spec.min})`, ...(spec.partial ? { score: value } : {}) };
  },
});
