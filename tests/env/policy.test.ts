import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEngine } from "../../src/engine/engine.js";
import { loadEnvironment } from "../../src/env/load.js";
import { createPolicy, loadPolicyConfig, parseModelSpec } from "../../src/env/policy.js";
import { rollout } from "../../src/env/rollout.js";
import { RubricateError } from "../../src/errors.js";
import { tempDir } from "../helpers/cli.js";
import { startAnthropicServer } from "../../src/testing/servers/anthropic-server.js";

describe("policy specs", () => {
  it("parses provider:model, keeping colons in model names and the URL of a compatible server", () => {
    expect(parseModelSpec("openai:gpt-4.1-mini")).toMatchObject({ id: "openai:gpt-4.1-mini", provider: "openai", model: "gpt-4.1-mini" });
    expect(parseModelSpec("anthropic:claude-haiku-4-5")).toMatchObject({ provider: "anthropic", model: "claude-haiku-4-5" });
    const local = parseModelSpec("openai-compatible:qwen3:8b@http://127.0.0.1:11434/v1");
    expect(local).toMatchObject({ provider: "openai-compatible", model: "qwen3:8b", base_url: "http://127.0.0.1:11434/v1", id: "openai-compatible:qwen3:8b@http://127.0.0.1:11434/v1" });
    for (const bad of ["gpt-4.1-mini", "mistral:large", "openai-compatible:llama", "openai:"]) expect(() => parseModelSpec(bad)).toThrow(RubricateError);
  });

  it("keeps credentials in a base URL out of the policy id", () => {
    expect(parseModelSpec("openai-compatible:m@https://user:pw@host.example/v1").id).toBe("openai-compatible:m@https://host.example/v1");
  });

  it("reads a policy config file with located errors; the file's sampling wins over the env's defaults", () => {
    const dir = tempDir("rubricate-policy-");
    const good = join(dir, "p.yaml");
    writeFileSync(good, "provider: openai-compatible\nmodel: local\nbase_url: http://127.0.0.1:9/v1\ntemperature: 0.9\nmax_concurrency: 2\nprice: { input: 0.1, output: 0.2 }\n");
    const policy = createPolicy(good, { defaults: { temperature: 0.1, max_tokens: 77 } });
    expect(policy.params).toEqual({ temperature: 0.9, topP: undefined, maxTokens: 77, seed: undefined });
    expect(policy.limits.maxConcurrency).toBe(2);
    expect(policy.price).toEqual({ input: 0.1, output: 0.2 });
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "provider: openai\nmodel: x\ntemprature: 1\n");
    expect(() => loadPolicyConfig(bad)).toThrow(/bad\.yaml:3:1: unknown key "temprature" \(did you mean "temperature"\?\)/);
  });
});

describe("a policy over the Anthropic wire format", () => {
  it("calls tools through tool_use blocks and sees their results as tool_result blocks", async () => {
    const server = await startAnthropicServer({
      respond: (body) => {
        const messages = body.messages as { role: string; content: unknown }[];
        const results = messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; content?: unknown }[]) : [])).filter((b) => b.type === "tool_result");
        if (results.length === 0) return { toolCalls: [{ id: "toolu_1", name: "search", arguments: { query: "meal allowance" } }] };
        return `The allowance is 60 euros. (source: expense-policy.md) seen=${JSON.stringify(results[0].content).includes("expense-policy.md")}`;
      },
    });
    try {
      const env = await loadEnvironment("examples/doc-search/env.yaml");
      const engine = createEngine({ limits: { maxConcurrency: 2, maxRetries: 0, timeoutMs: 5000 } });
      process.env.RUBRICATE_TEST_KEY ??= "sk-ant-test";
      const policy = createPolicy({ provider: "anthropic", model: "claude-test", base_url: server.url, api_key_env: "RUBRICATE_TEST_KEY" });
      const rec = await rollout(env, policy, env.tasks[1], { engine, errors: "skip-criterion" });
      expect(rec.toolCalls.map((c) => [c.name, c.error ?? "ok"])).toEqual([["search", "ok"]]);
      expect(rec.response).toMatch(/seen=true$/);
      expect(rec.stopReason).toBe("final_answer");
      // Code checks answered; the LLM criteria had no judge and are errors, not "no".
      expect(rec.verdicts.find((v) => v.id === "correct")?.status).toBe("error");
      expect(rec.verdicts.find((v) => v.id === "cites-document")?.status).toBe("unmet"); // it never read the document
    } finally {
      await server.close();
    }
  });
});
