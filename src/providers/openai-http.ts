/**
 * A chat-completions call without the SDK: one JSON POST over the keep-alive agents, read back by
 * the SDK's own rules. The SDK spends ~150–180 µs of CPU and ~34 KB per call building headers from
 * six sources, formatting log details with logging off and wrapping the answer, about a third of
 * what a judge call costs in this process (BENCHMARKS.md, "The live call without the SDK"). A
 * live judge call needs none of it: our scheduler retries, `withOwnDeadline` and `sendBuffered`
 * time out, and `toProviderError` maps failures by shape. What the caller sees (the request on the
 * wire, the parsed answer, the error's code, status, retry-after and message) is the SDK's:
 * tests/providers/openai-http.test.ts compares the two on the wire and on every kind of error body,
 * http-fetch-sdk.test.ts on every failure the fake servers make.
 */
import http from "node:http";
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { RubricateError } from "../errors.js";
import { parseJsonOrUndefined } from "../text/json.js";
import type { OwnDeadlineScope } from "./call.js";
import { requestTarget, responseLimit, sendBuffered, NodeHeaders, type BufferedAnswer } from "./http-fetch.js";

/**
 * One chat completion: the body as the API takes it, the caller's signal and the deadline (a
 * `DeadlineError` when it passes); resolves with what the SDK would return.
 */
export type ChatCompletionsCall = (body: ChatCompletionCreateParamsNonStreaming, scope: OwnDeadlineScope) => Promise<ChatCompletion>;

/**
 * The call for a base URL and key. The headers are the SDK's minus its telemetry (`x-stainless-*`)
 * and with our user agent: `Accept`, the bearer key, `OpenAI-Organization` and `OpenAI-Project`
 * from `OPENAI_ORG_ID` and `OPENAI_PROJECT_ID`, the `Name: value` lines of `OPENAI_CUSTOM_HEADERS`
 * (which may replace any of those), then the content type. Built once: a header the SDK's
 * environment variables name that node:http would refuse fails here, as JUDGE_CONFIG. The
 * response limit (`RUBRICATE_MAX_RESPONSE_MB`) is read here too.
 * @example const call = chatCompletionsCall("openai-compatible", "http://127.0.0.1:8000/v1", "not-needed"); await call(body, { signal, timeoutMs: 30_000 });
 */
export function chatCompletionsCall(provider: string, baseURL: string, apiKey: string): ChatCompletionsCall {
  const url = `${baseURL}${baseURL.endsWith("/") ? "" : "/"}chat/completions`;
  const target = parsedTarget(url);
  if (!target) throw new RubricateError("JUDGE_CONFIG", `${provider}: base URL ${baseURL} is not an http(s) URL`);
  const headers = sdkHeaders(provider, apiKey);
  const limit = responseLimit();
  return async (body, { signal, timeoutMs }) => {
    const bytes = Buffer.from(JSON.stringify(body));
    const answer = await sendBuffered(target, { method: "POST", headers: { ...headers, "content-length": String(bytes.length) }, body: bytes, signal, limit, timeoutMs });
    return readAnswer(answer) as ChatCompletion;
  };
}

/** The http(s) target of a URL, or undefined for another protocol or a malformed URL. */
function parsedTarget(url: string): ReturnType<typeof requestTarget> {
  try {
    return requestTarget(url);
  } catch {
    return undefined;
  }
}

/** The request headers the SDK would send (see `chatCompletionsCall`), validated once. */
function sdkHeaders(provider: string, apiKey: string): Record<string, string> {
  const headers: Record<string, string> = { accept: "application/json", "user-agent": "rubricate", authorization: `Bearer ${apiKey}` };
  const org = readEnv("OPENAI_ORG_ID");
  const project = readEnv("OPENAI_PROJECT_ID");
  if (org) headers["openai-organization"] = org;
  if (project) headers["openai-project"] = project;
  for (const line of (readEnv("OPENAI_CUSTOM_HEADERS") ?? "").split("\n")) {
    const colon = line.indexOf(":");
    if (colon >= 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  headers["content-type"] = "application/json";
  for (const [name, value] of Object.entries(headers)) {
    try {
      http.validateHeaderName(name);
      http.validateHeaderValue(name, value);
    } catch {
      // The value may be a secret: only the name is told.
      throw new RubricateError("JUDGE_CONFIG", `${provider}: the request header ${JSON.stringify(name)} (from the environment) is not a valid HTTP header`);
    }
  }
  return headers;
}

/** An environment variable as the SDK reads it: trimmed, and unset when empty. */
function readEnv(name: string): string | undefined {
  return process.env[name]?.trim() || undefined;
}

/**
 * The answer as the SDK parses it: a 2xx JSON body parsed (a SyntaxError when it is not JSON), any
 * other 2xx body as text, 204 as null; anything else an `HttpStatusError` like the SDK's.
 */
function readAnswer(answer: BufferedAnswer): unknown {
  const text = () => answer.body.toString("utf8");
  if (answer.status < 200 || answer.status > 299) throw statusError(answer.status, text(), new NodeHeaders(answer.headers));
  if (answer.status === 204) return null;
  const mediaType = String(answer.headers["content-type"] ?? "").split(";")[0].trim();
  if (!mediaType.includes("application/json") && !mediaType.endsWith("+json")) return text();
  if (answer.headers["content-length"] === "0") return undefined;
  return JSON.parse(text());
}

/**
 * A non-2xx answer with the fields `toProviderError` reads (status, headers, request id) and the
 * SDK's message: `<status> <error.message>`, else `<status> <the error object as JSON>`, else the
 * body when it is not JSON, else `<status> status code (no body)`.
 */
export class HttpStatusError extends Error {
  readonly requestID: string | null;

  constructor(
    readonly status: number,
    message: string,
    readonly headers: NodeHeaders,
  ) {
    super(message);
    this.name = "HttpStatusError";
    this.requestID = headers.get("x-request-id");
  }
}

function statusError(status: number, body: string, headers: NodeHeaders): HttpStatusError {
  const json = parseJsonOrUndefined(body);
  const error = (json as { error?: unknown } | undefined)?.error as { message?: unknown } | undefined;
  const detail = error?.message ? (typeof error.message === "string" ? error.message : JSON.stringify(error.message)) : error ? JSON.stringify(error) : json ? undefined : body;
  return new HttpStatusError(status, detail ? `${status} ${detail}` : `${status} status code (no body)`, headers);
}
