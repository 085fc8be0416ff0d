import { describe, expect, it } from "vitest";
import { runEval } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import { connect, startWorld, type WireMessage } from "./world.js";

const writer = (m: WireMessage[]) => `A sentence about ${/about (\w+)/.exec(m[0].content ?? "")?.[1]}.`;

describe("the hooks' model calls", () => {
  it("a ctx.llm or ctx.judge call answered from the cache counts as a cache hit, never as a paid call", async () => {
    const world = await startWorld({ writer, critic: () => "OK, fine." }, (q, view) => q.question.includes("tea") === view.sample.includes("tea"));
    try {
      const env = await loadEnvironment("tests/env/fixtures/hook-models/env.yaml");
      const { engine, judge, policies } = connect(world.url, ["writer"]);
      const critic = connect(world.url, ["critic"]).policies[0];
      const first = await runEval(env, { policies, engine, judge, models: { critic } });
      for (const r of first.records) expect(r.usage.hooks).toMatchObject({ calls: 2, cacheHits: 0 });
      expect(first.records[0].usage.hooks!.costUsd).toBeGreaterThan(0);
      const asked = world.requests.length;

      // The same rollouts again on the same engine: every hook call is replayed from its cache.
      const again = await runEval(env, { policies, engine, judge, models: { critic } });
      expect(world.requests.length).toBe(asked);
      for (const r of again.records) expect(r.usage.hooks).toEqual({ calls: 0, cacheHits: 2, inputTokens: 0, outputTokens: 0, costUsd: 0 });
      engine.close();
    } finally {
      await world.close();
    }
  });
});
