/**
 * `not_contains`: the text contains none of some strings. An empty response passes, so the probe
 * suggests gating it (see passesEmpty).
 *
 * rubric:  check: { not_contains: ["As an AI", "I cannot"] }
 */
import { defineCheck } from "../kind.js";
import { caseSensitive, found, Needles, quoteList } from "./contains.js";

export const notContains = defineCheck<Needles>({
  key: "not_contains",
  spec: Needles,
  summary: "the text contains none of some strings",
  options: { case_sensitive: caseSensitive },
  pure: true,
  passesEmpty: () => true,
  run(spec, { text, options }) {
    const { list, hits } = found(spec, text, options.case_sensitive === true);
    return { pass: hits.length === 0, reasoning: hits.length ? `contains ${quoteList(hits)}` : `contains none of ${quoteList(list)}` };
  },
});
