import { z } from "zod";
import { PriceSchema } from "../judge/config.js";
import { IdSchema, RubricSchema } from "../rubric/schema.js";

/** A tool the policy may call: a name, a description and its arguments as JSON Schema. */
export const ToolDeclSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "tool names use letters, digits, '_' and '-' (at most 64)"),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }).describe("JSON Schema of the arguments object"),
});
export type ToolDecl = z.infer<typeof ToolDeclSchema>;

/** One task: the inputs the prompts and rubric read, an optional reference answer, optional extra criteria. */
export const TaskSchema = z.strictObject({
  id: z.union([z.string(), z.number()]).optional(),
  inputs: z.record(z.string(), z.unknown()).default({}),
  answer: z.unknown().optional().describe("The reference answer, offered to the rubric as {{answer}}"),
  criteria: z.array(z.unknown()).optional().describe("Extra criteria for this task only (merged after the rubric's)"),
});
export type TaskInput = z.input<typeof TaskSchema>;

/** A few-shot turn shown before the task. */
export const ShotSchema = z.strictObject({ role: z.enum(["user", "assistant"]), content: z.string() });

/** When a rollout ends besides `max_turns` and the hooks. */
export const StopSchema = z.strictObject({
  match: z.string().optional().describe("A regular expression: an assistant message matching it ends the rollout"),
  max_tool_calls: z.number().int().positive().optional().describe("Tool calls allowed in a rollout before it is stopped"),
  on_final_answer: z.boolean().default(true).describe("Without an env_response hook, a message with no tool call ends the rollout"),
});

/** How the policy is prompted and what it may do. */
export const HarnessSchema = z.strictObject({
  system: z.string().optional().describe("System prompt; {{var}} fills from the task's inputs"),
  prompt: z.string().default("{{prompt}}").describe("The first user message; {{var}} fills from the task's inputs"),
  few_shot: z.array(ShotSchema).default([]),
  max_turns: z.number().int().positive().max(1000).default(10).describe("Policy calls allowed in one rollout"),
  tools: z.array(ToolDeclSchema).default([]),
  tool_timeout_ms: z.number().int().positive().default(10_000),
  stop: StopSchema.prefault({}),
});
export type Harness = z.infer<typeof HarnessSchema>;

/** Default sampling parameters of the policy (a policy config or the CLI may override them). */
export const PolicyDefaultsSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
});
export type PolicyDefaults = z.infer<typeof PolicyDefaultsSchema>;

/** The environment file format (YAML). */
export const EnvironmentSchema = z.strictObject({
  id: IdSchema,
  version: z.union([z.number(), z.string()]).default(1),
  description: z.string().optional(),
  dataset: z.union([z.string().min(1).describe("A JSONL file of tasks, relative to this file"), z.array(TaskSchema).min(1)]),
  harness: HarnessSchema.prefault({}),
  rubric: z.union([z.string().min(1).describe("A rubric file, relative to this file"), RubricSchema]),
  hooks: z.string().min(1).optional().describe("A module exporting tools, envResponse, setup, finalize, checks (.ts, .js or .mjs; TypeScript runs without a build step)"),
  policy: PolicyDefaultsSchema.prefault({}),
  config: z.record(z.string(), z.unknown()).optional().describe("Free-form settings handed to the hooks (e.g. a corpus folder)"),
});
export type EnvironmentFile = z.infer<typeof EnvironmentSchema>;

/** A policy configuration file (`--model policy.yaml`): a model, how to reach it, sampling and limits. */
export const PolicyConfigSchema = z.strictObject({
  id: z.string().optional(),
  provider: z.enum(["openai", "anthropic", "openai-compatible"]),
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
export type PolicyConfig = z.infer<typeof PolicyConfigSchema>;
export type PolicyConfigInput = z.input<typeof PolicyConfigSchema>;
