/**
 * `tags`: required XML-style sections in order (verifiers' XMLParser format reward).
 *
 * rubric:  check: { tags: { required: [reasoning, answer] } }
 */
import { z } from "zod";
import { tagSpans } from "../format.js";
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
  summary: "required <tag>…</tag> sections, in order, each once",
  run(spec, { text }) {
    const problems: string[] = [];
    const firsts: number[] = [];
    let lastEnd = 0;
    for (const name of spec.required) {
      const spans = tagSpans(text, name);
      if (spans.length === 0) {
        const opened = text.toLowerCase().includes(`<${name.toLowerCase()}>`);
        problems.push(opened ? `<${name}> is never closed` : `no <${name}>…</${name}>`);
        continue;
      }
      if ((spec.once ?? true) && spans.length > 1) problems.push(`<${name}> appears ${spans.length} times`);
      firsts.push(spans[0].start);
      lastEnd = Math.max(lastEnd, spans[spans.length - 1].end);
    }
    if (problems.length === 0 && (spec.ordered ?? true) && firsts.some((p, i) => i > 0 && p < firsts[i - 1])) {
      problems.push(`tags out of order (expected ${spec.required.map((n) => `<${n}>`).join(" then ")})`);
    }
    if (problems.length === 0 && spec.nothing_after && text.slice(lastEnd).trim() !== "") problems.push("text after the last tag");
    return problems.length ? { pass: false, reasoning: problems.join("; ") } : { pass: true, reasoning: `has ${spec.required.map((n) => `<${n}>`).join(", ")}` };
  },
});

