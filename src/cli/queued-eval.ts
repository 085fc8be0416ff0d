/**
 * `eval --queue`: the command as a coordinator. Workers play the rollouts (src/queue/worker.ts);
 * here the grid is cut into chunks numbered by their place in the whole grid, so a coordinator
 * started again with `--resume` re-adds the same chunk ids and finds the chunks already queued.
 */
import { createHash } from "node:crypto";
import { RubricateError } from "../errors.js";
import { DEFAULT_CACHE_PATH } from "../engine/cache/sqlite.js";
import { cellKey, type EvalCell } from "../env/eval.js";
import type { Environment, RolloutRecord } from "../env/types.js";
import { judgePath } from "../judge/load.js";
import type { Provider } from "../providers/types.js";
import { chunksBy, runChunks } from "../queue/coordinator.js";
import { envFingerprint, portableSpec, type EvalSpec } from "../queue/eval-job.js";
import { chunkCacheUrl, runKeyOf } from "../queue/score-job.js";
import type { ErrorPolicy } from "../types.js";
import { packageVersion } from "../config/load.js";

/** Rollouts per chunk: a rollout is many calls, so chunks are small. */
export const DEFAULT_EVAL_CHUNK_SIZE = 4;

/**
 * The coordinator's stand-in for the policies' providers: it plays nothing itself (workers do,
 * with their own keys), so it needs no key, and a call reaching it is a bug.
 */
export const NO_CALLS: Provider = {
  name: "queued",
  complete: () => Promise.reject(new RubricateError("INTERNAL", "a queued eval's coordinator does not call models: its workers do")),
};

interface QueueEvalFlags {
  queue?: string;
  chunkSize?: number;
  model?: string[];
  envModel: string[];
  judge?: string;
  cache: string | boolean;
  errors: ErrorPolicy;
  concurrency?: number;
  unsafeNoSandbox?: boolean;
}

/** The spec every chunk of this eval carries. */
export function evalSpecOf(envArg: string, env: Environment, flags: QueueEvalFlags, cache: string | null | undefined): EvalSpec {
  if (flags.unsafeNoSandbox) throw new RubricateError("BAD_INPUT", "--unsafe-no-sandbox is a worker's choice: start `rubricate worker --unsafe-no-sandbox` instead");
  const url = flags.queue!;
  return {
    env: portableSpec(envArg),
    models: (flags.model ?? []).map(portableSpec),
    envModels: flags.envModel,
    ...(flags.judge ? { judge: portableSpec(flags.judge), origin: "user" as const } : { origin: "rubric" as const }),
    cache: chunkCacheUrl(cache === null ? null : cache === undefined || cache === DEFAULT_CACHE_PATH ? url : cache, url),
    errors: flags.errors,
    ...(flags.concurrency ? { concurrency: flags.concurrency } : {}),
    fingerprint: envFingerprint(env, flags.judge ? judgePath(flags.judge, process.cwd()) : undefined, { models: flags.model ?? [], envModels: flags.envModel }),
    version: packageVersion(),
  };
}

/**
 * Plays `cells` on the queue's workers; yields their records chunk by chunk. `grid` is the whole
 * grid in runEval's order: a cell's place in it decides its chunk.
 */
export function queuedEval(spec: EvalSpec, grid: EvalCell[], options: { url: string; chunkSize?: number; signal?: AbortSignal; log?: (line: string) => void }) {
  const size = options.chunkSize ?? DEFAULT_EVAL_CHUNK_SIZE;
  const place = new Map(grid.map((cell, i) => [cellKey(cell), i]));
  // The grid itself, not its size: -n 2 -k 1 and -n 1 -k 2 have as many cells, and chunks of one
  // must not be taken for the other's (a chunk left on the queue would fail the run for a week).
  const cells = createHash("sha256");
  for (const cell of grid) cells.update(`${cellKey(cell)}\n`);
  const runKey = runKeyOf(spec, cells.digest("hex"), size);
  return async function* play(cells: EvalCell[]): AsyncGenerator<RolloutRecord> {
    async function* rows() {
      yield* cells;
    }
    const chunks = chunksBy(rows(), (cell) => Math.floor(place.get(cellKey(cell))! / size));
    for await (const { chunk, results } of runChunks<EvalSpec, EvalCell, RolloutRecord>(chunks, { url: options.url, kind: "eval", spec, fingerprint: spec.fingerprint, runKey, signal: options.signal, log: options.log })) {
      const byCell = new Map(results.map((r) => [cellKey({ task: r.task, model: r.model, rollout: r.rollout }), r]));
      for (const cell of chunk.rows) {
        const rec = byCell.get(cellKey(cell));
        if (!rec) throw new RubricateError("QUEUE", `eval chunk ${chunk.n + 1} came back without the rollout ${cell.model} × ${cell.task} #${cell.rollout + 1}`);
        yield rec;
      }
    }
  };
}
