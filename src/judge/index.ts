/** Judges: configuration files, prompts, panels, and the provider interface they call through. */
export { createJudge, type CreateJudgeOptions, type EngineJudge } from "./create.js";
export { JudgeConfigSchema, PriceSchema, type JudgeConfig, type JudgeConfigInput, type Price } from "./config.js";
export { loadJudgeConfig, parseJudgeConfig, readJudgeFile, type JudgeFile } from "./load.js";
export { buildJudgeRequest, DEFAULT_SYSTEM_PROMPT, LLMBAR_SYSTEM_PROMPT, NEUTRAL_SYSTEM_PROMPT, STRICT_SYSTEM_PROMPT, SYSTEM_PROMPTS, type ReasoningOrder, type SystemPreset } from "./prompt.js";
export { createAnthropicProvider, createOpenAIProvider, createProvider, type AnthropicProviderOptions, type OpenAIProviderOptions, type ProviderConfig } from "../providers/index.js";
export type { CallOptions, ChatMessage, CompletionRequest, CompletionResponse, Provider, TextPart, TokenLogprob, TokenUsage, ToolCall, ToolSpec } from "../providers/types.js";
export type { Judge, JudgeAnswer, JudgeQuestion, JudgeRequest } from "./types.js";
export { judgeFamilyWarning, modelFamily, type ModelRef } from "./family.js";
export { orderFlips, orderFlipsMarkdown, type FlipRow, type OrderFlips } from "./order-flips.js";
export { createPanel } from "./panel.js";
