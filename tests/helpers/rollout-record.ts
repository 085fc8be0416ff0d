/** A rollout record as `rubricate eval` writes it, for tests that read, push or store results. */
import type { RolloutRecord } from "../../src/env/types.js";

/**
 * One rollout of the `@acme/times-env` environment (0.1.0): one check criterion, met when the
 * reward is 1, a small policy and judge cost. `fields` replace any of it.
 * @example rolloutRecord({ model: "a", task: "1", reward: 0 })
 */
export function rolloutRecord(fields: Partial<RolloutRecord> & Pick<RolloutRecord, "model" | "task">): RolloutRecord {
  const reward = fields.reward === undefined ? 1 : fields.reward;
  return {
    env: "times",
    envVersion: "0.1.0",
    envPackage: { name: "@acme/times-env", version: "0.1.0", integrity: "sha512-abc" },
    rollout: 0,
    messages: [],
    toolCalls: [],
    response: "",
    turns: 1,
    stopReason: "final_answer",
    reward,
    passed: reward === null ? null : reward >= 1,
    verdicts: [{ id: "correct", status: reward === 1 ? "met" : "unmet", points: 1, earned: reward === 1 ? 1 : 0, required: false, source: "check" }],
    errors: [],
    feedback: "",
    usage: { policy: { calls: 1, cacheHits: 0, inputTokens: 10, outputTokens: 5, costUsd: 0.002 }, judge: { calls: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0.001 } },
    ms: 1,
    ...fields,
  } as RolloutRecord;
}
