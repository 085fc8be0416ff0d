import * as z from "zod";
import { PROVIDER_NAMES } from "../providers/registry.js";

/** USD per million tokens. */
export const PriceSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cached_input: z.number().nonnegative().optional(),
  batch_discount: z.number().min(0).max(1).optional().describe("Fraction of the live price paid through the batch API (default 0.5, both providers' discount)"),
  cache_write: z.number().nonnegative().optional().describe("USD per million tokens written to the provider's prompt cache (Anthropic; default 1.25 x input)"),
});
/** USD per million tokens, for cost estimates. */
export type Price = z.infer<typeof PriceSchema>;

/** A judge configuration (judges/*.yaml or code). API keys are never here: only the name of the variable holding one. */
export const JudgeConfigSchema = z.strictObject({
  id: z.string().optional(),
  description: z.string().optional(),
  provider: z.enum(PROVIDER_NAMES),
  model: z.string().min(1),
  base_url: z.union([z.string().url(), z.array(z.string().url()).min(1)]).optional(),
  api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional().describe("Environment variable holding the API key"),
  temperature: z.number().min(0).max(2).default(0),
  max_tokens: z.number().int().positive().default(1024),
  mode: z.enum(["batched", "single", "batch"]).default("batched"),
  samples: z.number().int().positive().default(1),
  logprobs: z.boolean().default(false),
  max_concurrency: z.number().int().positive().default(8),
  server_max_concurrency: z.number().int().positive().optional().describe("With several base_urls: requests in flight per server (default 16)"),
  rpm: z.number().positive().optional(),
  tpm: z.number().positive().optional(),
  timeout_ms: z.number().int().positive().default(60_000),
  max_retries: z.number().int().nonnegative().default(5),
  max_retry_wait_ms: z.number().int().positive().default(300_000).describe("The longest retry-after honoured; a server asking for longer fails that call at once"),
  system: z.string().optional().describe("Replaces the default judge system prompt"),
  probability: z
    .enum(["verdict", "confidence", "probe"])
    .default("verdict")
    .describe("Where P(yes) comes from: verdict (the verdict token's logprobs after the reason, with logprobs: true; else the vote share), confidence (a stated 0–1 confidence field in the answer), probe (one extra one-token yes/no call per question, P(yes) from its top logprobs)"),
  system_preset: z
    .enum(["neutral", "strict", "llmbar"])
    .default("neutral")
    .describe("The built-in system prompt: neutral (yes = what the question describes is present, a mistake included; 'such as' lists illustrative), strict (the prompt before issue 23: yes only when the sample clearly satisfies the question) or llmbar (LLMBar's three general rules)"),
  reasoning: z
    .enum(["none", "after", "before"])
    .default("none")
    .describe("Where the judge's reason goes: none (verdict only, the default: cheapest, and LLMBar measured reason-first lower), after (the verdict, then a one-sentence reason for feedback) or before (chain of thought, then the verdict)"),
  quote_evidence: z.boolean().default(false).describe("Ask every reason to quote, word for word, the span of the sample that decides the verdict (needs reasoning: after or before)"),
  price: PriceSchema.optional().describe("USD per million tokens, for cost estimates"),
  structured_output: z.boolean().default(true).describe("Off for servers without json_schema support: the JSON is then parsed from text"),
}).superRefine((c, ctx) => {
  // The probe reads P(yes) from logprobs, which the Anthropic API does not return: every probe would be paid for nothing.
  if (c.probability === "probe" && c.provider === "anthropic") {
    ctx.addIssue({ code: "custom", path: ["probability"], message: "probability: probe needs token logprobs, which the Anthropic API does not return; use probability: confidence, or verdict with samples > 1 for a vote share" });
  }
});
/** A validated judge configuration (defaults applied). */
export type JudgeConfig = z.infer<typeof JudgeConfigSchema>;
/** A judge configuration as written (defaults optional). */
export type JudgeConfigInput = z.input<typeof JudgeConfigSchema>;
