/**
 * `tags`: required XML-style sections in order (verifiers' XMLParser format reward).
 *
 * rubric:  check: { tags: { required: [reasoning, answer] } }
 */
import * as z from "zod";
import { isBlank } from "../../text/invisible.js";
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
      build: (spec) => ({ response: spec.required.map((n) => `<${n}></${n}>`).join("\n") }),
    },
    {
      id: "tags-invisible",
      description: "every section present, in order, holding only invisible characters",
      build: (spec) => ({ response: spec.required.map((n) => `<${n}>\u200B\u2800</${n}>`).join("\n") }),
    },
    {
      id: "tags-blank",
      description: "every section present, in order, holding only white space",
      build: (spec) => ({ response: spec.required.map((n) => `<${n}>\n \n</${n}>`).join("\n") }),
    },
  ],
  run(spec, { text }) {
    const problems: string[] = [];
    const firsts: number[] = [];
    const found: { name: string; span: TagSpan }[] = [];
    let lastEnd = 0;
    for (const name of spec.required) {
      const spans = tagSpans(text, name);
      if (spans.length === 0) {
        const opened = text.toLowerCase().includes(`<${name.toLowerCase()}>`);
        problems.push(opened ? `<${name}> is never closed` : `no <${name}>…</${name}>`);
        continue;
      }
      if ((spec.once ?? true) && spans.length > 1) problems.push(`<${name}> appears ${spans.length} times`);
      // An empty section is the form without the content: it must not earn the format reward.
      // Invisible characters (a zero-width space, the Braille blank) are no content either.
      if (spans.some((s) => isBlank(s.content))) problems.push(`<${name}> is empty`);
      found.push(...spans.map((span) => ({ name, span })));
      firsts.push(spans[0].start);
      lastEnd = Math.max(lastEnd, spans[spans.length - 1].end);
    }
    problems.push(...overlaps(found));
    if (problems.length === 0 && (spec.ordered ?? true) && firsts.some((p, i) => i > 0 && p < firsts[i - 1])) {
      problems.push(`tags out of order (expected ${spec.required.map((n) => `<${n}>`).join(" then ")})`);
    }
    if (problems.length === 0 && spec.nothing_after && text.slice(lastEnd).trim() !== "") problems.push("text after the last tag");
    return problems.length ? { pass: false, reasoning: problems.join("; ") } : { pass: true, reasoning: `has ${spec.required.map((n) => `<${n}>`).join(", ")}` };
  },
});


/**
 * Sections of different required tags that are not side by side: `<answer>` inside `<reasoning>`
 * would let a reasoning block that merely contains an answer tag pass as the whole layout.
 */
function overlaps(found: { name: string; span: TagSpan }[]): string[] {
  const problems = new Set<string>();
  for (const a of found) {
    for (const b of found) {
      if (a.name === b.name || a.span.start > b.span.start) continue;
      if (b.span.start < a.span.end) problems.add(b.span.end <= a.span.end ? `<${b.name}> is inside <${a.name}>` : `<${a.name}> and <${b.name}> overlap`);
    }
  }
  return [...problems];
}
