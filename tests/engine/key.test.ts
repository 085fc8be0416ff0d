import { readFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openCache } from "../../src/engine/cache/index.js";
import { createEngine } from "../../src/engine/engine.js";
import { cacheKey, canonicalJson, sanitizeBaseURL, type CacheKeyParts } from "../../src/engine/key.js";
import type { CompletionRequest, Provider } from "../../src/providers/types.js";

const request: CompletionRequest = {
  model: "gpt-test",
  system: "You are a judge.",
  messages: [{ role: "user", content: [{ text: "shared prefix", cache: true }, { text: "question?" }] }],
  temperature: 0,
  maxTokens: 256,
  jsonSchema: { name: "verdicts", schema: { type: "object", properties: { v: { type: "boolean" } } } },
  logprobs: true,
  topLogprobs: 5,
  seed: 7,
  stop: ["\n\n"],
};
const base: CacheKeyParts = { provider: "openai", baseURL: "https://api.example.test/v1", request, voteIndex: 0, extra: { criterion: "c1@1" } };

describe("cacheKey", () => {
  it("is a sha256 hex digest, stable across key order and undefined members", () => {
    const k = cacheKey(base);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    const reordered = { extra: { criterion: "c1@1" }, voteIndex: 0, request: Object.fromEntries(Object.entries(request).reverse()) as unknown as CompletionRequest, baseURL: base.baseURL, provider: "openai" };
    expect(cacheKey(reordered)).toBe(k);
    expect(cacheKey({ ...base, request: { ...request, topP: undefined } })).toBe(k);
    expect(cacheKey({ ...base, voteIndex: undefined })).toBe(k); // vote 0 is the default
  });

  it("changes when any parameter changes", () => {
    const variants: CacheKeyParts[] = [
      { ...base, provider: "openai-compatible" },
      { ...base, baseURL: "https://other.example.test/v1" },
      { ...base, baseURL: undefined },
      { ...base, voteIndex: 1 },
      { ...base, extra: { criterion: "c1@2" } },
      { ...base, extra: undefined },
      ...(
        [
          { model: "gpt-test-2" },
          { system: "You are a strict judge." },
          { system: undefined },
          { messages: [{ role: "user", content: [{ text: "shared prefix", cache: true }, { text: "question!" }] }] },
          { messages: [{ role: "user", content: [{ text: "shared prefix" }, { text: "question?" }] }] },
          { messages: [{ role: "assistant", content: [{ text: "shared prefix", cache: true }, { text: "question?" }] }] },
          { temperature: 0.1 },
          { topP: 0.9 },
          { maxTokens: 257 },
          { jsonSchema: { name: "verdicts", schema: { type: "object", properties: { v: { type: "string" } } } } },
          { jsonSchema: { name: "verdict", schema: request.jsonSchema!.schema } },
          { logprobs: false },
          { topLogprobs: 4 },
          { seed: 8 },
          { stop: ["\n"] },
          { tools: [{ name: "t", parameters: {} }] },
        ] as Partial<CompletionRequest>[]
      ).map((r) => ({ ...base, request: { ...request, ...r } })),
    ];
    const keys = new Set([cacheKey(base), ...variants.map(cacheKey)]);
    expect(keys.size).toBe(variants.length + 1);
  });

  it("ignores credentials in the base URL, so a rotated key neither leaks nor invalidates", () => {
    const k = cacheKey(base);
    expect(cacheKey({ ...base, baseURL: "https://user:sk-secret@api.example.test/v1/" })).toBe(k);
    expect(cacheKey({ ...base, baseURL: "https://api.example.test/v1?api_key=sk-secret" })).toBe(k);
    expect(sanitizeBaseURL("https://u:p@h.test/v1?api-version=2024&token=x#frag")).toBe("https://h.test/v1?api-version=2024");
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: undefined }] })).toBe('{"a":[{"d":1}],"b":1}');
  });

  it("never writes an API key from the environment into the cache file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rubricate-key-"));
    const secret = `sk-test-${Math.random().toString(36).slice(2)}${Date.now()}`;
    process.env.RUBRICATE_TEST_API_KEY = secret;
    try {
      const path = join(dir, "cache.db");
      // Like a real adapter: reads the key from the environment and sends it with each call.
      const seen: string[] = [];
      const provider: Provider = {
        name: "openai",
        baseURL: `https://user:${secret}@api.example.test/v1?api_key=${secret}`,
        complete: async (req) => {
          seen.push(`Bearer ${process.env.RUBRICATE_TEST_API_KEY}`);
          return { text: `ANSWER-MARKER ${req.messages.length}`, finishReason: "stop", usage: { inputTokens: 5, outputTokens: 1, cachedInputTokens: 0 } };
        },
      };
      const engine = createEngine({ cache: openCache({ path }), limits: { maxConcurrency: 2, maxRetries: 0, timeoutMs: 5000 } });
      for (let v = 0; v < 20; v++) await engine.complete(provider, request, { voteIndex: v, keyExtra: { env: "prod" } });
      const bytesWhileOpen = [path, `${path}-wal`].filter(existsSync).map((p) => readFileSync(p));
      engine.close();
      expect(seen[0]).toBe(`Bearer ${secret}`);
      const bytes = Buffer.concat([...bytesWhileOpen, readFileSync(path)]);
      expect(bytes.includes("ANSWER-MARKER")).toBe(true); // the grep can find what is stored
      expect(bytes.includes(secret)).toBe(false);
    } finally {
      delete process.env.RUBRICATE_TEST_API_KEY;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
