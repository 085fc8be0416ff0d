import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEval, readRollouts } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import type { Environment, RolloutRecord } from "../../src/env/types.js";
import { runCli, tempDir } from "../helpers/cli.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { log } from "./fixtures/hook-faults/hooks.js";
import { connect, startWorld, type WireMessage } from "./world.js";

const turnOf = (m: WireMessage[]) => m.filter((x) => x.role === "assistant").length;
/** Pokes once, then answers. */
const poker = (m: WireMessage[]) => (turnOf(m) === 0 ? { toolCalls: [{ id: "p0", name: "poke", arguments: "{}" }] } : "done poking");

const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

let server: TestServer<unknown>;
let env: Environment;
beforeAll(async () => {
  env = await loadEnvironment("tests/env/fixtures/hook-faults/env.yaml");
  server = await startWorld({ poker }, () => true);
});
afterAll(() => server.close());

describe("hook isolation", () => {
  it("a hook that throws, exits, never settles or throws from a timer fails only its rollout, naming the task; teardown always runs", async () => {
    const { engine, judge, policies } = connect(server.url, ["poker"]);
    const timersBefore = timeouts();
    const listenersBefore = process.listenerCount("uncaughtException");
    const exitBefore = process.exit;
    const teardownsBefore = log.teardowns;
    const { records } = await runEval(env, { policies, engine, judge, concurrency: 3 });
    expect(records).toHaveLength(env.tasks.length);
    const byTask = Object.fromEntries(records.map((r) => [r.task, r])) as Record<string, RolloutRecord>;
    expect(byTask.ok.error).toBeUndefined();
    expect(byTask.ok.reward).toBe(1);
    const failed: [string, RegExp][] = [
      ["throw-setup", /setup hook of task "throw-setup" failed: setup exploded/],
      ["never-setup", /setup hook of task "never-setup" did not finish within 300 ms/],
      ["exit-tool", /task "exit-tool" called process\.exit\(2\)/],
      ["exit-timer", /task "exit-timer" called process\.exit\(3\)/],
      ["throw-timer", /task "throw-timer" threw outside its call: a late throw from a timer/],
      ["reject-later", /task "reject-later" threw outside its call: an unhandled rejection/],
      ["never-respond", /envResponse hook of task "never-respond" did not finish within 300 ms/],
      ["throw-finalize", /finalize hook of task "throw-finalize" failed: finalize exploded/],
    ];
    for (const [task, message] of failed) {
      expect(byTask[task].error?.code, task).toBe("HOOK_FAILED");
      expect(byTask[task].error?.message).toMatch(message);
      expect(byTask[task].reward).toBeNull();
      expect(byTask[task].stopReason).toBe("error");
    }
    // A timer left pending by a hook is unref'd when its rollout ends: nothing keeps the process alive.
    expect(byTask["pending-timer"].error).toBeUndefined();
    expect(timeouts()).toBeLessThanOrEqual(timersBefore);
    // teardown ran once per rollout, including after failures; its own failure is recorded, the result stands.
    expect(log.teardowns - teardownsBefore).toBe(env.tasks.length);
    expect(byTask["teardown-throws"].reward).toBe(1);
    expect(byTask["teardown-throws"].teardownError?.message).toMatch(/teardown hook of task "teardown-throws" failed: teardown exploded/);
    // The guard is gone: process.exit is Node's own again.
    expect(process.listenerCount("uncaughtException")).toBe(listenersBefore);
    expect(process.exit).toBe(exitBefore);
  });

  it("Ctrl-C (abort) mid-rollout still runs teardown", async () => {
    const { engine, judge, policies } = connect(server.url, ["poker"]);
    const controller = new AbortController();
    const before = log.teardowns;
    server.setBehavior({ latencyMs: 200 });
    setTimeout(() => controller.abort(), 50);
    try {
      const { interrupted } = await runEval({ ...env, tasks: env.tasks.slice(0, 1) }, { policies, engine, judge, signal: controller.signal });
      expect(interrupted).toBe(true);
    } finally {
      server.setBehavior({ latencyMs: 0 });
    }
    expect(log.teardowns - before).toBe(1);
  });

  it("the CLI writes the summary and the report after failing hooks, and exits with the partial code", async () => {
    const dir = tempDir("rubricate-hooks-");
    const out = join(dir, "rollouts.jsonl");
    const report = join(dir, "report.html");
    const summary = join(dir, "summary.md");
    const r = await runCli(["eval", "tests/env/fixtures/hook-faults/env.yaml", "--model", `openai-compatible:poker@${server.url}`, "--out", out, "--report", report, "--summary-md", summary, "--no-cache", "-q"]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(3); // EXIT.partial: some rollouts have no reward
    expect(existsSync(report)).toBe(true);
    expect(readFileSync(summary, "utf8")).toContain("hook-faults");
    const recs = readRollouts(out);
    expect(recs).toHaveLength(env.tasks.length);
    expect(recs.filter((x) => x.error?.code === "HOOK_FAILED").map((x) => x.task).sort()).toEqual(["exit-timer", "exit-tool", "never-respond", "never-setup", "reject-later", "throw-finalize", "throw-setup", "throw-timer"]);
  });
});

describe("a model inside hooks", () => {
  it("ctx.llm and ctx.judge run through the engine and the judge; their usage counts to the rollout", async () => {
    const world = await startWorld({ writer: (m) => `A sentence about ${/about (\w+)/.exec(m[0].content ?? "")?.[1]}.`, critic: () => "OK, fine." }, (q, view) => q.question.includes("tea") === view.sample.includes("tea"));
    try {
      const env = await loadEnvironment("tests/env/fixtures/hook-models/env.yaml");
      const { engine, judge, policies } = connect(world.url, ["writer"]);
      const critic = connect(world.url, ["critic"]).policies[0];
      const { records } = await runEval(env, { policies, engine, judge, models: { critic } });
      for (const r of records) {
        expect(r.error).toBeUndefined();
        expect(r.sample).toMatchObject({ critique: "OK, fine.", on_topic: true });
        expect(r.reward).toBe(1);
        expect(r.usage.hooks?.calls).toBe(2);
        expect(r.usage.hooks?.inputTokens).toBeGreaterThan(0);
      }
      const asked = world.requests.map((q) => (q.body as { model: string }).model);
      expect(asked.filter((m) => m === "critic")).toHaveLength(2);
      expect(asked.filter((m) => m === "judge-model")).toHaveLength(2);
    } finally {
      await world.close();
    }
  });

  it("a sandboxed environment without bubblewrap is refused with a clear error naming --unsafe-no-sandbox", async () => {
    const r = await runCli(["eval", "examples/ctf/env.yaml", "--model", `openai-compatible:poker@${server.url}`, "--out", join(tempDir("rubricate-nobwrap-"), "r.jsonl"), "--no-cache", "-q"], { env: { RUBRICATE_BWRAP: "/nonexistent/bwrap" } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/bubblewrap sandbox, which is not usable here: bubblewrap \(bwrap\) is not installed.*--unsafe-no-sandbox/s);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
