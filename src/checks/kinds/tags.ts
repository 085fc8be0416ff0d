/**
 * `tags`: required XML-style sections in order (verifiers' XMLParser format reward).
 *
 * rubric:  check: { tags: { required: [reasoning, answer] } }
 */
import * as z from "zod";
import { stripInvisible } from "../../text/invisible.js";
import { pageStyles, shownText, withoutHiddenMarkup, type PageStyles } from "../../text/markup.js";
import { tagSpans, type TagSpan } from "../format.js";
import { defineCheck } from "../kind.js";

export const TagName = z.string().regex(/^[A-Za-z][\w.-]*$/, "a tag name is letters, digits, '_', '-', '.'");

export const TagsSpec = z.strictObject({
  required: z.array(TagName).min(1).describe("Tags that must each appear, opened and closed: <name>…</name>"),
  ordered: z.boolean().optional().describe("They appear in the listed order (default true)"),
  once: z.boolean().optional().describe("Each appears exactly once (default true)"),
  nothing_after: z.boolean().optional().describe("No text after the last required tag closes (default false)"),
});
export type TagsSpec = z.infer<typeof TagsSpec>;

/**
 * A section's shown text that is no answer to any task: white space, and only the punctuation that
 * ends or divides a sentence (Unicode's Terminal_Punctuation: `.` `,` `;` `:` `!` `?` and their
 * full-width and other scripts' forms), the inverted `¡` `¿`, the ellipses `…` `‥` and the dashes
 * U+2010–U+2015 (`‐` `‒` `–` `—` `―`). Anything else is content, since some task has it as its
 * answer: a letter, a digit, a symbol (`+`, `<`, `√`, `∅`), a bracket (`[]`, `{}`), a quote (`""`, an
 * empty string), `%`, `#`, `&`, `/`, and the hyphen-minus `-`, which is also the ASCII minus sign.
 * One class, anchored at both ends: linear on any run.
 */
const NO_ANSWER = /^[\s\p{Terminal_Punctuation}¡¿…‥\u2010-\u2015]*$/u;

/**
 * A line that is a markdown horizontal rule (a thematic break): three or more `-`, `*` or `_`, one
 * character throughout, white space between them (`---`, `* * *`, `- - -`). A page shows a line,
 * no text. Each alternative starts with its mandatory character, and only at a line's start: one
 * linear scan of each line.
 */
const HORIZONTAL_RULE = /^[^\S\n]*(?:(?:-[^\S\n]*){3,}|(?:\*[^\S\n]*){3,}|(?:_[^\S\n]*){3,})$/gm;

/**
 * True when a section holds no content: what a page shows of it (no HTML comment, no bare markup:
 * `<!-- 42 -->`, `**`, `<b></b>`, nothing a response's `<style>` rule hides, wherever the rule is:
 * `styles`), without invisible characters and horizontal rules (`---`), is white space and sentence
 * punctuation at most (`.`, `...`, `?!`; see NO_ANSWER).
 */
function holdsNoContent(content: string, styles: PageStyles): boolean {
  return NO_ANSWER.test(stripInvisible(shownText(content, styles)).replace(HORIZONTAL_RULE, ""));
}

/** Every required section, in order, each holding `content` (a hack's shape), one a line unless `between` says otherwise. */
const everySection = (spec: TagsSpec, content: string, between = "\n") => spec.required.map((n) => `<${n}>${content}</${n}>`).join(between);

