/** Reward-hacking probes: attack a rubric with responses that deserve zero and report what they win. */
export { probe } from "./run.js";
export type { AttackRun, ProbeOptions, ProbeResult } from "./run.js";
export { AttackSchema, AttackFileSchema, ATTACK_CATEGORIES, parseAttacks, loadAttacks, builtinAttacks, attackJsonSchema } from "./attacks.js";
export type { Attack, AttackCategory, AttackFile } from "./attacks.js";
export { createAttacker } from "./attacker.js";
export type { Attacker, AttackerOptions, GeneratedAttempt } from "./attacker.js";
export { checkIsolation } from "./isolation.js";
export type { IsolationCheck } from "./isolation.js";
export type { AttackSummary, CriterionWin, Finding, AttackExample } from "./findings.js";
export { probeMarkdown, probeHtml } from "./report.js";
export { runHacks, hackTally } from "./hacks.js";
export type { HackRun, HackOptions, HackTally } from "./hacks.js";
