/**
 * The streaming driver: reads rows (a file, a file joined to its `score` results, or any
 * iterable), scores the unscored ones as it goes, feeds the filter core, writes the export to
 * `<out>.partial` and renames it at the end. A checkpoint beside the output lets an interrupted
 * run resume: the input is replayed to rebuild the filters' state (scores come from the cache,
 * so no judge call is paid twice) and the units of groups already written are not written again.
 */
import type { CustomChecks } from "../checks/custom.js";
import { randomUUID } from "node:crypto";
import { existsSync, renameSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scoreSample } from "../score/score.js";
import { BadLines, badLineError, jsonlEntries } from "../config/jsonl.js";
import { RubricateError, toRubricateError } from "../errors.js";
import type { Judge } from "../judge/types.js";
import type { ErrorPolicy } from "../score/aggregate.js";
import type { Rubric } from "../rubric/schema.js";
import type { Sample } from "../types.js";
import { pairLine, sftLine } from "./formats.js";
import { hashHex } from "./hash.js";
import { ByteCountingWriter, readCheckpoint, removeFiles, writeCheckpoint, type Checkpoint } from "./output.js";
import { Distiller, isPair, topFractionCut, unitReward, type Unit } from "./pipeline.js";
import { buildReport, type DistillReport } from "./report.js";
import { isScored, normalizeRow, sampleForRubric } from "./rows.js";
import { sortByGroup, type SortOptions } from "./sort.js";
import type { ExportFormat, FilterOptions, RowOptions } from "./types.js";

type Raw = Record<string, unknown>;

/** What `runDistill` needs. */
export interface DistillRunOptions {
  /**
   * A JSONL file (samples, scored samples, rollouts), rows, or a function that produces the rows
   * afresh each time (e.g. `generateRollouts`). A file can be resumed; a function too when
   * `sourceId` names what it produces (a resumed run calls it again and replays what was written).
   */
  input: string | Iterable<Raw> | AsyncIterable<Raw> | (() => AsyncIterable<Raw>);
  /** Identifies the rows a function input produces (part of the resume fingerprint). */
  sourceId?: string;
  /** `rubricate score` results for the samples in `input`, joined by line position (see `joinResults`). */
  results?: string;
  /** The export file; omit to only compute the report. */
  output?: string;
  format?: ExportFormat;
  /** Adds each line's reward and verdicts under `metadata`. */
  withMetadata?: boolean;
  filters?: FilterOptions;
  rows?: RowOptions;
  /** Scores rows that carry no `reward` (and, with `rescore`, those that do). */
  rubric?: Rubric;
  /** Custom check functions by name for the rubric's `check: { custom: name }` (built-ins need not be passed). */
  checks?: CustomChecks;
  judge?: Judge;
  rescore?: boolean;
  /** Rows scored at once (default 64). */
  concurrency?: number;
  errors?: ErrorPolicy;
  signal?: AbortSignal;
  /** Groups open at once (default 64): how far rows of one group may interleave with others. */
  groupWindow?: number;
  /**
   * Sort the input by group key first (an external sort through temporary files), for inputs
   * whose groups are scattered; output then follows the group keys' order.
   */
  sort?: boolean | SortOptions;
  /** Resume from `<output>.checkpoint.json` when it matches (default true). */
  resume?: boolean;
  /** Milliseconds between checkpoints (default 2000). */
  checkpointMs?: number;
  /**
   * Called once, before anything is written, when `<output>.checkpoint.json` exists but another
   * input or other options wrote it: the run starts over, and the line says why.
   */
  onStartOver?: (line: string) => void;
  /** Called every 1000 input rows. */
  onProgress?: (p: { rows: number; kept: number; replaying: boolean }) => void;
}

/** What a run produced. */
export interface DistillRunResult {
  report: DistillReport;
  /** The finished export (absent when interrupted or without `output`). */
  output?: string;
  interrupted: boolean;
  /** Groups (rows, without grouping) whose units a checkpoint said were written already (0 on a fresh run). */
  resumedGroups: number;
}

/**
 * The reader of a JSONL file, one object a line. With `bad`, a line that is not a JSON object is
 * recorded there (file and line) and skipped, so one bad line in 200k does not stop a run;
 * without it (results and spill files, which must line up) a bad line is an error.
 */