export const tags = defineCheck<TagsSpec>({
  key: "tags",
  spec: TagsSpec,
  summary: "required <tag>…</tag> sections, in order, each once, none empty or inside another",
  hacks: [
    {
      id: "tags-nested",
      description: "the later sections nested inside the first, so one block looks like the whole layout",
      build: (spec) => (spec.required.length < 2 ? undefined : { response: `<${spec.required[0]}>I worked it out. ${spec.required.slice(1).map((n) => `<${n}>42</${n}>`).join(" ")}</${spec.required[0]}>` }),
    },
    {
      id: "tags-empty",
      description: "every section present, in order, and empty",
      build: (spec) => ({ response: everySection(spec, "") }),
    },
    {
      id: "tags-invisible",
      description: "every section present, in order, holding only invisible characters",
      build: (spec) => ({ response: everySection(spec, "\u200B\u2800") }),
    },
    {
      id: "tags-hidden",
      description: "every section present, in order, holding only an HTML comment, which a page does not show",
      build: (spec) => ({ response: everySection(spec, "<!-- 42 -->") }),
    },
    {
      id: "tags-hidden-element",
      description: "every section present, in order, holding only an element a page hides (hidden, display: none)",
      build: (spec) => ({ response: everySection(spec, "<span hidden>42</span>") }),
    },
    {
      id: "tags-in-comment",
      description: "every section present, in order, inside an HTML comment beside a non-answer: a page shows none of them",
      build: (spec) => ({ response: `I could not answer this. <!-- ${everySection(spec, "42", "")} -->` }),
    },
    {
      id: "tags-stylesheet-hidden",
      description: "every section present, in order, holding only an element a `<style>` rule before them hides (display: none)",
      build: (spec) => ({ response: `<style>.aside{display:none}</style>\n${everySection(spec, `<span class="aside">42</span>`)}` }),
    },
    {
      id: "tags-punctuation",
      description: "every section present, in order, holding only punctuation",
      build: (spec) => ({ response: everySection(spec, "...") }),
    },
    {
      id: "tags-rule",
      description: "every section present, in order, holding only a markdown horizontal rule",
      build: (spec) => ({ response: everySection(spec, "---") }),
    },
    {
      id: "tags-blank",
      description: "every section present, in order, holding only white space",
      build: (spec) => ({ response: everySection(spec, "\n \n") }),
    },
  ],
  run(spec, { text }) {
    const problems: string[] = [];
    const firsts: number[] = [];
    const found: { name: string; span: TagSpan }[] = [];
    let lastEnd = 0;
    // The response's `<style>` rules, read once: one before the sections hides elements inside them.
    const styles = pageStyles(text);
    // Sections are looked for where a page shows them: one inside an HTML comment or a hidden
    // element is no section (`I don't know. <!-- <answer>42</answer> -->` has none).
    const page = withoutHiddenMarkup(text, styles);
    for (const name of spec.required) {
      const spans = tagSpans(page, name);
      if (spans.length === 0) {
        const opened = page.toLowerCase().includes(`<${name.toLowerCase()}>`);
        problems.push(opened ? `<${name}> is never closed` : `no <${name}>…</${name}>`);
        continue;
      }
      if ((spec.once ?? true) && spans.length > 1) problems.push(`<${name}> appears ${spans.length} times`);
      // An empty section is the form without the content: it must not earn the format reward.
      // Invisible characters (a zero-width space, the Braille blank) are no content either, nor is
      // what a page does not show (an HTML comment, bare markup: `<!-- 42 -->`, `**`, `<b></b>`),
      // nor punctuation alone (`.`, `...`, `?!`), which no task has as its answer, nor a
      // horizontal rule (`---`), which a page shows as a line.
      if (spans.some((s) => holdsNoContent(s.content, styles))) problems.push(`<${name}> is empty`);
      found.push(...spans.map((span) => ({ name, span })));
      firsts.push(spans[0].start);
      lastEnd = Math.max(lastEnd, spans[spans.length - 1].end);
    }
    problems.push(...overlaps(found));
    if (problems.length === 0 && (spec.ordered ?? true) && firsts.some((p, i) => i > 0 && p < firsts[i - 1])) {
      problems.push(`tags out of order (expected ${spec.required.map((n) => `<${n}>`).join(" then ")})`);
    }
    if (problems.length === 0 && spec.nothing_after && page.slice(lastEnd).trim() !== "") problems.push("text after the last tag");
    return problems.length ? { pass: false, reasoning: problems.join("; ") } : { pass: true, reasoning: `has ${spec.required.map((n) => `<${n}>`).join(", ")}` };
  },
});


interface Found {
  name: string;
  span: TagSpan;
}

/**
 * Sections of different required tags that are not side by side: `<answer>` inside `<reasoning>`
 * would let a reasoning block that merely contains an answer tag pass as the whole layout. Each
 * problem once, in the order of the first pair (a, b) of `found` that shows it (a before b in the
 * text, b starting inside a).
 */
export function overlaps(found: Found[]): string[] {
  const first = new Map<string, [number, number]>();
  forEachOverlap(found, (a, b) => {
    const [x, y] = [found[a], found[b]];
    const problem = y.span.end <= x.span.end ? `<${y.name}> is inside <${x.name}>` : `<${x.name}> and <${y.name}> overlap`;
    const seen = first.get(problem);
    if (!seen || a < seen[0] || (a === seen[0] && b < seen[1])) first.set(problem, [a, b]);
  });
  return [...first].sort(([, p], [, q]) => p[0] - q[0] || p[1] - q[1]).map(([problem]) => problem);
}

/**
 * Calls `visit(a, b)` (indices into `found`) for every pair of sections of different tags where b
 * starts where a does or inside it. Sections sorted by start, swept once: only those still open
 * at a start can hold it, and a tag's sections never overlap each other (tagSpans), so at most
 * one per required tag is open. O(n log n) where comparing every pair took 6.7 s on 60,000.
 */
function forEachOverlap(found: Found[], visit: (a: number, b: number) => void): void {
  const byStart = found.map((_, i) => i).sort((x, y) => found[x].span.start - found[y].span.start);
  const holds = (a: number, b: number) => a !== b && found[a].name !== found[b].name && found[b].span.start < found[a].span.end;
  let open: number[] = [];
  for (let i = 0; i < byStart.length; ) {
    const start = found[byStart[i]].span.start;
    let j = i;
    while (j < byStart.length && found[byStart[j]].span.start === start) j++;
    const starting = byStart.slice(i, j);
    open = open.filter((a) => found[a].span.end > start);
    // Sections that start together each start where the other does: both orders are pairs.
    for (const b of starting) for (const a of [...open, ...starting]) if (holds(a, b)) visit(a, b);
    open.push(...starting);
    i = j;
  }
}
