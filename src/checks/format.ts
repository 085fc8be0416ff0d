/**
 * Format checks: required XML-style tags in order (verifiers' XMLParser format reward), and a
 * final-answer line. The `tag` option every check shares (see run.ts) reads one tag's content.
 *
 * rubric:  check: { tags: { required: [reasoning, answer] } }
 *          check: { final_answer: { format: boxed } }
 */
import { z } from "zod";
import { extractAnswer, lastBoxed } from "./math/extract.js";
import { defineCheck } from "./kind.js";

const TagName = z.string().regex(/^[A-Za-z][\w.-]*$/, "a tag name is letters, digits, '_', '-', '.'");

export const TagsSpec = z.strictObject({
  required: z.array(TagName).min(1).describe("Tags that must each appear, opened and closed: <name>…</name>"),
  ordered: z.boolean().optional().describe("They appear in the listed order (default true)"),
  once: z.boolean().optional().describe("Each appears exactly once (default true)"),
  nothing_after: z.boolean().optional().describe("No text after the last required tag closes (default false)"),
});
export type TagsSpec = z.infer<typeof TagsSpec>;

interface TagSpan {
  start: number;
  end: number;
  content: string;
}

/** Every complete `<name>…</name>` in the text, in order (not nested in itself). */
export function tagSpans(text: string, name: string): TagSpan[] {
  const spans: TagSpan[] = [];
  const open = `<${name}>`;
  const close = `</${name}>`;
  const lower = text.toLowerCase();
  let from = 0;
  for (;;) {
    const start = lower.indexOf(open.toLowerCase(), from);
    if (start === -1) return spans;
    const end = lower.indexOf(close.toLowerCase(), start + open.length);
    if (end === -1) return spans;
    spans.push({ start, end: end + close.length, content: text.slice(start + open.length, end) });
    from = end + close.length;
  }
}

/** The trimmed content of the last `<name>…</name>` (verifiers' XMLParser.parse_answer), or undefined. */
export function tagContent(text: string, name: string): string | undefined {
  const spans = tagSpans(text, name);
  return spans.length ? spans[spans.length - 1].content.trim() : undefined;
}

export const tagsCheck = defineCheck<TagsSpec>({
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

export const FinalAnswerSpec = z.strictObject({
  format: z.enum(["any", "boxed", "line", "gsm8k"]).optional().describe("any (default): \\boxed{…}, a 'Final answer: …' line or '#### …'; boxed; line; gsm8k ('#### n')"),
});
export type FinalAnswerSpec = z.infer<typeof FinalAnswerSpec>;

const ANSWER_LINE = /^\s*(?:\*\*)?(?:final answer|answer)(?:\*\*)?(?:\s+is\b|\s*[:：])(?:\*\*)?\s*\S/im;
const GSM8K_LINE = /^####\s*\S/m;

export const finalAnswerCheck = defineCheck<FinalAnswerSpec>({
  key: "final_answer",
  spec: FinalAnswerSpec,
  summary: "states a final answer in the expected form (\\boxed{}, an 'Answer:' line, '#### n')",
  run(spec, { text }) {
    const format = spec.format ?? "any";
    const tail = text.slice(-8000);
    const boxed = lastBoxed(tail);
    const found =
      format === "boxed" ? (boxed !== undefined && boxed.trim() !== "" ? "\\boxed{…}" : undefined)
      : format === "gsm8k" ? (GSM8K_LINE.test(tail) ? "#### line" : undefined)
      : format === "line" ? (ANSWER_LINE.test(tail) ? "answer line" : undefined)
      : boxed !== undefined && boxed.trim() !== "" ? "\\boxed{…}" : GSM8K_LINE.test(tail) ? "#### line" : ANSWER_LINE.test(tail) || /final answer is\s*\S/i.test(tail) ? "answer line" : undefined;
    if (!found) return { pass: false, reasoning: `no final answer in the ${format === "any" ? "expected" : format} form` };
    const answer = format === "any" || format === "boxed" ? extractAnswer(tail, format === "boxed" ? "boxed" : "auto") : undefined;
    return { pass: true, reasoning: `final answer given (${found}${answer ? `: ${JSON.stringify(answer.slice(0, 60))}` : ""})` };
  },
});
