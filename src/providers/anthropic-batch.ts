import type Anthropic from "@anthropic-ai/sdk";
import { scrubResponse, toProviderError } from "./errors.js";
import { fromAnthropicResponse, toAnthropicBody } from "./anthropic-wire.js";
import type { BatchApi, BatchResultItem, BatchStatus, CompletionRequest } from "./types.js";

/** Anthropic Message Batches: requests sent inline, polled, results streamed as JSONL. */
export function createAnthropicBatchApi(client: Anthropic, secrets: string[]): BatchApi {
  // The forced tool's name turns a tool_use answer back into JSON text; remember it per request.
  const toolNames = new Map<string, string | undefined>();
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      throw toProviderError(e, { provider: "anthropic", secrets });
    }
  };
  const toolOf = (request: CompletionRequest) => request.jsonSchema?.name;
  return {
    maxItems: 10_000,
    async submit(items, options = {}) {
      // Message Batches take requests inline in one JSON body, so a batch is in memory once here.
      const requests: { custom_id: string; params: ReturnType<typeof toAnthropicBody> }[] = [];
      for await (const item of items) {
        toolNames.set(item.customId, toolOf(item.request));
        requests.push({ custom_id: item.customId, params: toAnthropicBody(item.request) });
      }
      const batch = await guard(() => client.messages.batches.create({ requests }, { signal: options.signal }));
      return { id: batch.id };
    },
    async status(id, options = {}): Promise<BatchStatus> {
      const batch = await guard(() => client.messages.batches.retrieve(id, undefined, { signal: options.signal }));
      const c = batch.request_counts;
      return {
        state: batch.processing_status === "ended" ? "ended" : "in_progress",
        raw: batch.processing_status,
        counts: { total: c.processing + c.succeeded + c.errored + c.canceled + c.expired, succeeded: c.succeeded, failed: c.errored + c.expired + c.canceled },
      };
    },
    async *results(id, options = {}): AsyncGenerator<BatchResultItem> {
      const stream = await guard(() => client.messages.batches.results(id, undefined, { signal: options.signal }));
      for await (const line of stream) {
        const result = line.result;
        if (result.type === "succeeded") {
          // A resumed process has no memory of the tool name: the judge's structured tools are named "verdicts"/"verdict".
          const tool = toolNames.get(line.custom_id) ?? result.message.content.find((b) => b.type === "tool_use")?.name;
          yield { customId: line.custom_id, outcome: "succeeded", response: scrubResponse(fromAnthropicResponse(result.message, tool), secrets) };
        } else if (result.type === "errored") {
          yield { customId: line.custom_id, outcome: "errored", error: { code: result.error.error.type, message: result.error.error.message } };
        } else {
          yield { customId: line.custom_id, outcome: result.type, error: { code: result.type, message: `request ${result.type}` } };
        }
      }
    },
  };
}
