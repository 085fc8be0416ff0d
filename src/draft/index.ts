/** Drafting rubrics with an LLM: from a task description and examples, or per sample. */
export { draftRubric, evaluateDraft, IMPORTANCE_POINTS, BLOCKING_RULES, type DraftInput, type DraftOptions, type DraftResult } from "./draft.js";
export { draftSampleCriteria, sampleDraftInput } from "./samples.js";
