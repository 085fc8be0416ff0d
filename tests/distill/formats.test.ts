import { describe, expect, it } from "vitest";
import {
  FORMAT_SCHEMAS,
  OpenAIChatLineSchema,
  OpenAIPreferenceLineSchema,
  TrlMessagesLineSchema,
  TrlPreferenceLineSchema,
  TrlPromptCompletionLineSchema,
} from "../../src/distill/formats.js";
import { FORMATS, type ExportFormat } from "../../src/distill/types.js";
import { chatRow, distillRows } from "./helpers.js";

/** Two prompts with a spread of rewards, one with a system turn, one a tool-calling rollout. */
function rows(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const [k, reward] of [0.9, 0.2, 0.5].entries()) out.push({ ...chatRow("plain", `plain answer ${k}`, reward), system: "Be concise." });
  const toolRollout = (answer: string, reward: number) => ({
    env: "search",
    task: "t1",
    rollout: 0,
    messages: [
      { role: "user", content: "What is X?" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "lookup", arguments: '{"q":"X"}' }] },
      { role: "tool", content: "X=4", toolCallId: "c1" },
      { role: "assistant", content: answer },
    ],
    tools: [{ name: "lookup", description: "Looks things up", parameters: { type: "object", properties: { q: { type: "string" } } } }],
    reward,
    verdicts: [{ id: "right", status: reward > 0.5 ? "met" : "unmet", points: 1 }],
  });
  out.push(toolRollout("X is 4.", 1), toolRollout("X is 5.", 0));
  return out;
}

async function exportAll(format: ExportFormat, withMetadata: boolean) {
  return distillRows(rows(), {}, format, { withMetadata });
}

describe("every export format matches its schema, line by line", () => {
  for (const format of FORMATS) {
    for (const withMetadata of [false, true]) {
      it(`${format}${withMetadata ? " with metadata" : ""}`, async () => {
        const { lines } = await exportAll(format, withMetadata);
        expect(lines.length).toBeGreaterThan(0);
        for (const line of lines) {
          const parsed = FORMAT_SCHEMAS[format].safeParse(line);
          expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
          expect("metadata" in line).toBe(withMetadata);
        }
      });
    }
  }
});

describe("shapes", () => {
  it("openai: the whole conversation, tool calls in OpenAI's shape, and the declared tools", async () => {
    const { lines } = await exportAll("openai", false);
    expect(lines[0].messages[0]).toEqual({ role: "system", content: "Be concise." });
    const tool = lines.find((l) => l.tools)!;
    expect(tool.tools[0]).toEqual({ type: "function", function: { name: "lookup", description: "Looks things up", parameters: { type: "object", properties: { q: { type: "string" } } } } });
    expect(tool.messages[1].tool_calls[0]).toEqual({ id: "c1", type: "function", function: { name: "lookup", arguments: '{"q":"X"}' } });
    expect(tool.messages[2]).toEqual({ role: "tool", content: "X=4", tool_call_id: "c1" });
  });

  it("trl-prompt-completion: the completion holds the trailing assistant/tool turns", async () => {
    const { lines } = await exportAll("trl-prompt-completion", false);
    const tool = lines.find((l) => l.tools)!;
    expect(tool.prompt).toEqual([{ role: "user", content: "What is X?" }]);
    expect(tool.completion.map((m: { role: string }) => m.role)).toEqual(["assistant", "tool", "assistant"]);
  });

  it("metadata carries reward and verdicts (id → status) and where the row came from", async () => {
    const { lines } = await exportAll("trl-messages", true);
    const tool = lines.find((l) => l.tools && l.metadata.reward === 1)!;
    expect(tool.metadata).toMatchObject({ reward: 1, verdicts: { right: "met" }, group: "search/t1", env: "search", task: "t1" });
  });

  it("dpo: the prompt once, chosen and rejected completions; metadata has both sides and the margin", async () => {
    const { lines } = await exportAll("dpo", true);
    expect(lines).toHaveLength(2);
    expect(lines[0].chosen).toEqual([{ role: "assistant", content: "plain answer 0" }]);
    expect(lines[0].rejected).toEqual([{ role: "assistant", content: "plain answer 1" }]);
    expect(lines[0].prompt.at(-1)).toEqual({ role: "user", content: "Question plain?" });
    expect(lines[0].metadata.margin).toBeCloseTo(0.7);
    expect(lines[0].metadata.chosen.reward).toBe(0.9);
    expect(lines[0].metadata.rejected.reward).toBe(0.2);
  });

  it("openai-dpo: one assistant message a side; a tool trajectory cannot be written and is dropped with a reason", async () => {
    const { lines, report } = await exportAll("openai-dpo", false);
    expect(lines).toHaveLength(1);
    expect(lines[0].input.messages.at(-1)).toEqual({ role: "user", content: "Question plain?" });
    expect(lines[0].preferred_output).toEqual([{ role: "assistant", content: "plain answer 0" }]);
    expect(report.dropped).toEqual({ "format:multi-message": 1 });
  });
});

describe("the schemas reject what the formats forbid", () => {
  const user = { role: "user", content: "q" };
  const assistant = { role: "assistant", content: "a" };
  it("OpenAI chat: the last turn must be the assistant's; roles and tool calls are checked", () => {
    expect(OpenAIChatLineSchema.safeParse({ messages: [user, assistant] }).success).toBe(true);
    expect(OpenAIChatLineSchema.safeParse({ messages: [assistant, user] }).success).toBe(false);
    expect(OpenAIChatLineSchema.safeParse({ messages: [user, { role: "bot", content: "a" }] }).success).toBe(false);
    expect(OpenAIChatLineSchema.safeParse({ messages: [user, { role: "assistant", content: null }] }).success).toBe(false);
    expect(OpenAIChatLineSchema.safeParse({ messages: [user, assistant], extra: 1 }).success).toBe(false);
  });
  it("TRL: messages, prompt/completion and preference columns", () => {
    expect(TrlMessagesLineSchema.safeParse({ messages: [user] }).success).toBe(false);
    expect(TrlPromptCompletionLineSchema.safeParse({ prompt: [user], completion: [user] }).success).toBe(false);
    expect(TrlPreferenceLineSchema.safeParse({ prompt: [user], chosen: [assistant] }).success).toBe(false);
    expect(TrlPreferenceLineSchema.safeParse({ prompt: [user], chosen: [assistant], rejected: [assistant] }).success).toBe(true);
  });
  it("OpenAI preference: exactly one assistant message a side", () => {
    const ok = { input: { messages: [user] }, preferred_output: [assistant], non_preferred_output: [assistant] };
    expect(OpenAIPreferenceLineSchema.safeParse(ok).success).toBe(true);
    expect(OpenAIPreferenceLineSchema.safeParse({ ...ok, preferred_output: [assistant, assistant] }).success).toBe(false);
  });
});
