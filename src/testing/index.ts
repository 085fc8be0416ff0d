/**
 * Test doubles for code built on rubricate: a provider answered by a function, a clock you move
 * by hand, and local servers that speak OpenAI's and Anthropic's wire formats (with fault
 * injection: 429 with retry-after, 5xx, hangs, resets, truncated and garbage bodies), so judges,
 * policies and environments are tested through the official SDKs with no network.
 * @example
 * import { startOpenAIServer, judgeResponder } from "rubricate/testing";
 * const server = await startOpenAIServer({ respond: judgeResponder(() => true) });
 * // createJudge({ provider: "openai-compatible", base_url: server.url, model: "judge" }) … await server.close();
 */
export { createScriptedProvider, type ScriptedReply } from "../providers/index.js";
export { ManualClock, type Clock } from "../engine/clock.js";
export { startOpenAIServer, type OpenAIServerOptions } from "./servers/openai-server.js";
export { startAnthropicServer, type AnthropicServerOptions } from "./servers/anthropic-server.js";
export { startWireServer } from "./servers/wire.js";
export type { WireFormat } from "../providers/registry.js";
export { judgeResponder, viewRequest, type AskedQuestion, type Decision, type JudgeRequestView } from "./servers/judge-responder.js";
export type { FaultKind, FaultOptions, RecordedRequest, Reply, ReplyToolCall, TestServer } from "./servers/common.js";
