/**
 * Lint rules about code checks (issue 19's kinds): a judge question that a check answers
 * better, a check reading an input the rubric does not declare, a threshold that lets anything
 * through, and an answer check that grades the reasoning instead of the answer.
 */
import type { LintFinding } from "./lint-rules.js";
import type { Criterion, Rubric } from "./schema.js";

/** Questions a code check answers exactly (and for free): the pattern and the check to use. */
const CHECKABLE: [RegExp, string][] = [
  [/\{\{\s*(answer|reference|expected|solution|gold|target|ground_truth)\s*\}\}|\b(final answer|answer)\b.*\b(equal|equals|match(es)?|same as|agree)/i, "a `math` check (symbolic equivalence) or `equals`/`similarity`"],
  [/\b(call(s|ed)?|use[sd]?|invoke[sd]?)\b.*\btool\b|\btool\b.*\b(call(s|ed)?|argument)/i, "a `tool_calls` check (called, arguments schema, order, counts)"],
  [/<\w+>|\b(xml|tags?)\b.*\b(format|order|wrap|enclos)/i, "a `tags` check"],
  [/\b(unit )?tests?\b.*\b(pass|fail)|\bcode\b.*\b(run|compile|execute)s?\b/i, "a `tests` check (runs the code against the task's tests)"],
];

/** Check kinds that grade the final answer: reading the reasoning lets a wrong answer pass. */
const ANSWER_CHECKS = ["math", "final_answer", "similarity", "tests", "equals", "number"];

/** Template variables in a check's settings. */
function variablesOf(value: unknown): string[] {
  const text = JSON.stringify(value);
  return [...text.matchAll(/\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g)].map((m) => m[1].split(".")[0]);
}

export function checkFindings(rubric: Pick<Rubric, "criteria"> & Partial<Pick<Rubric, "inputs">>): LintFinding[] {
  const findings: LintFinding[] = [];
  const inputs = rubric.inputs ? new Set(rubric.inputs) : undefined;
  for (const c of rubric.criteria) {
    if (c.question !== undefined) findings.push(...questionForCheck(c));
    if (c.check === undefined) continue;
    const check = c.check as Record<string, unknown>;
    if (inputs) {
      const missing = variablesOf(check).filter((v) => !inputs.has(v));
      if ("tool_calls" in check) {
        const field = (check.tool_calls as { trajectory?: string }).trajectory;
        if (field ? !inputs.has(field) : !inputs.has("tool_calls") && !inputs.has("messages")) missing.push(field ?? "tool_calls (or messages)");
      }
      if (typeof check.field === "string" && !inputs.has(check.field)) missing.push(check.field);
      for (const name of new Set(missing)) {
        findings.push({
          criterion: c.id,
          rule: "check-input-undeclared",
          severity: "warning",
          message: `the check reads "${name}", which is not among the rubric's inputs: samples need not carry it, and then every sample is an error`,
          suggestion: `Add ${name.split(" ")[0]} to \`inputs:\` so samples without it are reported up front.`,
        });
      }
    }
    if ("similarity" in check) {
      const { min, metric } = check.similarity as { min: number; metric?: string };
      if (min < 0.3) {
        findings.push({
          criterion: c.id,
          rule: "loose-threshold",
          severity: "warning",
          message: `similarity min ${min} with ${metric ?? "levenshtein"}: unrelated texts of similar length often score this high`,
          suggestion: "Raise `min` (measure it on a few wrong answers first) or use `partial: true` for graded credit.",
        });
      }
    }
    if (c.reasoning && c.reasoning !== "strip" && ANSWER_CHECKS.some((k) => k in check)) {
      findings.push({
        criterion: c.id,
        rule: "grades-reasoning",
        severity: "warning",
        message: `an answer check with reasoning: ${c.reasoning} reads the <think> block too, so an answer found in the reasoning counts even when the final answer is wrong`,
        suggestion: "Drop `reasoning:` (strip is the default) on answer checks; keep it for questions or tags checks about the reasoning itself.",
      });
    }
  }
  return findings;
}

function questionForCheck(c: Criterion): LintFinding[] {
  const hit = CHECKABLE.find(([pattern]) => pattern.test(c.question!));
  if (!hit) return [];
  return [
    {
      criterion: c.id,
      rule: "question-for-check",
      severity: "info",
      message: "a judge question about something code can decide exactly: a judge costs a call and can be talked into a yes",
      suggestion: `Use ${hit[1]}; keep judge questions for what needs judgement.`,
    },
  ];
}
