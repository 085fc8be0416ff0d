/**
 * Quote checking for criteria with `quote: true`: the judge copies the span of the sample its
 * verdict rests on, and a quote that is not in the sample means the judge is describing a sample
 * it did not read — the question is asked again rather than trusted.
 */

/** Lower case, one space for any whitespace run, straight quotes, NFKC; so line breaks and curly quotes do not defeat a faithful quote. */
function normalise(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/[\u2018\u2019\u201a\u201b]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f]/g, '"')
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

/** A quote's pieces: split at elisions ("..." or "…"), each stripped of surrounding quote marks. */
function pieces(quote: string): string[] {
  return quote
    .split(/\.{3}|\u2026/)
    .map((p) => normalise(p).replace(/^["'`]+|["'`]+$/g, "").trim())
    .filter((p) => p.length > 0);
}

/** Verbs an omission question asks about ("fail to mention", "does not warn", …). */
const OMITTED = "(?:mention|include|give|say|state|provide|address|ask|warn|recommend|refer|tell|explain|cite|name|advise|disclose|acknowledge)";
const ABSENCE = new RegExp(`\\b(?:fail(?:s|ed)?\\s+to\\s+${OMITTED}|(?:not|\\w+n't)\\s+(?:\\w+\\s+){0,3}?${OMITTED}|omits?|lacks?|missing|absent|leaves?\\s+out)\\b`, "i");

/**
 * Whether a question asks about something the sample lacks ("Does the response fail to mention
 * when to see a doctor?"): its yes rests on an absence, so there is no span to quote.
 * @example asksAboutAbsence("Does the response fail to mention a dose?") // true
 */
export function asksAboutAbsence(question: string): boolean {
  return ABSENCE.test(question);
}

/**
 * Why a judge's quote cannot be accepted, or undefined when it can: a yes with no quote (unless
 * the question asks about an absence: an omission has no span to quote), or a quote (any piece
 * between elisions) that does not occur in the sample text. A no may quote nothing (what the
 * question describes is absent).
 * @example quoteProblem({ verdict: true, quote: "take 5 g" }, "Take 5 g daily.") // undefined
 */
export function quoteProblem(answer: { verdict: boolean; quote?: string }, sampleText: string, question = ""): string | undefined {
  const quote = answer.quote?.trim() ?? "";
  if (quote === "") return answer.verdict && !asksAboutAbsence(question) ? "the verdict is yes but the judge quoted nothing from the sample" : undefined;
  const haystack = normalise(sampleText);
  const missing = pieces(quote).find((p) => !haystack.includes(p));
  if (missing === undefined) return undefined;
  const shown = missing.length > 80 ? `${missing.slice(0, 80)}…` : missing;
  return `the judge's quote "${shown}" does not occur in the sample`;
}