async function* jsonl(path: string, bad?: BadLines): AsyncGenerator<Raw> {
  if (!existsSync(path)) throw new RubricateError("FILE_NOT_FOUND", `no such file: ${path}`);
  for await (const entry of jsonlEntries(path)) {
    if ("bad" in entry) {
      if (!bad) throw badLineError(entry.bad);
      bad.add(entry.bad);
      continue;
    }
    yield entry.value as Raw;
  }
}

/**
 * Joins samples to `rubricate score` results: the k-th result line belongs to the k-th sample
 * (its `index` says so; `score` writes input order by default). A result whose `index`, or `id`
 * when both carry one, disagrees is an error, never a silent mismatch. The sample's fields stay;
 * the result brings `reward`, `passed`, `verdicts` and `errors` (not its judge `usage`).
 */
export async function* joinResults(samples: AsyncIterable<Raw>, resultsPath: string): AsyncGenerator<Raw> {
  const results = jsonl(resultsPath)[Symbol.asyncIterator]();
  let k = 0;
  for await (const sample of samples) {
    const next = await results.next();
    if (next.done) throw new RubricateError("BAD_INPUT", `${resultsPath} has ${k} results but the samples go on (sample ${k + 1})`);
    const r = next.value;
    if (typeof r.index === "number" && r.index !== k) throw new RubricateError("BAD_INPUT", `${resultsPath}: result ${k + 1} is for sample index ${r.index}, not ${k}; results must be in input order (rerun score without --order completed)`);
    if (r.id !== undefined && sample.id !== undefined && r.id !== sample.id) throw new RubricateError("BAD_INPUT", `${resultsPath}: result ${k + 1} has id ${JSON.stringify(r.id)} but sample ${k + 1} has id ${JSON.stringify(sample.id)}`);
    yield { ...sample, reward: r.reward ?? null, passed: r.passed, verdicts: r.verdicts, errors: r.errors };
    k++;
  }
  if (!(await results.next()).done) throw new RubricateError("BAD_INPUT", `${resultsPath} has more results than there are samples (${k})`);
}

async function* fromIterable(rows: Iterable<Raw> | AsyncIterable<Raw>): AsyncGenerator<Raw> {
  yield* rows;
}

/** Scores the rows that need it, `width` at a time, yielding in input order. */
async function* scoreRows(rows: AsyncIterable<Raw>, o: DistillRunOptions): AsyncGenerator<Raw> {
  const width = Math.max(1, o.concurrency ?? 64);
  const queue: (Raw | Promise<Raw>)[] = [];
  const responseField = o.rows?.responseField ?? o.rubric?.response_field ?? "response";
  let index = 0;
  for await (const raw of rows) {
    index++;
    if (isScored(raw) && !o.rescore) queue.push(raw);
    else if (!o.rubric) throw new RubricateError("BAD_INPUT", `input row ${index} carries no reward; pass a rubric (--rubric) to score it, or score results (--results)`);
    else {
      const rubric = o.rubric;
      const task = scoreSample(rubric, sampleForRubric(raw, rubric.inputs, responseField) as Sample, { judge: o.judge, errors: o.errors, signal: o.signal, checks: o.checks }).then((r) => ({
        ...raw,
        reward: r.reward,
        passed: r.passed,
        verdicts: r.verdicts,
        errors: r.errors,
      }));
      task.catch(() => undefined);
      queue.push(task);
    }
    while (queue.length >= width) yield await queue.shift()!;
  }
  while (queue.length > 0) yield await queue.shift()!;
}

/** What identifies a run for resuming, part by part: input file (path, size, mtime), results, rubric, every option. */
function fingerprintParts(o: DistillRunOptions): Record<string, unknown> {
  const stat = (p?: string) => (p && existsSync(p) ? { p, size: statSync(p).size, mtime: statSync(p).mtimeMs } : p);
  return {
    v: 1,
    input: typeof o.input === "string" ? stat(o.input) : null,
    source: o.sourceId ?? null,
    results: stat(o.results),
    format: o.format ?? "openai",
    meta: o.withMetadata ?? false,
    filters: o.filters ?? {},
    rows: o.rows ?? {},
    rubric: o.rubric ? { id: o.rubric.id, version: o.rubric.version, criteria: o.rubric.criteria } : null,
    rescore: o.rescore ?? false,
    errors: o.errors ?? "null",
    window: o.groupWindow ?? 64,
    sort: o.sort ?? false,
  };
}

