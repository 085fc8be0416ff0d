/**
 * What a `score` chunk carries through the queue, and how a worker and a coordinator agree that
 * they mean the same rubric, judge and checks.
 *
 * A chunk carries its rows (no shared input file is needed) and *references* to the rubric, the
 * judge and the checks module as paths relative to the coordinator's working folder, the way
 * `--shard` needs the same files on every machine. The worker loads them from its own folder and
 * refuses a chunk whose fingerprint differs: a worker whose rubric was edited, or that runs in
 * another folder, fails loudly instead of writing rewards of another rubric into the output.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import * as z from "zod";
import { RubricateError } from "../errors.js";
import { ERROR_POLICIES, type ErrorPolicy, type Sample, type ScoreResult } from "../types.js";
import { canonicalJson } from "../text/canonical-json.js";
import type { Rubric } from "../rubric/schema.js";
import type { JudgeOrigin } from "../judge/load.js";
import { packageVersion } from "../config/load.js";
import { judgeEndpoints } from "./endpoints.js";

/** The run-wide part of every chunk: what to score with. */
export interface ScoreSpec {
  /** Rubric file, relative to the working folder. */
  rubric: string;
  /** Judge file or packaged judge id (as the coordinator was given it), when the rubric needs one. */
  judge?: string;
  /** Whether the judge came from `--judge` ("user") or the rubric's `judge:` field ("rubric": key-destination checked). */
  origin: JudgeOrigin;
  /** `--checks` module or environment file, relative to the working folder. */
  checks?: string;
  /** The answer cache the workers share: a `redis://` URL (default: the queue's own database), or null for none. */
  cache: string | null;
  errors: ErrorPolicy;
  /** Samples of one chunk scored at once on a worker. */
  concurrency?: number;
  /** sha256 of the resolved rubric, the judge file and the checks file, as the coordinator read them, and the servers its judges call. */
  fingerprint: string;
  /** The coordinator's rubricate version: a worker of another one refuses the chunk (absent from older coordinators). */
  version?: string;
}

/** One chunk: rows of the input, each with its 0-based line position. */
export interface ScoreChunk {
  spec: ScoreSpec;
  rows: { key: number; sample: Sample }[];
}

/** What the parts of a spec common to every chunk kind must be (see `ScoreChunkSchema`). */
export const chunkSpecFields = {
  origin: z.enum(["user", "rubric"]),
  cache: z.string().nullable(),
  errors: z.enum(ERROR_POLICIES),
  concurrency: z.number().int().positive().optional(),
  fingerprint: z.string(),
  version: z.string().optional(),
};

/**
 * The shape a worker checks before it takes a `score` chunk: a job pushed by hand, or by a
 * coordinator that wrote another shape, fails with what is wrong instead of a TypeError deep in
 * the scoring. Keys it does not know are let through (the version check speaks for those).
 */
export const ScoreChunkSchema = z.object({
  spec: z.object({ rubric: z.string(), judge: z.string().optional(), checks: z.string().optional(), ...chunkSpecFields }),
  rows: z.array(z.object({ key: z.number().int().nonnegative(), sample: z.record(z.string(), z.unknown()) })),
});

/** A chunk's answer: one result per row, by the row's key. */
export interface ScoreChunkResult {
  results: { key: number; result: ScoreResult }[];
}

/**
 * The fingerprint of what a run scores with. Loading the rubric resolves `extends`, so an edited
 * parent rubric changes it too; the judge's servers are those this process's environment gives
 * its providers (`judgeEndpoints`), so another OPENAI_BASE_URL is another run.
 */
export function fingerprintOf(rubric: Rubric, judgeFile: string | undefined, checksFile: string | undefined): string {
  const hash = createHash("sha256");
  // Where the file was read from is not what it says: a worker reads it by another path.
  const { source: _where, ...content } = rubric;
  hash.update(canonicalJson(content));
  hash.update("\0");
  if (judgeFile) hash.update(readFileSync(judgeFile));
  hash.update("\0");
  if (checksFile) hash.update(readFileSync(checksFile));
  hash.update("\0");
  hash.update(canonicalJson(judgeEndpoints(judgeFile)));
  return hash.digest("hex");
}

/**
 * A path a chunk may name: relative and inside `root`. Anyone who can write to the queue's Redis
 * database writes chunks; confining them to the worker's folder keeps such a writer from having a
 * worker load files from elsewhere on its disk.
 */
