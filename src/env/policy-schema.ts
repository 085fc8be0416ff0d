import * as z from "zod";
import { PriceSchema } from "../judge/config.js";
import { PROVIDER_NAMES } from "../providers/registry.js";

/** A policy configuration file (`--model policy.yaml`): a model, how to reach it, sampling and limits. */
export const PolicyConfigSchema = z.strictObject({
  id: z.string().optional(),
  provider: z.enum(PROVIDER_NAMES),
  model: z.string().min(1),
  base_url: z.string().url().optional(),
  api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  max_concurrency: z.number().int().positive().default(8),
  rpm: z.number().positive().optional(),
  tpm: z.number().positive().optional(),
  timeout_ms: z.number().int().positive().default(120_000),
  max_retries: z.number().int().nonnegative().default(5),
  price: PriceSchema.optional(),
});
/** A validated policy configuration (provider, model, sampling, limits). */
export type PolicyConfig = z.infer<typeof PolicyConfigSchema>;
/** A policy configuration as written. */
export type PolicyConfigInput = z.input<typeof PolicyConfigSchema>;
