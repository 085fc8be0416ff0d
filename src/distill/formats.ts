/**
 * Export lines for each format, and zod schemas of those formats' shapes (OpenAI chat
 * fine-tuning, TRL conversational language modelling and prompt-completion, TRL conversational
 * preference, OpenAI preference fine-tuning) so an exported file can be checked line by line.
 */
import * as z from "zod";
import type { ChatLine, DistillRow, ExportFormat, PreferencePair } from "./types.js";

const ToolCall = z.strictObject({ id: z.string(), type: z.literal("function"), function: z.strictObject({ name: z.string().min(1), arguments: z.string() }) });
const System = z.strictObject({ role: z.literal("system"), content: z.string() });
const User = z.strictObject({ role: z.literal("user"), content: z.string() });
const Assistant = z
  .strictObject({ role: z.literal("assistant"), content: z.string().nullable(), tool_calls: z.array(ToolCall).min(1).optional() })
  .refine((m) => m.content !== null || m.tool_calls !== undefined, "an assistant message needs content or tool_calls");
const Tool = z.strictObject({ role: z.literal("tool"), content: z.string(), tool_call_id: z.string() });
const Message = z.union([System, User, Assistant, Tool]);
const ToolDecl = z.object({ type: z.literal("function"), function: z.object({ name: z.string().min(1), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }) });
const Metadata = z.record(z.string(), z.unknown()).optional();

/** OpenAI chat fine-tuning: `{"messages": [...]}`, ending with an assistant turn. */
export const OpenAIChatLineSchema = z
  .strictObject({ messages: z.array(Message).min(2), tools: z.array(ToolDecl).optional(), metadata: Metadata })
  .refine((l) => l.messages.at(-1)?.role === "assistant", "the last message must be the assistant's");

/** TRL conversational language modelling (SFTTrainer): `{"messages": [...]}`. */
export const TrlMessagesLineSchema = z.strictObject({ messages: z.array(Message).min(2), tools: z.array(ToolDecl).optional(), metadata: Metadata });

/** TRL conversational prompt-completion: prompt turns, then the completion's assistant/tool turns. */
export const TrlPromptCompletionLineSchema = z.strictObject({
  prompt: z.array(z.union([System, User, Assistant, Tool])).min(1),
  completion: z.array(z.union([Assistant, Tool])).min(1),
  tools: z.array(ToolDecl).optional(),
  metadata: Metadata,
});

/** TRL conversational preference with an explicit prompt (DPOTrainer): `{"prompt", "chosen", "rejected"}`. */
export const TrlPreferenceLineSchema = z.strictObject({
  prompt: z.array(Message).min(1),
  chosen: z.array(z.union([Assistant, Tool])).min(1),
  rejected: z.array(z.union([Assistant, Tool])).min(1),
  tools: z.array(ToolDecl).optional(),
  metadata: Metadata,
});

/** OpenAI preference (DPO) fine-tuning: `{"input": {"messages"}, "preferred_output": [assistant], "non_preferred_output": [assistant]}`. */
export const OpenAIPreferenceLineSchema = z.strictObject({
  input: z.strictObject({ messages: z.array(Message).min(1), tools: z.array(ToolDecl).optional() }),
  preferred_output: z.array(Assistant).length(1),
  non_preferred_output: z.array(Assistant).length(1),
  metadata: Metadata,
});

/** The schema of each export format. */
export const FORMAT_SCHEMAS: Record<ExportFormat, z.ZodType> = {
  openai: OpenAIChatLineSchema,
  "trl-messages": TrlMessagesLineSchema,
  "trl-prompt-completion": TrlPromptCompletionLineSchema,
  dpo: TrlPreferenceLineSchema,
  "openai-dpo": OpenAIPreferenceLineSchema,
};

/** The compact metadata of a row: reward, verdicts as id → status, and where it came from. */
export function rowMetadata(row: DistillRow): Record<string, unknown> {
  return { reward: row.reward, verdicts: Object.fromEntries(row.verdicts.map((v) => [v.id, v.status])), group: row.group, index: row.index, tokens: row.tokens, ...row.ref };
}

const withTools = (line: Record<string, unknown>, tools?: unknown[]) => (tools ? { ...line, tools } : line);

/**
 * The export line of a kept row (SFT formats).
 * @example sftLine(row, "openai", false) // { messages: [...] }
 */
export function sftLine(row: DistillRow, format: ExportFormat, withMetadata: boolean): Record<string, unknown> {
  let line: Record<string, unknown>;
  if (format === "trl-prompt-completion") line = withTools({ prompt: row.prompt, completion: row.completion }, row.tools);
  else line = withTools({ messages: [...row.prompt, ...row.completion] }, row.tools);
  if (withMetadata) line.metadata = rowMetadata(row);
  return line;
}

/** Why a pair cannot be written in a format, or null (OpenAI DPO takes one assistant message a side). */
export function pairFormatProblem(pair: PreferencePair, format: ExportFormat): string | null {
  if (format !== "openai-dpo") return null;
  const single = (c: ChatLine[]) => c.length === 1 && c[0].role === "assistant" && c[0].content !== null;
  return single(pair.chosen.completion) && single(pair.rejected.completion) ? null : "format:multi-message";
}

/** The export line of a kept pair (preference formats). */
export function pairLine(pair: PreferencePair, format: ExportFormat, withMetadata: boolean): Record<string, unknown> {
  const tools = pair.chosen.tools;
  let line: Record<string, unknown>;
  if (format === "openai-dpo") {
    line = { input: withTools({ messages: pair.prompt }, tools), preferred_output: pair.chosen.completion, non_preferred_output: pair.rejected.completion };
  } else {
    line = withTools({ prompt: pair.prompt, chosen: pair.chosen.completion, rejected: pair.rejected.completion }, tools);
  }
  if (withMetadata) {
    line.metadata = { group: pair.group, margin: (pair.chosen.reward ?? 0) - (pair.rejected.reward ?? 0), chosen: rowMetadata(pair.chosen), rejected: rowMetadata(pair.rejected) };
  }
  return line;
}
