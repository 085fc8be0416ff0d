/** Ready-made GEPA targets: an environment's policy system prompt, and rubric questions against human labels. */
export { policyPromptTarget, SYSTEM_COMPONENT, type PolicyPromptOptions, type PolicyPromptTarget } from "./policy-prompt.js";
export { judgeQuestionTarget, type JudgeQuestionOptions, type JudgeQuestionTarget, type LabelledItem } from "./judge-question.js";
export { createReflector, type Reflector, type ReflectorOptions, type ReflectionPrompt } from "./reflect.js";
export { questionProblems, questionReflectionPrompt, sampleText } from "./question-text.js";
export { rewriteRubricQuestions } from "./rubric-rewrite.js";
export { splitTrainVal } from "./split.js";
