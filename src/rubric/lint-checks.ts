/**
 * Lint rules about code checks (issue 19's kinds): a judge question that a check answers
 * better, a check reading an input the rubric does not declare, a threshold that lets anything
 * through, an answer check that grades the reasoning instead of the answer, and a regex pitfall
 * that look-alike letters escape.
 */
import { kindOf } from "../checks/registry.js";
import type { LintFinding, LintRule } from "./lint-rules.js";
import type { Criterion, Rubric } from "./schema.js";

/** Questions a code check answers exactly (and for free): the pattern and the check to use. */
const CHECKABLE: [RegExp, string][] = [
  [/\{\{\s*(answer|reference|expected|solution|gold|target|ground_truth)\s*\}\}|\b(final answer|answer)\b.*\b(equal|equals|match(es)?|same as|agree)/i, "a `math` check (symbolic equivalence) or `equals`/`similarity`"],
  [/\b(call(s|ed)?|use[sd]?|invoke[sd]?)\b.*\btool\b|\btool\b.*\b(call(s|ed)?|argument)/i, "a `tool_calls` check (called, arguments schema, order, counts)"],
  [/<\w+>|\b(xml|tags?)\b.*\b(format|order|wrap|enclos)/i, "a `tags` check"],
  [/\b(unit )?tests?\b.*\b(pass|fail)|\bcode\b.*\b(run|compile|execute)s?\b/i, "a `tests` check (runs the code against the task's tests)"],
];

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
    const named = kindOf(check);
    if (inputs) {
      const missing = variablesOf(check).filter((v) => !inputs.has(v));
      for (const needed of named?.kind.inputs?.(named.spec) ?? []) {
        const alternatives = Array.isArray(needed) ? needed : [needed];
        if (!alternatives.some((name) => inputs.has(name))) missing.push(alternatives.length > 1 ? `${alternatives[0]} (or ${alternatives.slice(1).join(", ")})` : alternatives[0]);
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
    // A kind names its own rules (the built-in kinds use the ones listed in LintRule).
    for (const finding of named?.kind.lint?.(named.spec, named.options) ?? []) findings.push({ criterion: c.id, ...finding, rule: finding.rule as LintRule });
    if (c.points < 0 && named?.kind.key === "regex") {
      findings.push({
        criterion: c.id,
        rule: "regex-pitfall-as-written",
        severity: "warning",
        message: "a regex pitfall reads letters as written: a response escapes the penalty by writing what it matches with look-alike letters of another script (a Cyrillic і in stupіd) or lines and marks drawn on them (s̶t̶u̶p̶i̶d̶); comments, hidden elements, character references and invisible characters no longer help it",
        suggestion: "For words or phrases, make the pitfall a `contains:` check (or the requirement a `not_contains:`): they read the text as a reader sees it. Keep a regex pitfall for shapes a reader cannot be shown otherwise (a pattern of digits, a URL).",
      });
    }
    if (c.reasoning && c.reasoning !== "strip" && named?.kind.gradesAnswer) {
      findings.push({
        criterion: c.id,
        rule: "grades-reasoning",
        severity: "warning",
        message: `an answer check with reasoning: ${c.reasoning} reads the <think> block too, so an answer found in the reasoning counts even when the final answer is wrong`,
        suggestion: "Drop `reasoning:` (strip is the default) on answer checks; keep it for questions or tags checks about the reasoning itself.",
      });
    }
  }
  findings.push(...lexicalOnly(rubric));
  return findings;
}

/**
 * A rubric whose reward comes only from kinds that must not stand alone (similarity): every
 * criterion that earns points, or gates the reward, is one. A policy then optimises the lexical
 * score, not the answer.
 */
function lexicalOnly(rubric: Pick<Rubric, "criteria">): LintFinding[] {
  const earning = rubric.criteria.filter((c) => c.points > 0 || c.required);
  const reasons = earning.map((c) => (c.check ? kindOf(c.check)?.kind.notAloneReason : undefined));
  if (earning.length === 0 || reasons.some((r) => r === undefined)) return [];
  return [
    {
      criterion: "*",
      rule: "lexical-only-reward",
      severity: "warning",
      message: `the reward comes only from ${earning.map((c) => `"${c.id}"`).join(", ")}: ${reasons[0]}, so a policy learns to match words, not to be right`,
      suggestion: "Add a correctness criterion that earns points or gates the reward (a math/number/equals/tests check, or a judge question such as \"Does the response state the same facts as the reference?\"), and keep the similarity score as a minor or partial-credit criterion.",
    },
  ];
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
