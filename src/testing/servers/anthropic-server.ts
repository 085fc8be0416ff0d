/**
 * A local server speaking Anthropic's messages wire format (`POST /v1/messages`), for tests,
 * fault suites and benchmarks. A request forcing a tool gets the reply's JSON text back as that
 * tool's `input`, as the real API does; `cache_control` prefixes are remembered to fill the
 * cache usage fields.
 */
import { PrefixCache, pseudoTokens, roughTokens, type Reply, type TestServer } from "./common.js";
import { startDialectServer, type Dialect, type ServerOptions } from "./dialect.js";

export type { FaultKind, RecordedRequest, Reply, TestServer } from "./common.js";
export type { ServerOptions } from "./dialect.js";

/** Options of the Anthropic server: faults, rate limit and the `respond` callback. */
export interface AnthropicServerOptions extends ServerOptions {
  /** Minimum cacheable prefix (rough tokens); Anthropic's is 1024 for most models. */
  cacheMinTokens?: number;
}

type ReplyObj = Exclude<Reply, string>;
type Block = Record<string, unknown>;

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** The blocks in prompt order (tools, system, messages), flattened, for prefix caching. */
function promptBlocks(body: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  if (Array.isArray(body.tools)) out.push(...body.tools);
  if (typeof body.system === "string") out.push(body.system);
  else if (Array.isArray(body.system)) out.push(...body.system);
  for (const m of (body.messages as { role: string; content: unknown }[] | undefined) ?? []) {
    if (Array.isArray(m.content)) out.push(...m.content.map((c: unknown) => ({ role: m.role, c })));
    else out.push({ role: m.role, c: m.content });
  }
  return out;
}

function hasCacheControl(block: unknown): boolean {
  if (typeof block !== "object" || block === null) return false;
  const b = block as Block;
  return b.cache_control !== undefined || (typeof b.c === "object" && b.c !== null && (b.c as Block).cache_control !== undefined);
}

function forcedTool(body: Record<string, unknown>): string | undefined {
  const choice = body.tool_choice as { type?: string; name?: string } | undefined;
  return choice?.type === "tool" ? choice.name : undefined;
}

function contentBlocks(body: Record<string, unknown>, reply: ReplyObj): Block[] {
  if (reply.refusal !== undefined) return [{ type: "text", text: reply.refusal, citations: null }];
  const blocks: Block[] = [];
  const forced = forcedTool(body);
  if (forced && !reply.toolCalls?.length && reply.text !== undefined) {
    let input: unknown;
    try {
      input = JSON.parse(reply.text);
    } catch {
      input = { text: reply.text };
    }
    return [{ type: "tool_use", id: `toolu_${Math.random().toString(36).slice(2, 14)}`, name: forced, input }];
  }
  if (reply.text !== undefined && reply.text !== "") blocks.push({ type: "text", text: reply.text, citations: null });
  for (const c of reply.toolCalls ?? []) {
    let input: unknown = c.arguments;
    if (typeof c.arguments === "string") {
      try {
        input = JSON.parse(c.arguments);
      } catch {
        input = { raw: c.arguments };
      }
    }
    blocks.push({ type: "tool_use", id: c.id ?? `toolu_${Math.random().toString(36).slice(2, 14)}`, name: c.name, input });
  }
  if (blocks.length === 0) blocks.push({ type: "text", text: "", citations: null });
  return blocks;
}

/** The dialect; exported so fault suites can reuse it. */
export function anthropicDialect(options: AnthropicServerOptions = {}): Dialect {
  const cache = new PrefixCache();
  const minCache = options.cacheMinTokens ?? 1024;

  const usage = (body: Record<string, unknown>, reply: ReplyObj, blocks: Block[]) => {
    const all = promptBlocks(body);
    const last = all.map(hasCacheControl).lastIndexOf(true);
    const total = roughTokens(JSON.stringify(all));
    let read = 0;
    let write = 0;
    if (last >= 0) {
      const prefix = JSON.stringify(all.slice(0, last + 1));
      const t = roughTokens(prefix);
      if (t >= minCache) {
        if (cache.hit(prefix)) read = t;
        else write = t;
      }
    }
    const u = reply.usage;
    return {
      // Anthropic's input_tokens counts only what was neither read from nor written to the cache.
      input_tokens: u?.input ?? Math.max(1, total - read - write),
      cache_creation_input_tokens: u?.cacheWrite ?? write,
      cache_read_input_tokens: u?.cached ?? read,
      cache_creation: { ephemeral_5m_input_tokens: u?.cacheWrite ?? write, ephemeral_1h_input_tokens: 0 },
      output_tokens: u?.output ?? roughTokens(JSON.stringify(blocks)),
      service_tier: "standard",
    };
  };

  const stopReason = (reply: ReplyObj, blocks: Block[]) =>
    reply.finishReason ?? (reply.refusal !== undefined ? "refusal" : blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");

  const message = (body: Record<string, unknown>, blocks: Block[]) => ({
    id: `msg_${Math.random().toString(36).slice(2, 14)}`,
    type: "message",
    role: "assistant",
    model: String(body.model ?? "claude-test"),
    content: blocks,
  });

  return {
    path: "/v1/messages",
    requestIdHeader: "request-id",
    requestIdPrefix: "req_",
    errorBody(status, message, requestId) {
      const type = ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
      return { type: "error", error: { type, message }, request_id: requestId };
    },
    success(body, reply) {
      const blocks = contentBlocks(body, reply);
      return { ...message(body, blocks), stop_reason: stopReason(reply, blocks), stop_sequence: null, usage: usage(body, reply, blocks) };
    },
    stream(body, reply, send) {
      const blocks = contentBlocks(body, reply);
      const u = usage(body, reply, blocks);
      send("message_start", {
        type: "message_start",
        message: { ...message(body, []), stop_reason: null, stop_sequence: null, usage: { ...u, output_tokens: 1 } },
      });
      blocks.forEach((b, index) => {
        const start = b.type === "tool_use" ? { ...b, input: {} } : { ...b, text: "" };
        send("content_block_start", { type: "content_block_start", index, content_block: start });
        if (index === 0) send("ping", { type: "ping" });
        if (b.type === "tool_use") {
          const json = JSON.stringify(b.input);
          const mid = Math.floor(json.length / 2);
          for (const partial_json of [json.slice(0, mid), json.slice(mid)])
            send("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });
        } else {
          for (const text of pseudoTokens(String(b.text)))
            send("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text } });
        }
        send("content_block_stop", { type: "content_block_stop", index });
      });
      send("message_delta", {
        type: "message_delta",
        delta: { stop_reason: stopReason(reply, blocks), stop_sequence: null },
        usage: { output_tokens: u.output_tokens },
      });
      send("message_stop", { type: "message_stop" });
    },
  };
}

/**
 * Starts a local Anthropic messages server on 127.0.0.1 (random port); pass `url` as `baseURL`.
 * @example
 * const srv = await startAnthropicServer({ respond: () => '{"verdict":true}', rates: { "529": 0.1 }, seed: 7 });
 * const client = new Anthropic({ baseURL: srv.url, apiKey: "sk-ant-test", maxRetries: 0 });
 */
export async function startAnthropicServer(options: AnthropicServerOptions = {}): Promise<TestServer<AnthropicServerOptions>> {
  return startDialectServer(anthropicDialect(options), options);
}
