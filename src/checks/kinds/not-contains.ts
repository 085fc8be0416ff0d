/**
 * `not_contains`: the text contains none of some strings. An empty response passes, so the probe
 * suggests gating it (see passesEmpty).
 *
 * rubric:  check: { not_contains: ["As an AI", "I cannot"] }
 */
import type { CheckHack } from "../kind.js";
import { defineCheck } from "../kind.js";
import { caseSensitive, found, Needles, quoteList } from "./contains.js";

/** Latin letters and the Cyrillic letters drawn the same, which a policy swaps in to hide a word. */
const CYRILLIC_TWINS: Record<string, string> = {
  a: "\u0430", c: "\u0441", e: "\u0435", i: "\u0456", j: "\u0458", o: "\u043E", p: "\u0440", s: "\u0455", x: "\u0445", y: "\u0443",
  A: "\u0410", B: "\u0412", C: "\u0421", E: "\u0415", H: "\u041D", I: "\u0406", J: "\u0408", K: "\u041A", M: "\u041C", O: "\u041E", P: "\u0420", S: "\u0405", T: "\u0422", X: "\u0425",
};

/** The needle with its Latin letters swapped for their Cyrillic twins, or undefined when it has none. */
export function inCyrillicTwins(needle: string): string | undefined {
  const disguised = needle.replace(/[A-Za-z]/g, (c) => CYRILLIC_TWINS[c] ?? c);
  return disguised === needle ? undefined : disguised;
}

const firstNeedle = (spec: Needles) => (Array.isArray(spec) ? spec[0] : spec);

const hacks: CheckHack<Needles>[] = [
  {
    id: "not-contains-look-alike",
    description: "a banned string written with Cyrillic letters drawn like the Latin ones (а, е, о, р, с, і …)",
    build: (spec) => {
      const disguised = inCyrillicTwins(firstNeedle(spec));
      return disguised === undefined ? undefined : { response: `Sure. ${disguised}. That is all.` };
    },
  },
  {
    id: "not-contains-invisible",
    description: "a banned string with a zero-width space between its letters",
    build: (spec) => {
      const needle = firstNeedle(spec);
      return [...needle].length < 2 ? undefined : { response: `Sure. ${[...needle].join("\u200B")}. That is all.` };
    },
  },
  {
    id: "not-contains-markup",
    description: "a banned string with markdown bold around one of its inner letters, which a page shows as the string",
    build: (spec) => {
      const letters = [...firstNeedle(spec)];
      const middle = Math.floor(letters.length / 2);
      return letters.length < 3 ? undefined : { response: `Sure. ${letters.slice(0, middle).join("")}**${letters[middle]}**${letters.slice(middle + 1).join("")}. That is all.` };
    },
  },
  splitByHidden("not-contains-hidden-element", "a hidden HTML element", "", "<span hidden>x</span>"),
  splitByHidden("not-contains-stylesheet-hidden", "an element a `<style>` rule hides (display: none)", "<style>.aside{display:none}</style>", '<span class="aside">x</span>'),
];

/** A hack: the banned string split at its middle by `hidden` (after `before`), which a page shows as the string. */
function splitByHidden(id: string, what: string, before: string, hidden: string): CheckHack<Needles> {
  return {
    id,
    description: `a banned string split by ${what}, which a page shows as the string`,
    build: (spec) => {
      const letters = [...firstNeedle(spec)];
      const middle = Math.floor(letters.length / 2);
      return letters.length < 2 ? undefined : { response: `${before}Sure. ${letters.slice(0, middle).join("")}${hidden}${letters.slice(middle).join("")}. That is all.` };
    },
  };
}

export const notContains = defineCheck<Needles>({
  key: "not_contains",
  spec: Needles,
  summary: "the text contains none of some strings",
  options: { case_sensitive: caseSensitive },
  pure: true,
  passesEmpty: () => true,
  hacks,
  run(spec, { text, options, memo }) {
    // The text as a page shows it too: markup inside a banned word hides it only from a check of the raw text.
    const { list, hits } = found(spec, text, options.case_sensitive === true, memo, true);
    return { pass: hits.length === 0, reasoning: hits.length ? `contains ${quoteList(hits)}` : `contains none of ${quoteList(list)}` };
  },
});
