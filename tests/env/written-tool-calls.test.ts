/**
 * Tool calls a policy writes in its text (src/env/written-tool-calls.ts): read so the tools run,
 * and sent back as the text the model wrote, so OpenRLHF's OpenAI-server executor (the stand-in in
 * ./openrlhf-server-executor.ts, its prefix assertions included) keeps one growing token sequence
 * per session. Rewards must equal `rubricate eval`'s for the same trajectory with parsed calls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRewardServer, type RewardServer } from "../../src/bridge/server.js";
import { sessionRoutes } from "../../src/bridge/sessions.js";
import { runEval } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import { createSessionManager } from "../../src/env/sessions.js";
import type { Environment } from "../../src/env/types.js";
import { readingWrittenToolCalls } from "../../src/env/written-tool-calls.js";
import type { EngineJudge } from "../../src/judge/create.js";
import type { CompletionRequest, CompletionResponse, Provider } from "../../src/providers/types.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { agent, startSupportWorld } from "../bridge/env-world.js";
import { startServerExecutor, qwenTemplate, type ExecutorMessage, type ServerExecutor } from "./openrlhf-server-executor.js";
import { connect, type WireMessage } from "./world.js";

/** A provider answering scripted texts and keeping every request it got. */
function scripted(answers: string[]): Provider & { requests: CompletionRequest[] } {
  const requests: CompletionRequest[] = [];
  return {
    name: "openai-compatible",
    requests,
    async complete(request) {
      requests.push(request);
      return {
        text: answers[requests.length - 1] ?? "done",
        finishReason: "stop",
        usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 },
      } satisfies CompletionResponse;
    },
  };
}

const TOOLS = [{ name: "find_orders", parameters: { type: "object" } }];
const WRITTEN = 'Let me look.\n<tool_call>{"arguments":{"email":"ana@example.com"},"name":"find_orders"}</tool_call>';

describe("readingWrittenToolCalls", () => {
  it("reads the calls out of the text, and sends that turn back as the text the model wrote, without tool_calls", async () => {
    const inner = scripted([WRITTEN, "Found it."]);
    const provider = readingWrittenToolCalls(inner);
    const first = await provider.complete({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: TOOLS,
    });
    expect(first.text).toBe("Let me look.");
    expect(first.toolCalls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        name: "find_orders",
        arguments: '{"email":"ana@example.com"}',
      },
    ]);
    const call = first.toolCalls![0];
    await provider.complete({
      model: "m",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: first.text, toolCalls: first.toolCalls },
        { role: "tool", toolCallId: call.id, content: "[]" },
      ],
      tools: TOOLS,
    });
    expect(inner.requests[1].messages[1]).toEqual({
      role: "assistant",
      content: WRITTEN,
    });
    expect(inner.requests[1].messages[2]).toEqual({
      role: "tool",
      toolCallId: call.id,
      content: "[]",
    });
  });

  it("leaves alone calls the server parsed, texts when no tools were offered, and blocks that are not calls", async () => {
    const parsed: CompletionResponse = {
      text: "",
      toolCalls: [{ id: "c1", name: "find_orders", arguments: "{}" }],
      finishReason: "tool_calls",
      usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 },
    };
    const byServer = readingWrittenToolCalls({
      name: "openai-compatible",
      complete: async () => parsed,
    });
    expect(await byServer.complete({ model: "m", messages: [], tools: TOOLS })).toBe(parsed);
    const noTools = readingWrittenToolCalls(scripted([WRITTEN]));
    expect((await noTools.complete({ model: "m", messages: [] })).text).toBe(WRITTEN);
    const broken = "<tool_call>{not json}</tool_call>";
    const notACall = await readingWrittenToolCalls(scripted([broken])).complete({ model: "m", messages: [], tools: TOOLS });
    expect(notACall).toMatchObject({ text: broken });
    expect(notACall.toolCalls).toBeUndefined();
  });
});

