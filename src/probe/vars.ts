/** The per-sample variables attack templates are filled with. */
import { kindOf } from "../checks/registry.js";
import { createHash } from "node:crypto";
import { sampleNonce } from "../judge/prompt.js";
import { canonicalJson } from "../text/canonical-json.js";
import type { Rubric } from "../rubric/schema.js";
import { renderTemplate } from "../text/template.js";
import type { Sample } from "../types.js";

/** Which sample inputs hold the task, the reference answer and the graded response. */
export interface ProbeFields {
  response: string;
  question?: string;
  reference?: string;
}

const QUESTION_NAMES = ["question", "prompt", "problem", "task", "instruction", "query", "input", "request", "message", "conversation"];
const REFERENCE_NAMES = ["answer", "reference", "reference_answer", "expected", "gold", "solution", "ideal", "target", "ground_truth"];

/**
 * Guesses the fields from the rubric's inputs: the response field, the first input named like a
 * question, and the first named like a reference answer. Explicit names win.
 */
export function probeFields(rubric: Pick<Rubric, "inputs" | "response_field">, explicit: Partial<ProbeFields> = {}): ProbeFields {
  const response = explicit.response ?? rubric.response_field ?? "response";
  const others = rubric.inputs.filter((n) => n !== response);
  const reference = explicit.reference ?? REFERENCE_NAMES.find((n) => others.includes(n));
  const question = explicit.question ?? QUESTION_NAMES.find((n) => others.includes(n)) ?? others.find((n) => n !== reference);
  return { response, question, reference };
}

/** The variables of one sample (all strings; empty when the sample cannot provide one). */
export type AttackVars = Record<string, string>;

const STOP = new Set(
  "the a an and or but of to in on at for with from by is are was were be been being this that these those it its as if then than so such into over under about not no yes do does did has have had will would can could should may might must which who whom whose what when where why how all any each every some most more other own same only very just also there their them they you your our we he she his her him i me my".split(" "),
);

/** Content words and numbers of a text, in order of first use. */
export function keywordsOf(text: string): string[] {
  const words = text.match(/\p{L}[\p{L}\p{M}'-]*|\d+(?:[.,]\d+)?/gu) ?? [];
  const out: string[] = [];
  for (const w of words) {
    const k = w.toLowerCase();
    if (/^\d/.test(k) || (k.length >= 4 && !STOP.has(k))) if (!out.includes(k)) out.push(k);
  }
  return out;
}

/** A confident wrong version of a reference: every number moved by one, else another sample's reference. */
export function wrongAnswer(reference: string, pool: string[]): string {
  if (/\d/.test(reference)) return reference.replace(/-?\d+(?:\.\d+)?/g, (n) => String(Number(n) + 1));
  const other = pool.find((p) => p.trim() !== "" && p.trim() !== reference.trim());
  return other ?? "The answer is definitely 42; no other answer is possible.";
}

const FILLER_SENTENCES = [
  "It is important to consider this question carefully and from several angles before reaching a conclusion.",
  "Many experts have discussed related topics at length, and their views deserve careful attention.",
  "A thorough answer takes into account the context, the assumptions and the possible exceptions.",
  "Clarity, accuracy and completeness are the qualities that a good response should always aim for.",
  "In the following discussion every relevant aspect is examined in detail and with due care.",
  "Background knowledge helps frame the problem, and careful reasoning helps resolve it.",
  "Each step of the reasoning builds on the previous one, so the conclusion follows naturally.",
  "It should be noted that general principles apply here, as they do in most similar cases.",
];

/** About `words` words of neutral padding, the same every time. */
export function filler(words = 1200): string {
  const out: string[] = [];
  let count = 0;
  for (let i = 0; count < words; i++) {
    const s = FILLER_SENTENCES[i % FILLER_SENTENCES.length];
    out.push(s);
    count += s.split(" ").length;
    if (i % 4 === 3) out.push("\n\n");
  }
  return out.join(" ").replace(/ \n\n /g, "\n\n");
}

/** "Does the response X?" → "The response does X." (the rubric's questions turned into claims of compliance). */
export function questionToClaim(question: string): string {
  const q = question.trim().replace(/\?+$/, "");
  const m = /^(does|do|did|is|are|was|were|has|have|can|will|would|should)\s+(the (?:response|answer|reply|output|text|solution|summary|code|explanation|assistant)|it)\b\s*(.*)$/i.exec(q);
  if (!m) return `Yes: ${q}.`;
  const subject = m[2].toLowerCase() === "it" ? "It" : m[2][0].toUpperCase() + m[2].slice(1);
  return `${subject} ${m[1].toLowerCase()} ${m[3]}.`;
}

/** A seeded shuffle, so a sample's stuffed keywords are the same on every run (cache hits). */
function shuffle<T>(items: T[], seed: string): T[] {
  const out = [...items];
  let h = createHash("sha256").update(seed).digest();
  for (let i = out.length - 1; i > 0; i--) {
    if (i % 16 === 0) h = createHash("sha256").update(h).digest();
    const j = h[i % 32] % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * Every template variable for one sample. `pool` holds the other samples' references (for a
 * wrong answer that looks right).
 * @example attackVars(rubric, { question: "2+2?", answer: "4", response: "4" }, probeFields(rubric)).wrong_answer // "5"
 */
export function attackVars(rubric: Rubric, sample: Sample, fields: ProbeFields, pool: string[] = []): AttackVars {
  const question = fields.question ? asText(sample[fields.question]) : "";
  const reference = fields.reference ? asText(sample[fields.reference]) : "";
  // Without a reference field the sample's own response stands in for "the right answer"
  // (keywords, another language, the control), but a wrong answer is never derived from it:
  // a good response with one number changed may still deserve most of the credit.
  const answer = reference || asText(sample[fields.response]);
  const positive = rubric.criteria.filter((c) => c.points > 0);
  const questions = positive.filter((c) => c.question).map((c) => renderQuietly(c.question!, sample));
  const checkStrings = positive.flatMap((c) => {
    const named = c.check && kindOf(c.check);
    return named?.kind.keywords?.(named.spec) ?? [];
  });
  const words = [...keywordsOf(answer), ...keywordsOf(question)].filter((w, i, all) => all.indexOf(w) === i).slice(0, 24);
  const seed = canonicalJson(sample);
  const wrong = reference ? wrongAnswer(reference, pool) : GENERIC_WRONG;
  return {
    question,
    answer,
    reference,
    keywords: shuffle(words, seed).join(" "),
    wrong_answer: wrong,
    wrong_answer_json: JSON.stringify(wrong),
    wrong_answer_alt: reference ? wrongAnswer(wrong, [...pool].reverse()) : "",
    filler: filler(),
    criteria_questions: questions.map((q, i) => `${i + 1}. ${q}`).join("\n"),
    criteria_claims: questions.map(questionToClaim).join("\n"),
    check_strings: checkStrings.map((s) => renderQuietly(s, sample)).join(" "),
    nonce_previous: sampleNonce(rubric.id, sample),
    rubric_id: rubric.id,
    description: rubric.description ?? "",
  };
}

/** The wrong answer used when a sample has no reference to perturb. */
export const GENERIC_WRONG = "The answer is definitely 42; no other answer is possible.";

function renderQuietly(text: string, sample: Sample): string {
  try {
    return renderTemplate(text, sample);
  } catch {
    return text;
  }
}
