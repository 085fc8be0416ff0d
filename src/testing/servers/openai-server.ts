/**
 * A local server speaking OpenAI's chat completions wire format (`POST /v1/chat/completions`),
 * for tests, fault suites and benchmarks. The test decides the answer; the server shapes it
 * exactly like the real API, including errors, logprobs, usage and SSE streaming.
 */
import { PrefixCache, pseudoTokens, roughTokens, type Reply, type TestServer } from "./common.js";
import { startDialectServer, type Dialect, type ServerOptions } from "./dialect.js";

export type { FaultKind, RecordedRequest, Reply, TestServer } from "./common.js";
export type { ServerOptions } from "./dialect.js";

/** Options of the OpenAI server: faults, rate limit and the `respond` callback. */
export interface OpenAIServerOptions extends ServerOptions {
  /** Minimum shared prefix (rough tokens) before `cached_tokens` appears; OpenAI uses 1024. */
  cacheMinTokens?: number;
}

type Msg = { role?: string; content?: unknown };
type ReplyObj = Exclude<Reply, string>;

const ERROR_TYPES: Record<number, [type: string, code: string | null]> = {
  400: ["invalid_request_error", null],
  401: ["invalid_request_error", "invalid_api_key"],
  404: ["invalid_request_error", "unknown_url"],
  429: ["requests", "rate_limit_exceeded"],
  500: ["server_error", null],
  529: ["server_error", null],
};

function logprobsBlock(reply: ReplyObj, top: number) {
  const entries = reply.logprobs ?? pseudoTokens(reply.text ?? "").map((token) => ({ token, logprob: -0.0001, top: undefined }));
  return {
    content: entries.map((e) => {
      const alts = e.top ?? [{ token: e.token, logprob: e.logprob }, { token: " maybe", logprob: -9.5 }];
      return {
        token: e.token,
        logprob: e.logprob,
        bytes: [...Buffer.from(e.token, "utf8")],
        top_logprobs: alts.slice(0, top).map((t) => ({ token: t.token, logprob: t.logprob, bytes: [...Buffer.from(t.token, "utf8")] })),
      };
    }),
    refusal: null,
  };
}

function toolCalls(reply: ReplyObj) {
  return reply.toolCalls?.map((c, i) => ({
    id: c.id ?? `call_${i}${Math.random().toString(36).slice(2, 12)}`,
    type: "function",
    function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments) },
  }));
}

/** The dialect; exported so the fault suites can reuse it with another path. */
export function openAIDialect(options: OpenAIServerOptions = {}): Dialect {
  const cache = new PrefixCache();
  const minCache = options.cacheMinTokens ?? 1024;
  let created = Math.floor(Date.now() / 1000);

  const usage = (body: Record<string, unknown>, reply: ReplyObj) => {
    const messages = Array.isArray(body.messages) ? (body.messages as Msg[]) : [];
    // OpenAI caches the longest previously seen prefix at message boundaries, in 128-token steps.
    let acc = "";
    let cached = 0;
    for (const m of messages) {
      acc += JSON.stringify(m);
      const t = roughTokens(acc);
      // A prefix under the minimum can never be served from the cache: it is neither hashed nor kept.
      if (t >= minCache && cache.hit(acc)) cached = t - (t % 128);
    }
    const prompt = reply.usage?.input ?? roughTokens(acc);
    const completion =
      reply.usage?.output ?? roughTokens((reply.text ?? "") + (reply.refusal ?? "") + JSON.stringify(reply.toolCalls ?? ""));
    return {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: Math.min(reply.usage?.cached ?? cached, prompt), audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    };
  };

  const finish = (reply: ReplyObj) => reply.finishReason ?? (reply.toolCalls?.length ? "tool_calls" : "stop");
  const head = (body: Record<string, unknown>, object: string) => ({
    id: `chatcmpl-${Math.random().toString(36).slice(2, 14)}`,
    object,
    created: (created = Math.max(created, Math.floor(Date.now() / 1000))),
    model: String(body.model ?? "gpt-test"),
  });

  return {
    path: "/v1/chat/completions",
    requestIdHeader: "x-request-id",
    requestIdPrefix: "req_",
    errorBody(status, message) {
      const [type, code] = ERROR_TYPES[status] ?? (status >= 500 ? ["server_error", null] : ["invalid_request_error", null]);
      return { error: { message, type, param: null, code } };
    },
    success(body, reply) {
      const wantLogprobs = body.logprobs === true && reply.refusal === undefined;
      return {
        ...head(body, "chat.completion"),
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: reply.refusal !== undefined || (reply.toolCalls?.length && reply.text === undefined) ? null : (reply.text ?? ""),
              refusal: reply.refusal ?? null,
              annotations: [],
              ...(reply.toolCalls?.length ? { tool_calls: toolCalls(reply) } : {}),
            },
            logprobs: wantLogprobs ? logprobsBlock(reply, Number(body.top_logprobs ?? 0)) : null,
            finish_reason: finish(reply),
          },
        ],
        usage: usage(body, reply),
        service_tier: "default",
        system_fingerprint: "fp_local0001",
      };
    },
    stream(body, reply, send) {
      const h = head(body, "chat.completion.chunk");
      const chunk = (delta: Record<string, unknown>, finish_reason: string | null, logprobs: unknown = null) =>
        send(null, { ...h, system_fingerprint: "fp_local0001", choices: [{ index: 0, delta, logprobs, finish_reason }] });
      chunk({ role: "assistant", content: "", refusal: null }, null);
      if (reply.refusal !== undefined) chunk({ refusal: reply.refusal }, null);
      const lp = body.logprobs === true ? logprobsBlock(reply, Number(body.top_logprobs ?? 0)).content : undefined;
      pseudoTokens(reply.text ?? "").forEach((piece, i) =>
        chunk({ content: piece }, null, lp?.[i] ? { content: [lp[i]], refusal: null } : null),
      );
      toolCalls(reply)?.forEach((c, index) => {
        chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.function.name, arguments: "" } }] }, null);
        chunk({ tool_calls: [{ index, function: { arguments: c.function.arguments } }] }, null);
      });
      chunk({}, finish(reply));
      const opts = body.stream_options as { include_usage?: boolean } | undefined;
      if (opts?.include_usage) send(null, { ...h, choices: [], usage: usage(body, reply) });
      send(null, "[DONE]");
    },
  };
}

/**
 * Starts a local OpenAI-compatible server on 127.0.0.1 (random port); `url` ends in `/v1`.
 * @example
 * const srv = await startOpenAIServer({ respond: () => '{"verdict":true}', sequence: ["429", "none"] });
 * const client = new OpenAI({ baseURL: srv.url, apiKey: "sk-test", maxRetries: 0 });
 */
export async function startOpenAIServer(options: OpenAIServerOptions = {}): Promise<TestServer<OpenAIServerOptions>> {
  const s = await startDialectServer(openAIDialect(options), options);
  return { ...s, url: `${s.url}/v1` };
}