/** How a start-over names a fingerprint part that changed. */
const PART_NAMES: Record<string, string> = {
  input: "the input file (its path, size or modification time)",
  source: "the rollouts' source (the environment, --model, --tasks or --rollouts)",
  results: "the --results file",
  format: "--format",
  meta: "--with-metadata",
  filters: "the filters",
  rows: "--group-by, --tag-field, --prompt-template or --response-field",
  rubric: "the rubric",
  rescore: "--rescore",
  errors: "--errors",
  window: "--group-window",
  sort: "--sort",
};

/** Each part's hash, kept in the checkpoint so that a start-over can say what changed. */
const partHashes = (parts: Record<string, unknown>) => Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, hashHex(JSON.stringify(v ?? null)).slice(0, 16)]));

/** Why a checkpoint does not fit this run, naming the parts that changed when the checkpoint kept them. */
function startOverReason(ck: Checkpoint, parts: Record<string, string>): string {
  // A part the checkpoint does not have (kept by another release) is not named: it is not known to have changed.
  const kept = ck.parts ?? {};
  const changed = Object.keys(parts).filter((k) => k !== "v" && k in kept && kept[k] !== parts[k]);
  return changed.length > 0 ? `changed since it was written: ${changed.map((k) => PART_NAMES[k] ?? k).join(", ")}` : "it was written by a run with another input or options";
}

/**
 * Filters and exports a stream of rows; memory is bounded by the open group, not the file.
 * @example const { report } = await runDistill({ input: "rollouts.jsonl", output: "sft.jsonl", filters: { bestOf: 1, minReward: 0.8 } })
 */
