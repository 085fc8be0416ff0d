import { openAsBlob } from "node:fs";
import type Anthropic from "@anthropic-ai/sdk";
import { scrubResponse, toProviderError } from "./errors.js";
import { fromAnthropicResponse, toAnthropicBody } from "./anthropic-wire.js";
import type { BatchApi, BatchResultItem, BatchStatus } from "./types.js";

/** Our clock and the provider's may differ; a lookup searches this far around the job's record. */
const CLOCK_SKEW_MS = 10 * 60_000;
/** Error types that say the request itself is wrong: asking again fails again. */
const PERMANENT = new Set(["invalid_request_error", "not_found_error", "permission_error", "authentication_error", "billing_error"]);

/**
 * Anthropic Message Batches: requests sent inline as one JSON body (streamed from disk), polled,
 * results streamed as JSONL. `client` should stream (see `streamingFetch`).
 */
export function createAnthropicBatchApi(client: Anthropic, secrets: string[]): BatchApi {
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      throw toProviderError(e, { provider: "anthropic", secrets });
    }
  };
  return {
    // 256 MB is the documented body limit; the margin covers rounding.
    limits: { maxItems: 100_000, maxBytes: 250 * 1024 * 1024 },
    discount: 0.5,
    framing: { head: '{"requests":[', separator: ",", tail: "]}" },
    encode: (item) => JSON.stringify({ custom_id: item.customId, params: toAnthropicBody(item.request) }),
    async submit(file, options) {
      // Message batches have no metadata: a lost create is found again by time and request count.
      const body = await openAsBlob(file.path, { type: "application/json" });
      const timeout = options.timeoutMs;
      const batch = await guard(() =>
        client.post<Anthropic.Messages.MessageBatch>("/v1/messages/batches", { body, headers: { "content-type": "application/json" }, ...(timeout ? { timeout } : {}) }),
      );
      return { id: batch.id };
    },
    async find(hint, options = {}) {
      let best: { id: string; distance: number } | undefined;
      for await (const batch of await guard(async () => client.messages.batches.list({ limit: 100 }, { signal: options.signal }))) {
        const created = Date.parse(batch.created_at);
        if (created < hint.createdAt - CLOCK_SKEW_MS) break;
        const c = batch.request_counts;
        const total = c.processing + c.succeeded + c.errored + c.canceled + c.expired;
        if (hint.exclude.has(batch.id) || total !== hint.count) continue;
        const distance = Math.abs(created - hint.createdAt);
        if (!best || distance < best.distance) best = { id: batch.id, distance };
      }
      return best?.id;
    },
    async status(id, options = {}): Promise<BatchStatus> {
      const batch = await guard(() => client.messages.batches.retrieve(id, undefined, { signal: options.signal }));
      const c = batch.request_counts;
      return {
        state: batch.processing_status === "ended" ? "ended" : "in_progress",
        raw: batch.processing_status,
        counts: { total: c.processing + c.succeeded + c.errored + c.canceled + c.expired, succeeded: c.succeeded, failed: c.errored + c.expired + c.canceled },
        ...(batch.archived_at ? { archived: true } : {}),
      };
    },
    async *results(id, options = {}): AsyncGenerator<BatchResultItem> {
      const stream = await guard(() => client.messages.batches.results(id, undefined, { signal: options.signal }));
      for await (const line of stream) {
        const result = line.result;
        if (result.type === "succeeded") {
          // The forced tool (tool_choice) answers first: its name is the structured answer's, so nothing per request is kept in memory.
          const tool = result.message.content.find((b) => b.type === "tool_use")?.name;
          yield { customId: line.custom_id, outcome: "succeeded", response: scrubResponse(fromAnthropicResponse(result.message, tool), secrets) };
        } else if (result.type === "errored") {
          const type = result.error.error.type;
          yield { customId: line.custom_id, outcome: "errored", error: { code: type, message: result.error.error.message, permanent: PERMANENT.has(type) } };
        } else {
          yield { customId: line.custom_id, outcome: result.type, error: { code: result.type, message: `request ${result.type}` } };
        }
      }
    },
  };
}
