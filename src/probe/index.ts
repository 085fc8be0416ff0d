/** Reward-hacking probes: attack a rubric with responses that deserve zero and report what they win. */
export { probe, GENERATED_ATTACK } from "./run.js";
export type { AttackRun, ProbeOptions, ProbeResult } from "./run.js";
export { AttackSchema, AttackFileSchema, ATTACK_CATEGORIES, parseAttacks, loadAttacks, builtinAttacks, packagedProbesDir, mergeAttacks, attackJsonSchema } from "./attacks.js";
export type { Attack, AttackCategory, AttackFile } from "./attacks.js";
export { createAttacker, attackerPrompt, ATTACKER_SYSTEM } from "./attacker.js";
export type { Attacker, AttackerOptions, GeneratedAttempt } from "./attacker.js";
export { checkIsolation, judgeQuestions } from "./isolation.js";
export type { IsolationCheck } from "./isolation.js";
export { summarise } from "./findings.js";
export type { AttackSummary, CriterionWin, Finding, AttackExample } from "./findings.js";
export { suggestFix } from "./fixes.js";
export { attackVars, probeFields, keywordsOf, wrongAnswer, questionToClaim, filler } from "./vars.js";
export type { AttackVars, ProbeFields } from "./vars.js";
export { samplesFromExamples } from "./samples.js";
export { probeMarkdown, probeHtml } from "./report.js";
