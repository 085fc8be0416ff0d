import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openCache } from "../../../src/engine/cache/index.js";
import { createEngine } from "../../../src/engine/engine.js";
import { createReflector } from "../../../src/optimize/targets/reflect.js";
import type { TestServer } from "../../../src/testing/servers/common.js";
import { promptText } from "../../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../../src/testing/servers/openai-server.js";
import { tempDir } from "../../helpers/cli.js";

let server: TestServer<unknown>;
beforeAll(async () => {
  server = (await startOpenAIServer({
    respond: (body) => {
      const text = promptText(body);
      if (text.includes("REFUSE")) return { refusal: "I cannot help with that." };
      return `Proposal for: ${text.slice(0, 40)}\n\`\`\`\nBe exact.\n\`\`\``;
    },
  })) as TestServer<unknown>;
});
afterAll(async () => server.close());

const record = { input: "a task", output: "an answer", score: 0, feedback: "FAILED: not exact" };

describe("createReflector", () => {
  it("asks the model with the default GEPA reflection prompt, through the engine's cache", async () => {
    const engine = createEngine({ cache: openCache({ path: false }), limits: { maxConcurrency: 2, maxRetries: 0, timeoutMs: 5_000 } });
    const reflector = createReflector({ provider: "openai-compatible", base_url: server.url, model: "reflector", temperature: 0.7, max_tokens: 300 }, { engine });
    const before = server.requests.length;
    const args = { candidate: { system: "Be nice." }, component: "system", reflectiveDataset: [record] };
    const raw = await reflector.reflect(args);
    expect(raw).toContain("```\nBe exact.\n```");
    const body = server.requests.at(-1)!.body as { model: string; temperature: number; max_tokens: number };
    expect(body).toMatchObject({ model: "reflector", temperature: 0.7, max_tokens: 300 });
    const prompt = promptText(server.requests.at(-1)!.body as Record<string, unknown>);
    expect(prompt).toContain("```\nBe nice.\n```");
    expect(prompt).toContain("### Feedback\nFAILED: not exact");
    expect(await reflector.reflect(args)).toBe(raw);
    expect(server.requests.length - before).toBe(1);
    expect(reflector.usage()).toMatchObject({ calls: 1, cacheHits: 1 });
    engine.close();
  });

  it("keys the cache on the run's call number: a stuck prompt asked again later is a new call", async () => {
    const engine = createEngine({ cache: openCache({ path: false }), limits: { maxConcurrency: 2, maxRetries: 0, timeoutMs: 5_000 } });
    const reflector = createReflector({ provider: "openai-compatible", base_url: server.url, model: "reflector", temperature: 1 }, { engine });
    const before = server.requests.length;
    const args = { candidate: { system: "Be stuck." }, component: "system", reflectiveDataset: [record] };
    await reflector.reflect({ ...args, call: 7 });
    await reflector.reflect({ ...args, call: 8 });
    expect(server.requests.length - before).toBe(2);
    // The same call number again (a resumed run re-asking an interrupted call) is free.
    await reflector.reflect({ ...args, call: 8 });
    expect(server.requests.length - before).toBe(2);
    expect(reflector.usage()).toMatchObject({ calls: 2, cacheHits: 1 });
    engine.close();
  });

  it("uses a custom prompt and reads its configuration from a judge file", async () => {
    const dir = tempDir("reflector-");
    const file = join(dir, "reflector.yaml");
    writeFileSync(file, `provider: openai-compatible\nbase_url: ${server.url}\nmodel: file-reflector\n`);
    const reflector = createReflector<string>(file, { cache: false, prompt: ({ candidate, component }) => `Rewrite ${candidate[component]}` });
    const raw = await reflector.reflect({ candidate: { q: "Is it short?" }, component: "q", reflectiveDataset: [record] });
    expect(raw).toContain("Proposal for: Rewrite Is it short?");
    expect(reflector.config.model).toBe("file-reflector");
    reflector.close();
  });

  it("turns a refusal into an error (recorded by optimize as a failed proposal)", async () => {
    const reflector = createReflector({ provider: "openai-compatible", base_url: server.url, model: "reflector" }, { cache: null, prompt: () => "REFUSE" });
    await expect(reflector.reflect({ candidate: { s: "x" }, component: "s", reflectiveDataset: [] })).rejects.toMatchObject({ code: "JUDGE_REFUSAL" });
    reflector.close();
  });
});
