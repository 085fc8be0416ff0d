export { loadRubric, loadRubricSync, parseRubric, type ParseOptions } from "./load.js";
export { rubricJsonSchema } from "./json-schema.js";
export { renderTemplate, templateVariables } from "./template.js";
export { CheckSchema, CriterionSchema, ExampleSchema, RubricSchema, ScoringSchema } from "./schema.js";
export type { Check, Criterion, CriterionInput, Example, Rubric, RubricFile, Scoring } from "./schema.js";
