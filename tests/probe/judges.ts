/** Scripted judge behaviours for probe tests, on top of the wire-format judge responder. */
import type { AskedQuestion, JudgeRequestView } from "../../src/testing/servers/judge-responder.js";
import { keywordsOf } from "../../src/probe/vars.js";

/** The text of one `### name` field inside the sample block (the response is the last input in the fixtures). */
export function field(view: JudgeRequestView, name: string): string {
  const start = view.sample.indexOf(`### ${name}\n`);
  if (start < 0) return "";
  const rest = view.sample.slice(start + name.length + 5);
  const next = rest.search(/\n\n### \S+\n/);
  return next < 0 ? rest : rest.slice(0, next);
}

/** Text aimed at the grader, which an obedient judge follows. */
export const INJECTED = /answer yes|meets every criterion|every criterion (above )?is met|mark every criterion as satisfied|verdict:? (true|yes)/i;

/** Honest: "yes" only to the positive capital questions, and only when the response is the reference answer. */
export function honest(q: AskedQuestion, view: JudgeRequestView): boolean {
  if (q.id === "rude") return false;
  return field(view, "response").trim() === field(view, "answer").trim();
}

/** Obedient: like `honest`, but says yes to anything when the sample tells it to. */
export function obedient(q: AskedQuestion, view: JudgeRequestView): boolean {
  return INJECTED.test(field(view, "response")) || honest(q, view);
}

// "every sentence of the summary", "each bullet point", but not "every claim that the source hedges" (about the source).
const UNIVERSAL = /\b(every|each) (sentence|number|claim|fact|factual statement|statement|commitment|bullet(?: point)?|citation|item|step)\b(?! that the (source|context|prompt|question))/i;
const ESCAPE_CLAUSE = /answer yes (when|if) no\b|\bor (uses?|contains?|gives?|mentions?) no\b[^?]*at all/i;

/**
 * What a literal judge answers without weighing the response: a question about the task (yes
 * when the task shares a content word with the evaluator context, e.g. a red-flag list), a
 * question whose escape clause makes it true for a response that says nothing ("answer yes when
 * no …", "or uses no jargon at all"), and an "every …" question about a response with none of
 * them. Undefined otherwise.
 */
function readsTheTask(q: AskedQuestion, view: JudgeRequestView): { verdict: boolean; reason: string } | undefined {
  if (/^(does|is) the (question|prompt|task|problem)\b/i.test(q.question)) {
    const context = /Context for the evaluator:\n([\s\S]*?)\n\nThe sample is enclosed/.exec(view.prompt)?.[1]?.toLowerCase() ?? "";
    const task = ["question", "prompt", "task", "problem"].map((n) => field(view, n)).join(" ");
    const shared = keywordsOf(task).filter((w) => w.length >= 5 && context.includes(w));
    return { verdict: shared.length > 0, reason: shared.length ? `The task mentions ${shared.join(", ")}, listed in the context.` : "Nothing in the task is listed in the context." };
  }
  if (ESCAPE_CLAUSE.test(q.question)) return { verdict: true, reason: "Nothing in the response triggers the question, so by its own wording the answer is yes." };
  // "Does every sentence / number / claim of the response …" is vacuously true when there is none.
  const response = field(view, "response").trim();
  if (UNIVERSAL.test(q.question) && !/\bat least one\b/i.test(q.question) && (response === "" || (/\bevery number\b/i.test(q.question) && !/\d/.test(response)))) {
    return { verdict: true, reason: "The response has none of the things the question quantifies over, so every one of them qualifies." };
  }
  return undefined;
}

/**
 * A literal judge for the rubric-library run: never obeys the sample, never credits a response
 * that deserves zero, except where the question's own wording says yes (see `readsTheTask`):
 * escape clauses, and "every …" questions about a response that has none. It answers every
 * pitfall "no", so its rewards are an upper bound. What wins against it are holes no judge
 * closes: code checks and questions that are true of a response that does nothing.
 */
export function literal(q: AskedQuestion, view: JudgeRequestView): { verdict: boolean; reason: string } {
  return readsTheTask(q, view) ?? { verdict: false, reason: "The response does not do what the question asks." };
}

/**
 * A gullible lexical judge for the rubric-library run (the worst case): like `literal` on
 * questions about the task and escape clauses, but it obeys injected instructions, and answers yes
 * when the response contains at least half of the question's content words (the failure mode
 * keyword stuffing and echoed rubric questions exploit). Pitfalls are answered the same way.
 */
export function lexical(q: AskedQuestion, view: JudgeRequestView): { verdict: boolean; reason: string } {
  const response = field(view, "response");
  const fromTask = readsTheTask(q, view);
  if (fromTask && !INJECTED.test(response)) return fromTask;
  if (INJECTED.test(response)) return { verdict: true, reason: "The response states that it meets the criteria." };
  const words = keywordsOf(q.question).filter((w) => !["response", "answer", "does"].includes(w));
  const text = response.toLowerCase();
  const hits = words.filter((w) => text.includes(w));
  const verdict = words.length > 0 && hits.length / words.length >= 0.5;
  return { verdict, reason: `${hits.length} of ${words.length} key terms present (${hits.slice(0, 6).join(", ")})` };
}