export async function runDistill(o: DistillRunOptions): Promise<DistillRunResult> {
  const format = o.format ?? "openai";
  const filters = o.filters ?? {};
  const rowOptions: RowOptions = { inputs: o.rubric?.inputs, responseField: o.rubric?.response_field, ...o.rows };
  const toStdout = o.output === "-";
  const toFile = o.output !== undefined && !toStdout;
  const resumable = ((typeof o.input === "string" && o.input !== "-") || (typeof o.input === "function" && o.sourceId !== undefined)) && toFile;
  const ckPath = `${o.output}.checkpoint.json`;
  const partialPath = `${o.output}.partial`;
  const spilling = filters.topFraction !== undefined;
  const spillPath = toFile ? `${o.output}.spill.jsonl` : join(tmpdir(), `rubricate-distill-${process.pid}-${randomUUID()}.jsonl`);
  const fpParts = resumable ? fingerprintParts(o) : {};
  // The hash of the whole, as before parts were kept: a checkpoint of an earlier release still resumes.
  const fp = resumable ? hashHex(JSON.stringify(fpParts)) : "";
  const parts = partHashes(fpParts);
  let ck = resumable && o.resume !== false ? readCheckpoint(ckPath) : undefined;
  if (ck && ck.fingerprint !== fp) {
    // What the interrupted run wrote is thrown away (its judge answers stay in the cache): said, not silent.
    o.onStartOver?.(`${ckPath}: ${startOverReason(ck, parts)}; starting over`);
    ck = undefined;
  }
  if (toFile && !ck) removeFiles(ckPath, spillPath);

  // Units of the first `skipGroups` groups to close were written before the interruption.
  const skipGroups = ck ? (ck.phase === 2 ? Infinity : ck.groupsDone) : 0;
  // Phase 1 writes the export, or (--top-fraction) a spill of every unit: the cut needs all rewards first.
  const phase1 = spilling ? new ByteCountingWriter(spillPath, ck ? ck.bytes : 0) : toFile ? new ByteCountingWriter(partialPath, ck ? ck.bytes : 0) : undefined;
  let sink: ByteCountingWriter | undefined = spilling ? undefined : phase1;
  const lineOf = (u: Unit) => `${JSON.stringify(isPair(u) ? pairLine(u, format, o.withMetadata ?? false) : sftLine(u, format, o.withMetadata ?? false))}\n`;
  let kept = 0;
  let rewards: Float64Array = new Float64Array(spilling ? 1024 : 0);
  let nRewards = 0;
  let suppressBefore = skipGroups;
  const distiller = new Distiller(
    { filters, format, groupWindow: o.groupWindow },
    (u) => {
      if (!spilling) return distiller.finalStage(u);
      if (nRewards === rewards.length) rewards = growTo(rewards, rewards.length * 2);
      rewards[nRewards++] = unitReward(u);
      if (distiller.ordinal >= skipGroups) phase1!.write(`${JSON.stringify(u)}\n`);
    },
    (u) => {
      kept++;
      if (distiller.ordinal < suppressBefore) return;
      if (toStdout) process.stdout.write(lineOf(u));
      else sink?.write(lineOf(u));
    },
  );

  const checkpoint = (phase: 1 | 2) => {
    // Never during a replay: the file holds more than the replay has re-emitted.
    if (!resumable || !phase1 || distiller.closedCount < skipGroups) return;
    phase1.sync();
    writeCheckpoint(ckPath, { version: 1, fingerprint: fp, parts, phase, groupsDone: distiller.closedCount, bytes: phase1.bytes } satisfies Checkpoint);
  };
  const badLines = new BadLines(5);
  const source = typeof o.input === "string" ? jsonl(o.input, badLines) : typeof o.input === "function" ? fromIterable(o.input()) : fromIterable(o.input);
  const joined = o.results ? joinResults(source, o.results) : source;
  const sorted = o.sort ? sortByGroup(joined, (raw, i) => normalizeRow(raw, i, rowOptions)?.group ?? "", o.sort === true ? {} : o.sort) : joined;
  const rows = scoreRows(sorted, o);
  let index = 0;
  let lastCheckpoint = Date.now();
  const every = o.checkpointMs ?? 2000;
  const resumedGroups = ck?.groupsDone ?? 0;
  const report = (interrupted: boolean) => buildReport(distiller, { format, filters, kept, rows: index, resumedGroups, interrupted, badLines });
  try {
    for await (const raw of rows) {
      distiller.push(normalizeRow(raw, index, rowOptions), index);
      index++;
      if (index % 1000 === 0) o.onProgress?.({ rows: index, kept, replaying: distiller.closedCount < skipGroups });
      // Checked on every row: with a judge, a thousand rows can take minutes.
      if (resumable && Date.now() - lastCheckpoint >= every) {
        checkpoint(1);
        lastCheckpoint = Date.now();
      }
      if (o.signal?.aborted) throw new RubricateError("ABORTED", "interrupted");
    }
    distiller.end();
  } catch (e) {
    const err = toRubricateError(e);
    // Closed groups are on record; open ones are redone on resume.
    if (err.code === "ABORTED") checkpoint(1);
    phase1?.close();
    if (err.code !== "ABORTED") throw err;
    return { report: report(true), interrupted: true, resumedGroups };
  }

  if (spilling) {
    checkpoint(2);
    phase1!.close();
    // Phase 2 is cheap (no scoring): it always starts over from the complete spill.
    suppressBefore = -Infinity;
    sink = toFile ? new ByteCountingWriter(partialPath) : undefined;
    const keep = topFractionCut(rewards.subarray(0, nRewards), filters.topFraction!);
    for await (const u of jsonl(spillPath)) {
      const unit = u as unknown as Unit;
      distiller.finalStage(unit, !keep(unitReward(unit)));
    }
    if (!toFile) removeFiles(spillPath);
  }
  sink?.close();
  if (!spilling) phase1?.close();
  if (toFile) {
    renameSync(partialPath, o.output!);
    removeFiles(ckPath, spillPath);
  }
  return { report: report(false), output: toFile ? o.output : undefined, interrupted: false, resumedGroups };
}

function growTo(a: Float64Array, n: number): Float64Array {
  const b = new Float64Array(n);
  b.set(a);
  return b;
}