export function pathInside(root: string, path: string, what: string): string {
  const absolute = resolve(root, path);
  const rel = relative(root, absolute);
  if (isAbsolute(path) || rel.startsWith("..") || isAbsolute(rel)) {
    throw new RubricateError("BAD_INPUT", `a queued chunk names the ${what} "${path}", outside the worker's folder ${root}: workers load only files inside the folder they run in`);
  }
  return absolute;
}

/** A path as chunks carry it: relative to the coordinator's working folder (workers run in the same layout). */
export function portablePath(path: string, root = process.cwd()): string {
  const rel = relative(root, resolve(root, path));
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw new RubricateError("BAD_INPUT", `--queue: ${path} is outside the working folder ${root}; workers find files by paths relative to the folder they run in, so run the coordinator from a folder that holds the rubric, judge and checks`);
  }
  return rel;
}

/** The id of chunk `n` of a run: stable across coordinator restarts, so a re-add finds the chunk already queued. */
export function chunkId(kind: string, fingerprint: string, runKey: string, n: number): string {
  // BullMQ ids may not contain ":".
  return `${kind}-${fingerprint.slice(0, 16)}-${runKey}-${n}`;
}

/** A run's key: the spec plus what decides the chunks (the input and the chunk size). */
export function runKeyOf(spec: unknown, input: string, chunkSize: number): string {
  return createHash("sha256").update(canonicalJson({ spec, input, chunkSize })).digest("hex").slice(0, 16);
}

/** True when a judge reference names a file (a path, or a .yaml name) rather than a packaged judge id. */
export const isJudgeFileRef = (ref: string): boolean => /[\\/]|\.ya?ml$/i.test(ref);

/**
 * The shared cache as chunks carry it. Chunks are stored in Redis (and readable by whoever reads
 * the queue's database), so credentials that are the queue's own are left out, marked
 * `credentials=queue`: every worker has them in its own `--queue` URL and puts them back
 * (`workerCacheUrl`); the queue's own database is marked `database=queue`, and a worker uses its
 * own `--queue` URL for it (whatever name it gives the server). Another server's password stays,
 * as workers could not know it otherwise. A SQLite file goes by its path relative to the folder.
 * @example chunkCacheUrl("redis://:pw@10.0.0.5:6379/1", "redis://:pw@10.0.0.5:6379/0") // "redis://10.0.0.5:6379/1?credentials=queue"
 */
export function chunkCacheUrl(cache: string | null, queueUrl: string): string | null {
  // A SQLite file (each worker's own): by its path relative to the folder, as workers open it.
  if (cache !== null && !/^rediss?:\/\//i.test(cache)) return portablePath(cache);
  const target = redisUrl(cache);
  const queue = redisUrl(queueUrl);
  if (!target || !queue || !target.password || target.password !== queue.password || target.username !== queue.username) return cache;
  const own = cache === queueUrl;
  target.username = "";
  target.password = "";
  target.searchParams.set("credentials", "queue");
  if (own) target.searchParams.set("database", "queue");
  return target.href;
}

/**
 * A chunk's cache as a worker opens it: a Redis URL or none as given; a SQLite file only inside the
 * worker's folder (a chunk naming one elsewhere would have the worker create files anywhere it may write).
 */
export function workerCachePath(cache: string | null, root: string): string | null {
  return cache === null || /^rediss?:\/\//i.test(cache) ? cache : pathInside(root, cache, "cache file");
}

/** A chunk's cache URL as a worker opens it: the queue's own database or credentials (see `chunkCacheUrl`) from its own `--queue` URL. */
export function workerCacheUrl(cache: string | null, queueUrl: string): string | null {
  const target = redisUrl(cache);
  if (!target || target.searchParams.get("credentials") !== "queue") return cache;
  if (target.searchParams.get("database") === "queue") return queueUrl;
  const queue = redisUrl(queueUrl);
  target.searchParams.delete("credentials");
  target.username = queue?.username ?? "";
  target.password = queue?.password ?? "";
  return target.href;
}

const redisUrl = (value: string | null): URL | undefined => {
  if (value === null || !/^rediss?:\/\//i.test(value)) return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
};

/**
 * Refuses a chunk of a coordinator of another rubricate version: checks and scoring change between
 * versions (a fixed check scores differently), so a fleet half upgraded would otherwise mix two
 * versions' rewards in one output without a word.
 */
export function checkChunkVersion(spec: { version?: string }): void {
  const mine = packageVersion();
  if (spec.version !== undefined && spec.version !== mine) {
    throw new RubricateError("BAD_INPUT", `this chunk comes from a coordinator running rubricate ${spec.version}, and this worker runs ${mine}: run one version everywhere, so one run's rewards all come from the same scoring`);
  }
}
