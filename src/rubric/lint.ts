/**
 * The rubric linter: static checks that a rubric's questions are ones a judge answers the way
 * the expert would (binary, one ask, a standard for every judgement word, the right polarity),
 * and that its points and examples make sense.
 */
import type { Criterion, Rubric } from "./schema.js";
import { checkFindings } from "./lint-checks.js";
import { QUESTION_RULES, stripQuoted, tokens, type LintFinding, type LintRule, type LintSeverity } from "./lint-rules.js";

export type { LintFinding, LintRule, LintSeverity } from "./lint-rules.js";
export { QUESTION_RULES } from "./lint-rules.js";

/** Options of `lintRubric`. */
export interface LintOptions {
  /** Token similarity (0–1) above which two questions count as near-duplicates (default 0.7). */
  duplicateThreshold?: number;
  /** Largest share of the positive points one criterion may carry (default 0.5). */
  maxShare?: number;
}

/** The tag that silences one rule on one criterion, on purpose: `tags: [lint-ignore:multiple-asks]`. */
export const IGNORE_TAG_PREFIX = "lint-ignore:";

/**
 * Lints a loaded rubric: every finding with the criterion, rule, severity, reason and a rewrite pattern.
 * @example
 * const findings = lintRubric(loadRubricSync("rubrics/rag-answer.yaml"));
 * const failed = findings.some((f) => f.severity === "error");
 */
export function lintRubric(rubric: Pick<Rubric, "criteria"> & Partial<Pick<Rubric, "inputs">>, options: LintOptions = {}): LintFinding[] {
  const findings: LintFinding[] = [];
  for (const criterion of rubric.criteria) {
    if (criterion.question !== undefined) findings.push(...lintQuestion(criterion.question, { id: criterion.id, points: criterion.points }));
    findings.push(...exampleFindings(criterion));
  }
  findings.push(...duplicateFindings(rubric.criteria, options.duplicateThreshold ?? 0.7));
  findings.push(...pointsFindings(rubric.criteria, options.maxShare ?? 0.5));
  findings.push(...checkFindings(rubric));
  const ignored = new Map(rubric.criteria.map((c) => [c.id, new Set((c.tags ?? []).filter((t) => t.startsWith(IGNORE_TAG_PREFIX)).map((t) => t.slice(IGNORE_TAG_PREFIX.length)))]));
  return findings.filter((f) => !ignored.get(f.criterion)?.has(f.rule));
}

/**
 * Lints one question's wording (the question rules only: no examples, duplicates or points).
 * @example lintQuestion("How well does it explain the diagnosis?") // [{ rule: "not-yes-no", severity: "error", … }]
 */
export function lintQuestion(question: string, criterion: { id?: string; points?: number } = {}): LintFinding[] {
  const input = { id: criterion.id ?? "?", question, points: criterion.points ?? 1 };
  return QUESTION_RULES.flatMap((rule) => rule(input).map((f) => ({ criterion: input.id, ...f })));
}

/** True when the findings should fail a run: any error, or with `strict` any warning. */
export function lintFails(findings: LintFinding[], strict = false): boolean {
  return findings.some((f) => f.severity === "error" || (strict && f.severity === "warning"));
}

function exampleFindings(criterion: Criterion): LintFinding[] {
  const examples = criterion.examples ?? [];
  if (examples.length === 0) {
    return [
      {
        criterion: criterion.id,
        rule: "no-examples",
        // A code check is its own definition; a question is only as good as the cases that pin it down.
        severity: criterion.question !== undefined ? "warning" : "info",
        message: "no examples: nothing shows the judge (or a reviewer) where the line between yes and no is",
        suggestion: "Add `examples:` with at least one response that is a yes and one that is a no, each with a `reason`.",
      },
    ];
  }
  const answers = new Set(examples.map((e) => e.answer));
  if (criterion.question !== undefined && answers.size === 1) {
    return [
      {
        criterion: criterion.id,
        rule: "one-sided-examples",
        severity: "info",
        message: `every example is a ${examples[0].answer ? "yes" : "no"}: the judge sees no case on the other side of the line`,
        suggestion: `Add a near-miss example whose answer is ${examples[0].answer ? "no" : "yes"}.`,
      },
    ];
  }
  return [];
}

const STOPWORDS = new Set(
  "a an the does do did is are was were has have had can could would will should shall may might must it its this that these those of to in on for with by as at from or and any response answer reply".split(" "),
);

/** Content tokens, crudely stemmed, for similarity. */
function contentTokens(question: string): Set<string> {
  return new Set(
    tokens(stripQuoted(question))
      .filter((t) => !STOPWORDS.has(t))
      .map((t) => t.replace(/([^s])s$/, "$1").replace(/(ing|ed)$/, "")),
  );
}

/** Jaccard similarity of two questions' content tokens (0–1). */
export function questionSimilarity(a: string, b: string): number {
  const x = contentTokens(a);
  const y = contentTokens(b);
  if (x.size === 0 && y.size === 0) return 1;
  let shared = 0;
  for (const t of x) if (y.has(t)) shared++;
  return shared / (x.size + y.size - shared);
}

function duplicateFindings(criteria: Criterion[], threshold: number): LintFinding[] {
  const asked = criteria.filter((c) => c.question !== undefined);
  const findings: LintFinding[] = [];
  for (let j = 1; j < asked.length; j++) {
    for (let i = 0; i < j; i++) {
      const similarity = questionSimilarity(asked[i].question!, asked[j].question!);
      if (similarity < threshold) continue;
      findings.push({
        criterion: asked[j].id,
        rule: "near-duplicate",
        severity: "warning",
        message: `nearly the same question as "${asked[i].id}" (similarity ${similarity.toFixed(2)}): the same behaviour is counted twice`,
        suggestion: "Merge the two, or make each ask about a distinct, observable property.",
      });
      break;
    }
  }
  return findings;
}

function pointsFindings(criteria: Criterion[], maxShare: number): LintFinding[] {
  const positives = criteria.filter((c) => c.points > 0);
  const total = positives.reduce((sum, c) => sum + c.points, 0);
  const findings: LintFinding[] = [];
  if (positives.length >= 3) {
    for (const c of positives) {
      // A required criterion is a gate by design: its share only sets the floor of a passing reward.
      if (c.required || c.points / total <= maxShare) continue;
      findings.push({
        criterion: c.id,
        rule: "points-dominant",
        severity: "warning",
        message: `${c.points} of ${total} positive points (${Math.round((100 * c.points) / total)}%): this one criterion decides the reward and the others barely matter`,
        suggestion: "If the response is worthless without it, make it `required: true` (a gate) with ordinary points; otherwise scale it down.",
      });
    }
  }
  for (const c of criteria) {
    if (c.points < 0 && -c.points > total && total > 0) {
      findings.push({
        criterion: c.id,
        rule: "pitfall-outweighs",
        severity: "warning",
        message: `a pitfall of ${c.points} outweighs all ${total} positive points together: hitting it zeroes every reward, so nothing else is measured`,
        suggestion: "Use a smaller penalty (HealthBench-style pitfalls are a fraction of the total), or express a disqualifying failure as a `required` positive criterion.",
      });
    }
  }
  return findings;
}

/** Counts findings by severity. */
export function summarizeFindings(findings: LintFinding[]): Record<LintSeverity, number> {
  const counts: Record<LintSeverity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}
