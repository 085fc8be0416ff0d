export { loadRubric, loadRubricSync, parseRubric, type ParseOptions } from "./load.js";
export { rubricJsonSchema } from "./json-schema.js";
export { renderTemplate } from "../text/template.js";
export { CheckSchema, CriterionSchema, ExampleSchema, RubricSchema, ScoringSchema } from "./schema.js";
export type { Check, Criterion, CriterionInput, Example, Rubric, RubricFile, Scoring } from "./schema.js";
export { lintRubric, lintQuestion, lintFails, IGNORE_TAG_PREFIX, type LintFinding, type LintRule, type LintSeverity, type LintOptions } from "./lint.js";
