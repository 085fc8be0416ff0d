import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEngine } from "../../src/engine/engine.js";
import { openCache } from "../../src/engine/cache/index.js";
import { runEval } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import { createPolicy } from "../../src/env/policy.js";
import { FORMAT_SCHEMAS } from "../../src/distill/formats.js";
import { runDistill } from "../../src/distill/run.js";
import { createScriptedProvider } from "../../src/providers/index.js";
import { tempDir } from "../helpers/cli.js";
import { readLines } from "./helpers.js";

describe("rollouts written by rubricate eval", () => {
  it("are read as they are (no re-scoring), even interleaved by parallel rollouts", async () => {
    const env = await loadEnvironment("examples/distill/env.yaml");
    const capitals: Record<string, string> = { France: "Paris", Germany: "Berlin", Italy: "Rome", Spain: "Madrid", Japan: "Tokyo", "South Korea": "Seoul", Kenya: "Nairobi", Egypt: "Cairo" };
    let call = 0;
    // Every 4th call is slow: its rollout lands in the file after rollouts of later tasks.
    const provider = createScriptedProvider(async (req) => {
      const n = call++;
      if (n % 4 === 0) await new Promise((r) => setTimeout(r, 40));
      const country = /capital of (.+)\?/.exec(String(req.messages.at(-1)?.content))?.[1] ?? "?";
      return n % 2 === 0 ? `The capital of ${country} is ${capitals[country]}.` : `Maybe ${country} City?`;
    });
    const policy = createPolicy({ provider: "openai-compatible", model: "teacher", base_url: "http://127.0.0.1:9/v1" }, { provider });
    const engine = createEngine({ cache: openCache({ path: false }), limits: { maxConcurrency: 8, maxRetries: 0, timeoutMs: 10_000 } });
    const dir = tempDir();
    const out = join(dir, "rollouts.jsonl");
    await runEval(env, { policies: [policy], engine, rollouts: 4, concurrency: 8, out });
    engine.close();

    const tasks = readLines(out).map((r) => r.task as string);
    const contiguous = tasks.every((t, i) => i === 0 || t === tasks[i - 1] || !tasks.slice(0, i).includes(t));
    expect(contiguous).toBe(false); // the test is about interleaved input

    const sft = await runDistill({ input: out, output: join(dir, "sft.jsonl"), filters: { bestOf: 1, minReward: 0.8 }, withMetadata: true });
    const lines = readLines(join(dir, "sft.jsonl"));
    expect(lines).toHaveLength(8);
    expect(new Set(lines.map((l) => l.metadata.group))).toEqual(new Set(env.tasks.map((t) => `capitals/${t.id}`)));
    for (const l of lines) {
      expect(FORMAT_SCHEMAS.openai.safeParse(l).success).toBe(true);
      expect(l.metadata).toMatchObject({ env: "capitals", model: policy.id, reward: 1 });
      // Eval rollouts record the system prompt the teacher saw, so the SFT row is the conversation as played.
      expect(l.messages[0]).toEqual({ role: "system", content: env.harness.system });
      expect(l.messages[1].role).toBe("user");
    }
    expect(sft.report.before.rows).toBe(32);
    expect(sft.report.before.criteria["names-capital"]).toMatchObject({ met: 16, unmet: 16 });

    const pairs = await runDistill({ input: out, output: join(dir, "dpo.jsonl"), format: "dpo" });
    expect(pairs.report.kept).toBe(8);
    for (const l of readLines(join(dir, "dpo.jsonl"))) expect(l.rejected[0].content).toMatch(/^Maybe/);
    expect(readFileSync(out, "utf8")).not.toBe("");
  });
});
