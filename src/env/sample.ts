import type { ChatMessage } from "../providers/types.js";
import type { Sample } from "../types.js";
import type { RolloutRecord, Task } from "./types.js";

/** A played episode as the rubric reads it: the conversation and what it came to (a rollout record's fields of that name). */
export type PlayedEpisode = Pick<RolloutRecord, "messages" | "toolCalls" | "response" | "turns" | "stopReason">;

/**
 * The fields a rubric reads of a played episode, derived from its conversation. One definition
 * for eval rollouts, trainer sessions and re-scored records, so the three score alike.
 */
export function playedFields(played: PlayedEpisode): Sample {
  return {
    response: played.response,
    transcript: renderTranscript(played.messages),
    turns: played.turns,
    // With each call's result, so a `tool_calls` check can test that the answer uses it (answer_uses).
    tool_calls: played.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments, result: c.result, error: c.error ?? null })),
    stop_reason: played.stopReason,
  };
}

/**
 * The sample a rubric scores for a played task: the task's inputs and reference answer, the
 * played fields, the environment's extras (finalize's fields, final-state checks), and last the
 * task's id and per-task criteria, which nothing overrides.
 */
export function episodeSample(task: Task, played: PlayedEpisode, extras: Record<string, unknown>): Sample {
  return {
    ...task.inputs,
    ...(task.answer !== undefined ? { answer: task.answer } : {}),
    ...playedFields(played),
    ...extras,
    id: task.id,
    ...(task.criteria ? { criteria: task.criteria } : {}),
  };
}

const text = (m: ChatMessage) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text).join(""));

/** The last non-empty assistant text of a conversation (the policy's answer). */
export function lastAssistantText(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === "assistant" && text(messages[i]).trim() !== "") return text(messages[i]);
  return "";
}

/**
 * A conversation as plain text for judges and reports: one block per message, tool calls and
 * results labelled.
 */
export function renderTranscript(messages: ChatMessage[]): string {
  return messages
    .map((m) => {
      if (m.role === "tool") return `[tool result ${m.toolCallId ?? ""}]\n${text(m)}`;
      const calls = (m.toolCalls ?? []).map((c) => `[tool call ${c.id}: ${c.name}(${c.arguments})]`).join("\n");
      return `[${m.role}]\n${[text(m), calls].filter(Boolean).join("\n")}`;
    })
    .join("\n\n");
}
