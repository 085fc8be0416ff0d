/**
 * Tool calls a policy wrote in its text. A trainer's policy endpoint without a tool-call parser
 * (OpenRLHF's OpenAI-server executor: vLLM's raw `gen.text`, `message.content` only) answers
 * with the chat template's own `<tool_call>` blocks and no `tool_calls`. The rollout reads the
 * calls from the text, so the environment's tools run.
 *
 * Sending the turn back: that executor re-renders the whole conversation with the chat template
 * on every call and asserts that the result extends the session's tokens so far (the previous
 * prompt plus the generated ids: `chat_completions` and `_stitch_session` in
 * examples/python/agent_func_openai_server_executor.py, OpenRLHF 3c3be62). A template renders an
 * assistant message's `tool_calls` in its own spelling (Qwen: `{"name": ..., "arguments": ...}`
 * through `tojson`), which is not the model's spacing or key order; only the model's own text
 * renders to the model's own tokens. So the turn goes back as the text the model wrote, without
 * `tool_calls`, and the tool results follow as `tool` messages (the template writes them as
 * `<tool_response>` blocks after it). The transcript the rubric sees keeps the parsed form, the
 * text around the blocks as content and the calls as calls, as `rubricate eval` records a policy
 * whose server parses them.
 */
import { randomUUID } from "node:crypto";
import { toolCallsInText } from "../bridge/tool-calls.js";
import type { ChatMessage, CompletionRequest, CompletionResponse, Provider } from "../providers/types.js";

/**
 * A provider that reads `<tool_call>` blocks from answers without `tool_calls` (when the request
 * offered tools) and sends those turns back as the text the model wrote. One per group of
 * rollouts: it remembers the written text of the calls it parsed until it is dropped.
 * @example const policyProvider = readingWrittenToolCalls(createProvider({ provider: "openai-compatible", base_url }));
 */
export function readingWrittenToolCalls(inner: Provider): Provider {
  // The first call id of each parsed turn → the text the model wrote for that turn.
  const written = new Map<string, string>();
  const asWritten = (m: ChatMessage): ChatMessage => {
    const raw = m.role === "assistant" && m.toolCalls?.length ? written.get(m.toolCalls[0].id) : undefined;
    return raw === undefined ? m : { role: "assistant", content: raw };
  };
  return {
    name: inner.name,
    ...(inner.baseURL === undefined ? {} : { baseURL: inner.baseURL }),
    async complete(request: CompletionRequest, options) {
      const response = await inner.complete({ ...request, messages: request.messages.map(asWritten) }, options);
      if (response.toolCalls?.length || !request.tools?.length) return response;
      const { content, calls } = toolCallsInText(response.text);
      if (!calls.length) return response;
      const turn = randomUUID().slice(0, 8);
      const toolCalls = calls.map((c, i) => ({
        id: `call_${turn}_${i}`,
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
      }));
      written.set(toolCalls[0].id, response.text);
      return {
        ...response,
        text: content,
        toolCalls,
      } satisfies CompletionResponse;
    },
  };
}
