import { afterEach, describe, expect, it } from "vitest";
import { createJudge } from "../../src/judge/create.js";
import { createFleetProvider } from "../../src/providers/fleet.js";
import { createOpenAIProvider } from "../../src/providers/openai.js";
import { score } from "../../src/score/score.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import type { TestServer } from "../../src/testing/servers/common.js";

const servers: TestServer<unknown>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function fleetOf(n: number, latencyMs: number) {
  const started = await Promise.all(Array.from({ length: n }, () => startOpenAIServer({ respond: judgeResponder((q) => q.id === "q1"), latencyMs })));
  servers.push(...(started as TestServer<unknown>[]));
  return started;
}

const rubric = loadRubricSync("tests/fixtures/rubrics/ten-questions.yaml");
const samples = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, question: "q?", response: `answer ${i}` }));

describe("fleet of OpenAI-compatible servers", () => {
  it("spreads load by least outstanding requests", async () => {
    const [a, b, c] = await fleetOf(3, 15);
    const judge = createJudge({ provider: "openai-compatible", model: "m", base_url: [a.url, b.url, c.url], max_concurrency: 12, server_max_concurrency: 4 }, { cache: false });
    const results = await score(rubric, samples(90), { judge });
    expect(results.every((r) => r.errors.length === 0 && r.reward === 1 / 9)).toBe(true);
    const counts = [a, b, c].map((s) => s.stats.requests);
    expect(counts.reduce((x, y) => x + y)).toBe(90);
    // Equal servers get near-equal shares.
    for (const n of counts) expect(n).toBeGreaterThan(20);
  });

  it("completes when one server dies mid-run, paying each sample once, and probes it back", async () => {
    const [a, b, c] = await fleetOf(3, 20);
    const judge = createJudge({ provider: "openai-compatible", model: "m", base_url: [a.url, b.url, c.url], max_concurrency: 9, server_max_concurrency: 3, max_retries: 4 }, { cache: false });
    const run = score(rubric, samples(120), { judge });
    while (b.stats.requests < 8) await new Promise((r) => setTimeout(r, 5));
    await b.close();
    const results = await run;
    expect(results.every((r) => r.errors.length === 0 && r.reward === 1 / 9)).toBe(true);
    const stats = (judge.provider as ReturnType<typeof createFleetProvider>).stats();
    // Every sample was answered by exactly one successful call somewhere.
    expect(stats.reduce((n, m) => n + m.succeeded, 0)).toBe(120);
    const dead = stats.find((m) => m.baseURL.startsWith(b.url.replace(/\/v1$/, "")))!;
    expect(dead.healthy).toBe(false);
    expect(dead.ejections).toBeGreaterThanOrEqual(1);
    expect(stats.filter((m) => m !== dead).every((m) => m.healthy && m.succeeded > 0)).toBe(true);
  });

  it("takes a failed server back in after a successful probe", async () => {
    const [a, b] = await fleetOf(2, 1);
    b.setBehavior({ sequence: ["drop"] });
    const fleet = createFleetProvider([createOpenAIProvider({ name: "openai-compatible", baseURL: a.url }), createOpenAIProvider({ name: "openai-compatible", baseURL: b.url })], { probeAfterMs: 30 });
    const ask = () => fleet.complete({ model: "m", messages: [{ role: "user", content: "hi" }] });
    // First calls go one to each server; b drops its connection, fails over to a.
    await Promise.all([ask(), ask()]);
    expect(fleet.stats()[1].healthy).toBe(false);
    await new Promise((r) => setTimeout(r, 40));
    await ask();
    await ask();
    expect(fleet.stats()[1].healthy).toBe(true);
    expect(fleet.stats()[1].succeeded).toBeGreaterThanOrEqual(1);
  });

  it("takes out a server that refuses its key (401) and lets the others answer", async () => {
    const [a, b] = await fleetOf(2, 1);
    b.setBehavior({ expectedApiKey: "b-key" });
    const fleet = createFleetProvider([createOpenAIProvider({ name: "openai-compatible", baseURL: a.url }), createOpenAIProvider({ name: "openai-compatible", baseURL: b.url, apiKey: "wrong-key" })], { probeAfterMs: 60_000 });
    const ask = () => fleet.complete({ model: "m", messages: [{ role: "user", content: "hi" }] });
    await Promise.all(Array.from({ length: 6 }, ask));
    const [sa, sb] = fleet.stats();
    expect(sb).toMatchObject({ healthy: false, succeeded: 0 });
    expect(sb.failed).toBeGreaterThanOrEqual(1);
    expect(sa.succeeded).toBe(6);
  });
});
