import { openAsBlob } from "node:fs";
import type Anthropic from "@anthropic-ai/sdk";
import { RubricateError } from "../errors.js";
import { guardedSteps, scrubResponse, toProviderError } from "./errors.js";
import { fromAnthropicResponse, toAnthropicBody } from "./anthropic-wire.js";
import type { BatchApi, BatchLookup, BatchResultItem, BatchStatus } from "./types.js";

/** Our clock and the provider's may differ; a lookup searches this far around the job's record. */
const CLOCK_SKEW_MS = 10 * 60_000;
/** Error types that say the request itself is wrong: asking again fails again. */
const PERMANENT = new Set(["invalid_request_error", "not_found_error", "permission_error", "authentication_error", "billing_error"]);

/**
 * Anthropic Message Batches: requests sent inline as one JSON body (streamed from disk), polled,
 * results streamed as JSONL. `clientOf` gives the client (the SDK loads on first use), which
 * should stream (see `streamingFetch`).
 *
 * What the service gives a client that lost a create's answer (read from @anthropic-ai/sdk,
 * resources/messages/batches): a batch has no metadata; `batches.list` takes only `limit`,
 * `before_id` and `after_id` and shows every batch of the workspace, newest first, whoever made it;
 * request counts say nothing of whose requests they are (full chunks all hold 100,000); results
 * exist only once a batch has ended. So each job's custom_ids carry the job's nonce
 * (`customIdOf`), and a batch is adopted only when its results carry it.
 */
export function createAnthropicBatchApi(clientOf: () => Promise<Anthropic>, secrets: string[]): BatchApi {
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      throw toProviderError(e, { provider: "anthropic", secrets });
    }
  };
  async function* results(id: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<BatchResultItem> {
    // Guarded to the last line: a download cut mid-stream is a retryable network error, not INTERNAL.
    const client = await clientOf();
    const lines = guardedSteps(await guard(() => client.messages.batches.results(id, undefined, { signal: options.signal })), guard);
    for await (const line of lines) yield readLine(line, secrets);
  }
  return {
    // The documented body limit is "256 MB": under both readings (256,000,000 bytes and 256 MiB),
    // and under the 250 MiB some pages give, with room for rounding.
    limits: { maxItems: 100_000, maxBytes: 250_000_000 },
    discount: 0.5,
    framing: { head: '{"requests":[', separator: ",", tail: "]}" },
    encode: (item) => JSON.stringify({ custom_id: customIdOf(item.customId, item.nonce), params: toAnthropicBody(item.request) }),
    async submit(file, options) {
      const client = await clientOf();
      const body = await openAsBlob(file.path, { type: "application/json" });
      const timeout = options.timeoutMs;
      const batch = await guard(() =>
        client.post<Anthropic.Messages.MessageBatch>("/v1/messages/batches", { body, headers: { "content-type": "application/json" }, ...(timeout ? { timeout } : {}) }),
      );
      return { id: batch.id };
    },
    async find(hint, options = {}): Promise<BatchLookup> {
      const client = await clientOf();
      const running: string[] = [];
      const pages = guardedSteps(await guard(async () => client.messages.batches.list({ limit: 100 }, { signal: options.signal })), guard);
      for await (const batch of pages) {
        if (Date.parse(batch.created_at) < hint.createdAt - CLOCK_SKEW_MS) break;
        const c = batch.request_counts;
        const total = c.processing + c.succeeded + c.errored + c.canceled + c.expired;
        if (hint.exclude.has(batch.id) || total !== hint.count || batch.archived_at) continue;
        if (batch.processing_status !== "ended") {
          running.push(batch.id);
          continue;
        }
        // One line proves it either way: every custom_id of a job carries the job's nonce.
        for await (const item of results(batch.id, options)) {
          if (hint.owns(item)) return { found: batch.id };
          break;
        }
      }
      return running.length > 0 ? { undecided: running } : { none: true };
    },
    async status(id, options = {}): Promise<BatchStatus> {
      const client = await clientOf();
      const batch = await guard(() => client.messages.batches.retrieve(id, undefined, { signal: options.signal }));
      const c = batch.request_counts;
      return {
        state: batch.processing_status === "ended" ? "ended" : "in_progress",
        raw: batch.processing_status,
        counts: { total: c.processing + c.succeeded + c.errored + c.canceled + c.expired, succeeded: c.succeeded, failed: c.errored + c.expired + c.canceled },
        ...(batch.archived_at ? { archived: true } : {}),
      };
    },
    results,
  };
}

function readLine(line: Anthropic.Messages.MessageBatchIndividualResponse, secrets: string[]): BatchResultItem {
  const { key: customId, nonce } = keyOfCustomId(line.custom_id);
  const result = line.result;
  const ids = nonce === undefined ? { customId } : { customId, nonce };
  if (result.type === "succeeded") {
    // The forced tool (tool_choice) answers first: its name is the structured answer's, so nothing per request is kept in memory.
    const tool = result.message.content.find((b) => b.type === "tool_use")?.name;
    return { ...ids, outcome: "succeeded", response: scrubResponse(fromAnthropicResponse(result.message, tool), secrets) };
  }
  if (result.type === "errored") {
    const type = result.error.error.type;
    return { ...ids, outcome: "errored", error: { code: type, message: result.error.error.message, permanent: PERMANENT.has(type) } };
  }
  return { ...ids, outcome: result.type, error: { code: result.type, message: `request ${result.type}` } };
}

/** Length of a job nonce: 12 base64url characters (72 random bits). */
export const NONCE_LENGTH = 12;
const HEX_KEY = /^[0-9a-f]{64}$/;

/**
 * The wire custom_id of a request: the job's nonce, "_", then the 256-bit cache key in base64url
 * (56 characters, within Anthropic's `^[a-zA-Z0-9_-]{1,64}$`; the hex key alone would fill all 64).
 */
export function customIdOf(key: string, nonce: string | undefined): string {
  if (nonce === undefined) return key;
  if (nonce.length !== NONCE_LENGTH || !HEX_KEY.test(key)) throw new RubricateError("INTERNAL", `a batch custom_id needs a ${NONCE_LENGTH}-character nonce and a sha256 cache key`);
  return `${nonce}_${Buffer.from(key, "hex").toString("base64url")}`;
}

/** The cache key and nonce of a wire custom_id (a custom_id without a nonce, from an older job, is the key itself). */
export function keyOfCustomId(customId: string): { key: string; nonce?: string } {
  if (customId.length !== NONCE_LENGTH + 44 || customId[NONCE_LENGTH] !== "_") return { key: customId };
  return { key: Buffer.from(customId.slice(NONCE_LENGTH + 1), "base64url").toString("hex"), nonce: customId.slice(0, NONCE_LENGTH) };
}
