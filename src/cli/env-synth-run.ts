/**
 * What `rubricate env synth` runs (env-synth.ts registers its options): drafts checked tasks from
 * the documents and appends them to the environment's tasks file; rejections go to a JSONL report.
 * Imported when the command runs, so other commands do not load the engine, judge and policies.
 */
import { join, relative } from "node:path";
import { openCache } from "../engine/cache/index.js";
import { createEngine } from "../engine/engine.js";
import { createPolicy } from "../env/policy.js";
import { RubricateError } from "../errors.js";
import { chooseJudge, createJudge } from "../judge/create.js";
import { chunkDocuments } from "../corpus/chunk.js";
import { readDocuments } from "../corpus/read.js";
import { loadIndex } from "../corpus/search.js";
import type { Chunk } from "../corpus/types.js";
import { synthesizeTasks, type RejectReason, type SynthResult } from "../corpus/synth.js";
import { appendTasks, envTarget, type EnvTarget, readTaskLines, removedTasksFile, taskQuestion } from "../corpus/tasks-file.js";
import { existingFile, refuseUnwritableOutputs, textOut, writeJsonResult, writeOutputFile } from "./io.js";
import { cachePathOf, EXIT, interruptSignal, warnCacheDegraded, warnIfBatchJudge } from "./run.js";

/** The options of `env synth`, as commander parses them. */
export interface SynthFlags {
  docs?: string;
  model: string;
  tasks: number;
  maxRequests?: number;
  judge?: string;
  closedBookProbe?: string | boolean;
  seed: number;
  dedupThreshold?: number;
  rejected?: string;
  json?: string;
  cache: string | boolean;
  concurrency?: number;
  quiet?: boolean;
}

/** Runs `env synth` (the action of the command env-synth.ts registers); returns the exit code. */
export async function runSynth(envArg: string, flags: SynthFlags): Promise<number> {
  const target = envTarget(envArg);
  const rejectedPath = flags.rejected ?? join(".rubricate", "synth", `${target.rubric.id}.rejected.jsonl`);
  refuseUnwritableOutputs({ "--rejected": rejectedPath, "--json": flags.json }, { "the environment file": target.envFile, "the tasks file": target.tasksFile, "--judge": existingFile(flags.judge), "--cache": cachePathOf(flags.cache) });
  const chunks = await chunksToDraftFrom(target, flags.docs);
  // Tasks `env filter` removed count as existing too: a rerun must not draft them back in.
  const lines = [...readTaskLines(target.tasksFile), ...readTaskLines(removedTasksFile(target.tasksFile))];
  const judgeRef = chooseJudge(flags.judge, target.rubric);
  if (!judgeRef) throw new RubricateError("BAD_INPUT", "env synth checks every task with a judge: pass --judge, or give the environment's rubric a `judge:`");
  const engine = createEngine({ cache: openCache({ path: cachePathOf(flags.cache), onError: warnCacheDegraded }), limits: { maxConcurrency: 8, maxRetries: 5, timeoutMs: 120_000 } });
  const drafter = createPolicy(flags.model);
  const closedBook = flags.closedBookProbe === undefined ? undefined : flags.closedBookProbe === true ? drafter : createPolicy(flags.closedBookProbe as string);
  const judge = warnIfBatchJudge(createJudge(judgeRef, { engine }), "env synth");
  const interrupt = interruptSignal();
  let result: SynthResult;
  let stats;
  try {
    result = await synthesizeTasks(chunks, {
      engine,
      drafter,
      judge,
      closedBook,
      count: flags.tasks,
      maxRequests: flags.maxRequests,
      seed: flags.seed,
      dedupThreshold: flags.dedupThreshold,
      reservedCriterionIds: target.rubric.criteria.map((c) => c.id),
      existing: { ids: lines.map((l) => l.id), questions: lines.flatMap((l) => taskQuestion(l.raw) ?? []) },
      concurrency: flags.concurrency,
      signal: interrupt.signal,
      onKept: (tasks) => appendTasks(target.tasksFile, tasks),
      onRequest: ({ done, kept }) => flags.quiet || process.stderr.write(`rubricate: ${done} request(s), ${kept} kept\n`),
    });
    stats = engine.stats().usage;
  } finally {
    interrupt.dispose();
    await engine.close();
  }
  writeOutputFile(rejectedPath, [...result.rejected, ...result.errors.map((e) => ({ ...e, reason: "error" }))].map((r) => `${JSON.stringify(r)}\n`).join(""));
  const out = textOut(flags.json, (t) => process.stdout.write(t));
  out(`${synthReportText(result, { tasksFile: relative(process.cwd(), target.tasksFile), rejectedFile: rejectedPath, paid: stats.calls, cached: stats.cacheHits })}\n`);
  if (flags.json) writeJsonResult(flags.json, { ...result, tasksFile: target.tasksFile, rejectedFile: rejectedPath, calls: { paid: stats.calls, cached: stats.cacheHits } }, writeOutputFile);
  return result.errors.length > 0 ? EXIT.partial : EXIT.ok;
}

/**
 * The passages tasks are drafted from: the documents under --docs, else the chunks of the search
 * index the environment ships (a doc-search package), so a task cites ids its `read` tool knows.
 */
async function chunksToDraftFrom(target: EnvTarget, docs: string | undefined): Promise<readonly Chunk[]> {
  if (docs !== undefined) return chunkDocuments(await readDocuments(docs));
  if (!target.index) throw new RubricateError("BAD_INPUT", `env synth needs --docs <folder>: ${target.envFile} ships no search index (\`config.index\`) to draft from`);
  return (await loadIndex(target.index)).chunks;
}

const REASONS: Record<RejectReason, string> = {
  "bad-chunk-id": "cited a passage it was not shown",
  lint: "criteria with lint issues",
  duplicate: "near-duplicate of a kept or existing task",
  unsupported: "answer not in the cited passages",
  "weak-criteria": "criteria fail the reference answer or pass an echo of the question",
  "closed-book": "answered without the documents",
};

/** The text report: what was kept, rejected (by reason) and failed, where it went, what it cost. */
export function synthReportText(result: SynthResult, where: { tasksFile: string; rejectedFile: string; paid: number; cached: number }): string {
  const lines = [`env synth: ${result.kept.length} task(s) kept and appended to ${where.tasksFile} (${result.requests} request(s)${result.existing ? `, ${result.existing} already there` : ""})`];
  const byReason = new Map<RejectReason, number>();
  for (const r of result.rejected) byReason.set(r.reason, (byReason.get(r.reason) ?? 0) + 1);
  lines.push(`rejected: ${result.rejected.length}${[...byReason].map(([reason, n]) => `\n  ${String(n).padStart(4)}  ${reason} (${REASONS[reason]})`).join("")}`);
  lines.push(`errors: ${result.errors.length}${result.errors.map((e) => `\n  request ${e.request} (${e.chunks.join(", ")}): ${e.code}: ${e.message}`).join("")}`);
  lines.push(`rejections and errors: ${where.rejectedFile}`);
  lines.push(`calls: ${where.paid} paid, ${where.cached} from the cache`);
  return lines.join("\n");
}
