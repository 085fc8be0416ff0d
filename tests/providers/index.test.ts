import { afterEach, describe, expect, it, vi } from "vitest";
import { RubricateError } from "../../src/errors.js";
import { createProvider, createScriptedProvider } from "../../src/providers/index.js";

const KEY = "sk-index-test-000111222333";

function thrown(f: () => unknown): RubricateError {
  try {
    f();
  } catch (e) {
    return e as RubricateError;
  }
  throw new Error("expected a throw");
}

afterEach(() => vi.unstubAllEnvs());

describe("createProvider", () => {
  it("builds each provider from a judge config subset", () => {
    vi.stubEnv("OPENAI_API_KEY", KEY);
    vi.stubEnv("ANTHROPIC_API_KEY", KEY);
    expect(createProvider({ provider: "openai" })).toMatchObject({ name: "openai", baseURL: "https://api.openai.com/v1" });
    expect(createProvider({ provider: "anthropic", base_url: "http://127.0.0.1:9/" })).toMatchObject({ name: "anthropic", baseURL: "http://127.0.0.1:9/" });
    expect(createProvider({ provider: "openai-compatible", base_url: "http://127.0.0.1:9/v1" })).toMatchObject({ name: "openai-compatible" });
  });

  it("fails with MISSING_API_KEY naming the variable, never a value", () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    vi.stubEnv("ANTHROPIC_API_KEY", "");
    for (const [provider, variable] of [["openai", "OPENAI_API_KEY"], ["anthropic", "ANTHROPIC_API_KEY"]] as const) {
      const e = thrown(() => createProvider({ provider }));
      expect(e).toMatchObject({ code: "MISSING_API_KEY", retryable: false });
      expect(e.message).toContain(variable);
    }
    const named = thrown(() => createProvider({ provider: "openai-compatible", base_url: "http://127.0.0.1:9/v1", api_key_env: "VLLM_KEY" }));
    expect(named.code).toBe("MISSING_API_KEY");
    expect(named.message).toContain("VLLM_KEY");
  });

  it("rejects an openai-compatible provider without base_url, and unknown providers", () => {
    expect(thrown(() => createProvider({ provider: "openai-compatible" })).code).toBe("JUDGE_CONFIG");
    expect(thrown(() => createProvider({ provider: "gemini" as "openai" })).code).toBe("JUDGE_CONFIG");
  });
});

describe("createScriptedProvider", () => {
  it("turns a string into a full response and passes full responses through", async () => {
    const p = createScriptedProvider((req) => (req.model === "full" ? { text: "x", finishReason: "length", usage: { inputTokens: 1, outputTokens: 2, cachedInputTokens: 0 } } : `echo ${req.messages.length}`));
    expect(p.name).toBe("scripted");
    const r = await p.complete({ model: "m", messages: [{ role: "user", content: "hello there" }] });
    expect(r).toMatchObject({ text: "echo 1", finishReason: "stop", model: "m" });
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    expect(await p.complete({ model: "full", messages: [] })).toMatchObject({ finishReason: "length" });
  });

  it("honours an aborted signal", async () => {
    const p = createScriptedProvider(() => "never");
    const ac = new AbortController();
    ac.abort();
    await expect(p.complete({ model: "m", messages: [] }, { signal: ac.signal })).rejects.toMatchObject({ code: "ABORTED" });
  });
});
