import { afterEach, describe, expect, it, vi } from "vitest";
import { createProvider, PROVIDERS } from "../../src/providers/index.js";
import type { ProviderSpec } from "../../src/providers/registry.js";
import { createScriptedProvider } from "../../src/providers/index.js";
import { startWireServer } from "../../src/testing/servers/wire.js";
import { tempDir } from "../helpers/cli.js";

const KEY = "sk-registry-test-000111222333";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.doUnmock("../../src/providers/registry.js");
  vi.resetModules();
});

describe("the provider table", () => {
  it("every provider answers through its wire format's local server", async () => {
    for (const spec of PROVIDERS as readonly ProviderSpec[]) {
      const srv = await startWireServer(spec.wire, { respond: () => `hello from ${spec.name}` });
      try {
        if (spec.keyEnv) vi.stubEnv(spec.keyEnv, KEY);
        const provider = createProvider({ provider: spec.name as never, base_url: srv.url });
        const res = await provider.complete({ model: "m", messages: [{ role: "user", content: "hi" }], maxTokens: 5 });
        expect(res.text).toBe(`hello from ${spec.name}`);
        expect(provider.name).toBe(spec.name);
      } finally {
        await srv.close();
      }
    }
  });

  it("each row's baseURL is the server its built provider calls: the base_url given, else the SDK's variable, else its API", () => {
    for (const spec of PROVIDERS as readonly ProviderSpec[]) {
      if (spec.keyEnv) vi.stubEnv(spec.keyEnv, KEY);
      const given = createProvider({ provider: spec.name as never, base_url: "http://127.0.0.1:9/v1" });
      expect(spec.baseURL("http://127.0.0.1:9/v1"), spec.name).toBe(given.baseURL);
      if (spec.needsBaseUrl) continue;
      const variable = `${spec.name.toUpperCase()}_BASE_URL`;
      vi.stubEnv(variable, "http://127.0.0.1:8/elsewhere");
      expect(spec.baseURL(undefined), spec.name).toBe(createProvider({ provider: spec.name as never }).baseURL);
      expect(spec.baseURL(undefined)).toBe("http://127.0.0.1:8/elsewhere");
      vi.stubEnv(variable, "");
      expect(spec.baseURL(undefined), spec.name).toBe(createProvider({ provider: spec.name as never }).baseURL);
      expect(spec.baseURL(undefined)).toMatch(/^https:\/\/api\./);
    }
  });

  it("a provider added in the table alone reaches the enums, specs, factory, key guard and family warning", async () => {
    const fake: ProviderSpec = {
      name: "fakeai",
      create: () => ({ ...createScriptedProvider(() => "fake says yes"), name: "fakeai" }),
      keyEnv: "FAKEAI_API_KEY",
      hosts: ["api.fake.example"],
      family: "FakeFamily",
      wire: "openai",
      baseURL: (given) => given ?? "https://api.fake.example/v1",
    };
    vi.resetModules();
    vi.doMock("../../src/providers/registry.js", async (importOriginal) => {
      const real = await importOriginal<typeof import("../../src/providers/registry.js")>();
      const providers = [...real.PROVIDERS, fake];
      return {
        ...real,
        PROVIDERS: providers,
        PROVIDER_NAMES: providers.map((p) => p.name),
        providerSpec: (name: string) => providers.find((p) => p.name === name),
      };
    });
    const { JudgeConfigSchema } = await import("../../src/judge/config.js");
    const { PolicyConfigSchema } = await import("../../src/env/schema.js");
    const { parseModelSpec } = await import("../../src/env/policy.js");
    const { createProvider: create } = await import("../../src/providers/index.js");
    const { assertRubricJudgeKeyDestination } = await import("../../src/judge/load.js");
    const { modelFamily, sameFamilyWarning } = await import("../../src/judge/family.js");

    // The enums.
    expect(JudgeConfigSchema.parse({ provider: "fakeai", model: "opaque-1" }).provider).toBe("fakeai");
    expect(PolicyConfigSchema.parse({ provider: "fakeai", model: "opaque-1" }).provider).toBe("fakeai");
    expect(JudgeConfigSchema.safeParse({ provider: "nosuch", model: "m" }).success).toBe(false);
    // provider:model specs.
    expect(parseModelSpec("fakeai:opaque-1")).toMatchObject({ provider: "fakeai", model: "opaque-1", id: "fakeai:opaque-1" });
    expect(() => parseModelSpec("nosuch:m")).toThrow(/one of openai, anthropic, openai-compatible, fakeai/);
    // The factory.
    const provider = create({ provider: "fakeai" as never });
    expect(provider.name).toBe("fakeai");
    expect((await provider.complete({ model: "m", messages: [] })).text).toBe("fake says yes");
    // The key-destination guard: its own host passes, another host is refused naming its key variable.
    const dir = tempDir("rubricate-registry-");
    const config = JudgeConfigSchema.parse({ provider: "fakeai", model: "opaque-1", base_url: "https://api.fake.example/v1" });
    expect(() => assertRubricJudgeKeyDestination(config, "j.yaml", dir)).not.toThrow();
    const elsewhere = { ...config, base_url: "https://collector.example/v1" };
    expect(() => assertRubricJudgeKeyDestination(elsewhere, "j.yaml", dir)).toThrow(/\$FAKEAI_API_KEY to collector\.example/);
    // The family warning: an opaque model name takes its provider's family.
    expect(modelFamily("opaque-1", "fakeai")).toBe("FakeFamily");
    expect(sameFamilyWarning({ model: "opaque-1", provider: "fakeai" }, { model: "opaque-2", provider: "fakeai" }, "policy")).toMatch(/both FakeFamily models/);
  });
});
