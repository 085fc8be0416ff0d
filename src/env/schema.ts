import * as z from "zod";
import { FILE_SANDBOX_BACKENDS, IMAGE_SANDBOX_BACKENDS } from "../sandbox/registry.js";
import { IdSchema, RubricSchema } from "../rubric/schema.js";

/** A tool the policy may call: a name, a description and its arguments as JSON Schema. */
export const ToolDeclSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "tool names use letters, digits, '_' and '-' (at most 64)"),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }).describe("JSON Schema of the arguments object"),
});
/** A tool the policy may call: a name, a description and its arguments as JSON Schema. */
export type ToolDecl = z.infer<typeof ToolDeclSchema>;

/** One task: the inputs the prompts and rubric read, an optional reference answer, optional extra criteria. */
export const TaskSchema = z.strictObject({
  id: z.union([z.string(), z.number()]).optional(),
  inputs: z.record(z.string(), z.unknown()).default({}),
  answer: z.unknown().optional().describe("The reference answer, offered to the rubric as {{answer}}"),
  criteria: z.array(z.unknown()).optional().describe("Extra criteria for this task only (merged after the rubric's)"),
  files: z.record(z.string(), z.string()).optional().describe("Files written into this task's sandbox before it starts: path -> content"),
  setup: z.array(z.string()).optional().describe("Shell commands run in this task's sandbox before it starts ({{var}} fills from inputs)"),
  meta: z.record(z.string(), z.unknown()).optional().describe("Where the task came from and what is known of it (`env synth` provenance, `env filter` pass rate); never shown to the policy or the judge"),
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
  hook_timeout_ms: z.number().int().positive().default(30_000).describe("A setup, envResponse, finalize or teardown hook that takes longer fails its rollout"),
  rollout_timeout_ms: z.number().int().positive().optional().describe("Wall-clock limit of one rollout; the eval goes on past it. Ending the agent's own action (a tool call, the final-state checks), or when the agent's actions took half of it or more, it is the agent's forfeit, reward 0 (ROLLOUT_TIMEOUT as the record's forfeit); else ending a model call or a hook, a ROLLOUT_TIMEOUT error (no reward; --resume runs it again)"),
  stop: StopSchema.prefault({}),
});
/** How the policy is prompted and what it may do (system prompt, turns, tools, stop rules). */
export type Harness = z.infer<typeof HarnessSchema>;

/** Default sampling parameters of the policy (a policy config or the CLI may override them). */
export const PolicyDefaultsSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
});
/** An environment's default sampling parameters for its policy. */
export type PolicyDefaults = z.infer<typeof PolicyDefaultsSchema>;

/** A check of the sandbox's final state: a command (its output and exit code) or a file's content. */
export const StateProbeSchema = z.union([
  z.strictObject({ run: z.string().min(1).describe("A shell command ({{var}} fills from inputs; the submitted answer is $SUBMITTED); its stdout becomes the sample field, its exit code <name>_exit_code"), timeout_ms: z.number().int().positive().optional() }),
  z.strictObject({ file: z.string().min(1).describe("A file whose content becomes the sample field (\"\" when missing)") }),
]);
/** A final-state check run inside the sandbox: a command whose exit code and output become sample fields. */
export type StateProbe = z.infer<typeof StateProbeSchema>;

/** Resource limits of the environment's sandboxes (YAML units). */
export const SandboxLimitsSchema = z.strictObject({
  cpu_seconds: z.number().positive().optional(),
  memory_mb: z.number().positive().optional(),
  processes: z.number().int().positive().optional(),
  file_size_mb: z.number().positive().optional(),
  disk_mb: z.number().positive().optional(),
  open_files: z.number().int().positive().optional(),
  output_kb: z.number().positive().optional(),
  command_timeout_ms: z.number().int().positive().optional(),
});

/** The RLM harness: a persistent Python REPL whose `context` is a file and whose `llm_query` calls a sub-model. */
export const ReplSchema = z.strictObject({
  context_file: z.string().min(1).optional().describe("A file of the sandbox loaded into the REPL variable `context` ({{var}} fills from inputs)"),
  model: z.string().min(1).optional().describe("The name (under `models:`) of the sub-model llm_query calls; default: the policy"),
  max_calls: z.number().int().nonnegative().default(20).describe("llm_query calls allowed per rollout"),
  max_prompt_chars: z.number().int().positive().default(100_000).describe("Longest prompt llm_query accepts"),
  max_depth: z.number().int().positive().default(1).describe("Call depth: 1 allows llm_query from the policy's REPL; 2 also rlm_query (a sub-model with a REPL of its own, whose llm_query calls are depth 2); and so on"),
  sub_max_turns: z.number().int().positive().default(6).describe("Turns of a sub-RLM started by rlm_query before it must answer"),
  cell_timeout_ms: z.number().int().positive().optional().describe("Wall-clock limit of one cell (default the command timeout)"),
});

/** A sandbox per rollout: where terminal tools run and final-state checks look. */
export const SandboxConfigSchema = z.strictObject({
  backend: z.enum(FILE_SANDBOX_BACKENDS).default(FILE_SANDBOX_BACKENDS[0]),
  image: z.string().optional().describe(`Container image (${IMAGE_SANDBOX_BACKENDS.join(", ")})`),
  network: z.boolean().default(false),
  limits: SandboxLimitsSchema.prefault({}),
  tools: z.array(z.enum(["bash", "read_file", "write_file", "submit", "python"])).default(["bash", "read_file", "write_file", "submit"]).describe("Built-in tools offered to the policy"),
  files: z.record(z.string(), z.union([z.string(), z.strictObject({ from: z.string().min(1) })])).default({}).describe("Files of every rollout: path -> content, or { from: a file beside the environment }"),
  setup: z.array(z.string()).default([]).describe("Shell commands run before every rollout (a failing one fails the rollout)"),
  state: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), StateProbeSchema).default({}).describe("Final-state checks, run in the sandbox when the rollout ends; each becomes a sample field"),
  repl: ReplSchema.optional(),
});
/** An environment's `sandbox:` section: files, setup commands, limits, network, state checks. */
export type SandboxConfig = z.infer<typeof SandboxConfigSchema>;

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
  sandbox: SandboxConfigSchema.optional().describe("A sandbox per rollout with terminal tools and final-state checks"),
  models: z.record(z.string(), z.string().min(1)).optional().describe("Models the hooks call with ctx.llm (and the REPL with llm_query): name -> provider:model or a policy config file"),
});
/** An environment file (YAML) after validation. */
export type EnvironmentFile = z.infer<typeof EnvironmentSchema>;

// The policy file's schema has a file of its own: `createPolicy` is on the package root, and the
// root must not build every environment schema at import (issue 31).
export { PolicyConfigSchema, type PolicyConfig, type PolicyConfigInput } from "./policy-schema.js";
