import type { Sample } from "../types.js";
import { playedFields } from "./sample.js";
import type { RolloutRecord } from "./types.js";

/** True for a line of an eval's rollouts file (as opposed to a plain sample). */
export function isRolloutRecord(row: unknown): row is RolloutRecord {
  if (typeof row !== "object" || row === null) return false;
  const r = row as Record<string, unknown>;
  return typeof r.env === "string" && typeof r.task === "string" && typeof r.rollout === "number" && Array.isArray(r.messages) && Array.isArray(r.toolCalls);
}

/**
 * The sample the rubric saw for a rollout, rebuilt from its record: the stored fields (task
 * inputs, answer, finalize's fields, final-state checks, submitted answer) and those derived
 * from the conversation (response, transcript, turns, tool_calls, stop_reason). Records written
 * before `sample` was stored yield only the derived fields.
 * @example for (const rec of readRollouts("evals/ctf.jsonl")) await scoreSample(rubric, sampleOfRollout(rec))
 */
export function sampleOfRollout(rec: RolloutRecord): Sample {
  return {
    env: rec.env,
    model: rec.model,
    rollout: rec.rollout,
    ...(rec.sample ?? { id: rec.task }),
    ...playedFields(rec),
  };
}

/** Passes samples through and turns rollout records into their samples (for `score` on an eval's output). */
export async function* samplesOfRows(rows: AsyncIterable<Record<string, unknown>>): AsyncGenerator<Record<string, unknown>> {
  for await (const row of rows) yield isRolloutRecord(row) ? sampleOfRollout(row) : row;
}
