export { createJudge, limitsOf, type CreateJudgeOptions, type EngineJudge } from "./create.js";
export { createLLMJudge, PARSE_ATTEMPTS, type CallEngine } from "./llm-judge.js";
export { JudgeConfigSchema, PriceSchema, type JudgeConfig, type JudgeConfigInput, type Price } from "./config.js";
export { loadJudgeConfig, parseJudgeConfig } from "./load.js";
export { buildJudgeRequest, DEFAULT_SYSTEM_PROMPT, NEUTRAL_SYSTEM_PROMPT, STRICT_SYSTEM_PROMPT, SYSTEM_PROMPTS, type SystemPreset, sampleNonce } from "./prompt.js";
export { parseBatched, parseSingle, verdictProbabilities } from "./parse.js";
export { createAnthropicProvider, createOpenAIProvider, createProvider, createScriptedProvider } from "../providers/index.js";
export type * from "../providers/types.js";
export type { Judge, JudgeAnswer, JudgeQuestion, JudgeRequest } from "./types.js";
