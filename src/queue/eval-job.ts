/**
 * What an `eval` chunk carries through the queue: the environment and models as the coordinator
 * was given them (paths relative to its folder, or package specs), and the cells to play. A
 * worker loads the environment itself (installing a package from its registry) and checks the
 * fingerprint, so every rollout of the output comes from the same environment version.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { canonicalJson } from "../text/canonical-json.js";
import type { Environment } from "../env/types.js";
import type { EvalCell } from "../env/eval.js";
import type { RolloutRecord } from "../env/types.js";
import type { ErrorPolicy } from "../types.js";
import type { JudgeOrigin } from "../judge/load.js";
import * as z from "zod";
import { chunkSpecFields, portablePath } from "./score-job.js";
import { judgeEndpoints, modelEndpoints } from "./endpoints.js";
import { envModelSpecs } from "../env/models.js";
import { chooseJudge } from "../judge/create.js";
import { judgeSource } from "../judge/load.js";

/** The run-wide part of every eval chunk. */
export interface EvalSpec {
  /** The environment: a path relative to the working folder, or a package spec (`@acme/env@1.2.0`). */
  env: string;
  /** `--model` values (provider:model, or a policy file relative to the working folder). */
  models: string[];
  /** `--env-model name=spec` overrides. */
  envModels: string[];
  judge?: string;
  origin: JudgeOrigin;
  cache: string | null;
  errors: ErrorPolicy;
  /** Rollouts of one chunk played at once on a worker. */
  concurrency?: number;
  /** sha256 of the environment (id, version, package integrity, rubric, tasks), the judge file, and the servers its judges and models call. */
  fingerprint: string;
  /** The coordinator's rubricate version (see `ScoreSpec.version`). */
  version?: string;
}

/** An eval chunk: the cells to play. */
export interface EvalChunk {
  spec: EvalSpec;
  rows: EvalCell[];
}

/** The shape a worker checks before it takes an `eval` chunk (see `ScoreChunkSchema`). */
export const EvalChunkSchema = z.object({
  spec: z.object({ env: z.string(), models: z.array(z.string()), envModels: z.array(z.string()), judge: z.string().optional(), ...chunkSpecFields }),
  rows: z.array(z.object({ task: z.string(), model: z.string(), rollout: z.number().int().nonnegative() })),
});

/** An eval chunk's answer: one record per cell. */
export interface EvalChunkResult {
  results: RolloutRecord[];
}

/**
 * The fingerprint of an environment as loaded, with the judge file it is scored by (`--judge`,
 * else the one its rubric names) and the models that play it (`models`: `--model` values;
 * `envModels`: `--env-model` overrides of its `models:`), each with the servers this process's
 * environment gives their providers (see endpoints.ts).
 */
export function envFingerprint(env: Environment, judgeFile: string | undefined, calls: { models: string[]; envModels: string[] }): string {
  const { source: _where, ...rubric } = env.rubric;
  const hash = createHash("sha256").update(canonicalJson({ id: env.id, version: env.version, integrity: env.package?.integrity ?? null, rubric, tasks: env.tasks }));
  hash.update("\0");
  if (judgeFile) hash.update(readFileSync(judgeFile));
  hash.update("\0");
  const models = Object.entries(envModelSpecs(env.models ?? {}, calls.envModels)).map(([name, spec]) => [name, modelEndpoints([spec])[0]]);
  hash.update(canonicalJson({ judge: judgeEndpoints(judgeFile ?? rubricJudgeFile(env)), policies: modelEndpoints(calls.models), models }));
  return hash.digest("hex");
}

/** The judge file the environment's rubric names, when it resolves (a run without one has no judge to fingerprint). */
function rubricJudgeFile(env: Environment): string | undefined {
  const choice = chooseJudge(undefined, env.rubric);
  return choice ? judgeSource(choice.ref, choice.baseDir).path : undefined;
}

/** A spec argument as chunks carry it: a local file or folder relative to the working folder; anything else (a package spec, provider:model) as given. */
export function portableSpec(spec: string): string {
  return existsSync(spec) ? portablePath(spec) : spec;
}
