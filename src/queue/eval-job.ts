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
import { portablePath } from "./score-job.js";

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
  /** sha256 of the environment (id, version, package integrity, rubric, tasks) and the judge file. */
  fingerprint: string;
  /** The coordinator's rubricate version (see `ScoreSpec.version`). */
  version?: string;
}

/** An eval chunk: the cells to play. */
export interface EvalChunk {
  spec: EvalSpec;
  rows: EvalCell[];
}

/** An eval chunk's answer: one record per cell. */
export interface EvalChunkResult {
  results: RolloutRecord[];
}

/** The fingerprint of an environment as loaded, with the judge file it is scored by. */
export function envFingerprint(env: Environment, judgeFile: string | undefined): string {
  const { source: _where, ...rubric } = env.rubric;
  const hash = createHash("sha256").update(canonicalJson({ id: env.id, version: env.version, integrity: env.package?.integrity ?? null, rubric, tasks: env.tasks }));
  hash.update("\0");
  if (judgeFile) hash.update(readFileSync(judgeFile));
  return hash.digest("hex");
}

/** A spec argument as chunks carry it: a local file or folder relative to the working folder; anything else (a package spec, provider:model) as given. */
export function portableSpec(spec: string): string {
  return existsSync(spec) ? portablePath(spec) : spec;
}
