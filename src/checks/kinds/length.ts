/**
 * `length`: the text has between min and max characters or words.
 *
 * rubric:  check: { length: { max: 150, unit: words } }
 */
import * as z from "zod";
import { stripInvisible } from "../../text/invisible.js";
import { countWords } from "../../text/words.js";
import { defineCheck, type CheckHack } from "../kind.js";
import { shownOnce } from "../memo.js";

export const LengthSpec = z
  .strictObject({ min: z.number().int().nonnegative().optional(), max: z.number().int().nonnegative().optional(), unit: z.enum(["chars", "words"]).optional() })
  .refine((v) => v.min !== undefined || v.max !== undefined, "length needs min or max")
  .refine((v) => v.min === undefined || v.max === undefined || v.min <= v.max, "length min is greater than max, so no response can pass");
export type LengthSpec = z.infer<typeof LengthSpec>;

export const length = defineCheck<LengthSpec>({
  key: "length",
  spec: LengthSpec,
  summary: "the text has at least min and at most max characters or words (runs of letters and digits: `a/b/c` is three, each CJK character one)",
  pure: true,
  passesEmpty: (spec) => (spec.min ?? 0) === 0,
  hacks: [
    hiddenPadding("length-hidden-padding", "an HTML comment, which no page shows", (padding) => `<!-- ${padding}-->`),
    hiddenPadding("length-stylesheet-padding", "an element a `<style>` rule hides (display: none)", (padding) => `<style>.more{display:none}</style><span class="more">${padding}</span>`),
  ],
  fix: (_spec, { criterionId }) => `Code check "${criterionId}" rewards length alone: give it \`when:\` a correctness criterion so a wrong answer cannot collect it.`,
  run(spec, { text, memo }) {
    const unit = spec.unit ?? "chars";
    // Words are runs of letters and digits (text/words.ts): punctuation, invisible characters and
    // blank-looking letters separate them, else a long answer joined by them ("a/b/c", zero-width
    // spaces) would count as one word under a `max`.
    const measure = unit === "words" ? countWords : visibleChars;
    const size = measure(text);
    // A `min` counts what a page shows (text/markup.ts): words in an HTML comment, a link's address
    // or a character reference's digits pad a response no reader sees. A `max` counts the text as
    // written, the larger of the two readings, so neither bound is met by markup.
    const shown = spec.min === undefined ? size : measure(shownOnce(text, memo));
    const pass = (spec.min === undefined || shown >= spec.min) && (spec.max === undefined || size <= spec.max);
    const allowed = `(allowed ${spec.min ?? 0}–${spec.max ?? "∞"})`;
    return { pass, reasoning: shown === size ? `${size} ${unit} ${allowed}` : `${size} ${unit} as written, ${shown} as a page shows it ${allowed}` };
  },
});

/**
 * A hack on a `min`: a one-word answer padded to the min inside what `hide` makes of the padding,
 * which no page shows. Where "Yes." alone meets the min (a `min: 1` gate) the response deserves to
 * pass, so it shows nothing then.
 */
function hiddenPadding(id: string, inside: string, hide: (padding: string) => string): CheckHack<LengthSpec> {
  return {
    id,
    description: `a one-word answer (or, where one word meets the min, nothing) padded to the min inside ${inside}`,
    build(spec) {
      if (!spec.min) return undefined;
      const yesFallsShort = spec.min > (spec.unit === "words" ? 1 : "Yes.".length);
      return { response: `${yesFallsShort ? "Yes. " : ""}${hide((spec.unit === "words" ? "more " : "x").repeat(spec.min))}` };
    },
  };
}

/** Combining marks: an accent is part of the letter it sits on, however many are stacked. */
const MARKS = /\p{M}/gu;

/**
 * The characters (code points) a reader sees: invisible ones and combining marks not counted,
 * each run of white space one, none at either end. Else `min` would be met by padding: "ok" and
 * 300 spaces, zero-width spaces or stacked accents.
 */
export function visibleChars(text: string): number {
  const shown = stripInvisible(text).replace(MARKS, "").replace(/\s+/g, " ").trim();
  let count = 0;
  for (const _character of shown) count++;
  return count;
}