/** The support-desk `agent`, its calls written in the text as a model without a tool parser writes them (not the template's spelling). */
function writtenAgent(messages: ExecutorMessage[]): string {
  const reply = agent(messages);
  if (typeof reply === "string") return reply;
  return [
    "One moment.",
    ...reply.toolCalls.map(
      (c) =>
        `<tool_call>${JSON.stringify({
          arguments: c.arguments,
          name: c.name,
        })}</tool_call>`
    ),
  ].join("\n");
}

describe("/v1/rollouts against OpenRLHF's OpenAI-server executor (a stand-in of its handler and _stitch_session)", () => {
  let world: TestServer<unknown>;
  let env: Environment;
  let judge: EngineJudge;
  let executor: ServerExecutor;
  let server: RewardServer;
  let url: string;

  beforeAll(async () => {
    env = await loadEnvironment("examples/support-desk/env.yaml");
    world = await startSupportWorld();
    ({ judge } = connect(world.url, []));
    executor = await startServerExecutor(writtenAgent);
    const sessions = createSessionManager({ env, engine: judge.engine, judge });
    server = createRewardServer({
      rubric: env.rubric,
      judge,
      dynamicRoutes: sessionRoutes({
        env,
        sessions,
        engine: judge.engine,
        judge,
        allowPolicyHosts: [new URL(executor.url).host],
      }),
      onClose: () => sessions.closeAll(),
    });
    url = await server.listen(0);
  });
  afterAll(async () => {
    await server?.close();
    await executor?.close();
    await world?.close();
  });

  it("runs the tools the model wrote in its text, keeps every call a prefix extension of the last, and gives eval's reward", async () => {
    // The body examples/trainers/openrlhf_agent.py rollout_run_agent sends for logprobs=1, max_tokens=None, max_length=4096.
    const policy = {
      base_url: executor.url,
      model: "policy",
      temperature: 0.7,
      top_p: 1,
      max_tokens: 4096,
      extra_body: { session_id: "sess-7", logprobs: true, top_logprobs: 1 },
    };
    const res = await fetch(`${url}/v1/rollouts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ task_id: "damaged-blender", k: 1, policy }),
    });
    expect(res.status).toBe(200);
    const rollout = (
      (await res.json()) as {
        rollouts: { messages: WireMessage[]; reward: number | null }[];
      }
    ).rollouts[0];

    expect(executor.failures).toEqual([]);
    const stitched = executor.stitch("sess-7");
    expect(stitched.error).toBeUndefined();
    expect(stitched.actionRanges).toHaveLength(3); // find_orders, issue_refund, the answer
    expect(stitched.logprobs).toBeGreaterThan(0);
    // Each turn with calls went back as the model wrote it, its tool results after it.
    const last = executor.bodies.at(-1)!.messages as ExecutorMessage[];
    const sent = last.filter((m) => m.role === "assistant");
    expect(sent.map((m) => m.tool_calls)).toEqual([undefined, undefined]);
    expect(sent[0].content).toBe(writtenAgent(last.slice(0, 2)));
    expect(last.filter((m) => m.role === "tool")).toHaveLength(2);
    // The template would spell the parsed calls otherwise: sending them parsed would break the prefix.
    const parsedForm = {
      role: "assistant",
      content: "One moment.",
      tool_calls: [
        {
          id: "c",
          function: {
            name: "find_orders",
            arguments: '{"email":"ana@example.com"}',
          },
        },
      ],
    };
    expect(qwenTemplate([parsedForm], false)).not.toBe(qwenTemplate([{ role: "assistant", content: sent[0].content }], false));

    // The tools ran: the transcript holds parsed calls and their results, as eval records a parsing server's.
    const wire = rollout.messages;
    expect(wire.filter((m) => m.role === "assistant" && m.tool_calls?.length).map((m) => m.tool_calls![0].function.name)).toEqual(["find_orders", "issue_refund"]);
    expect(wire.find((m) => m.role === "assistant")!.content).toBe("One moment.");
    const { engine, policies } = connect(world.url, ["agent"]);
    const { records } = await runEval(env, { policies, engine, judge });
    engine.close();
    const evalReward = records.find((r) => r.task === "damaged-blender")!.reward;
    expect(evalReward).toBe(1);
    expect(rollout.reward).toBe(evalReward);
  });
});
