import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import * as z from "zod";
import { jsonFileValue } from "../config/jsonl.js";
import { RubricateError } from "../errors.js";
import type { MergeState } from "./merge.js";
import type { SamplerState } from "./sampler.js";
import type { CandidateRecord, CurvePoint, FailedProposal } from "./types.js";

/** One cached evaluation of a candidate on an instance. */
export interface CacheEntry {
  score: number;
  feedback?: string;
  trace?: unknown;
  /** Whether the run captured traces (a traced request is served only by a traced entry). */
  traced: boolean;
}

/** Everything a run needs to continue exactly where it stopped; written after every iteration. */
export interface OptimizeState {
  version: 1;
  algorithm: "gepa" | "random";
  /** Hash of the seed, set sizes and options that change the run; a resume must match it. */
  fingerprint: string;
  /** Iterations completed. */
  iteration: number;
  candidates: CandidateRecord[];
  /** Per valset instance, the non-dominated best candidates (derived; saved for readers). */
  front: number[][];
  metricCalls: number;
  reflectionCalls: number;
  cacheHits: number;
  rng: number;
  sampler: SamplerState;
  merge: MergeState;
  /** Key: `candidateHash:set:index`. */
  cache: Record<string, CacheEntry>;
  curve: CurvePoint[];
  failedProposals: FailedProposal[];
  warnings: string[];
  /** Iteration at which the best mean last improved. */
  lastImprovement: number;
  /** Consecutive iterations that spent no metric calls. */
  idleIterations: number;
}

/** A stable hash of a candidate's components (key order does not matter). */
export function candidateHash(candidate: Record<string, string>): string {
  const entries = Object.entries(candidate).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash("sha256").update(JSON.stringify(entries)).digest("hex").slice(0, 32);
}

/** A hash of anything JSON-serialisable, for fingerprints. */
export function hashJson(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 32);
}

const stateSchema = z
  .object({
    version: z.literal(1),
    algorithm: z.enum(["gepa", "random"]),
    fingerprint: z.string(),
    iteration: z.number().int().nonnegative(),
    candidates: z.array(z.object({ index: z.number(), candidate: z.record(z.string(), z.string()), valScores: z.array(z.number()) }).loose()).min(1),
    metricCalls: z.number(),
    reflectionCalls: z.number(),
    rng: z.number(),
    sampler: z.object({ shuffled: z.array(z.number()), epoch: z.number(), freqs: z.array(z.number()) }),
    merge: z.object({ due: z.number(), tested: z.number(), lastIterFoundNew: z.boolean() }).loose(),
    cache: z.record(z.string(), z.object({ score: z.number(), traced: z.boolean() }).loose()),
  })
  .loose();

/** Writes the state as JSON atomically (a temporary file renamed over the target). */
export async function saveState(file: string, state: OptimizeState): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(state));
  await rename(tmp, file);
}

/** Reads a saved state, or undefined when the file does not exist. */
export async function loadState(file: string): Promise<OptimizeState | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new RubricateError("BAD_INPUT", `cannot read optimizer state ${file}: ${(e as Error).message}`, { cause: e });
  }
  const json = jsonFileValue(text, file, { hint: "an optimizer state: remove it to start over" });
  const parsed = stateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RubricateError("BAD_INPUT", `optimizer state ${file} is malformed at ${issue.path.join(".")}: ${issue.message}`);
  }
  return json as OptimizeState;
}
