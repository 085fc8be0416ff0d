/**
 * `rubricate env synth <env> --docs <folder> --model <m> -n 200`: drafts checked tasks from the
 * documents and appends them to the environment's tasks file; rejections go to a JSONL report.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { openCache } from "../engine/cache/index.js";
import { createEngine } from "../engine/engine.js";
import { createPolicy } from "../env/policy.js";
import { RubricateError } from "../errors.js";
import { chooseJudge, createJudge } from "../judge/create.js";
import { loadChunks } from "../corpus/load-chunks.js";
import { synthesizeTasks, type RejectReason, type SynthResult } from "../corpus/synth.js";
import { appendTasks, envTarget, readTaskLines, removedTasksFile, taskQuestion } from "../corpus/tasks-file.js";
import { textOut, writeJsonResult } from "./io.js";
import { cacheOption, concurrencyOption, jsonOption, judgeOption, noCacheOption } from "./options.js";
import { cachePathOf, EXIT, interruptSignal, positiveInt, warnIfBatchJudge } from "./run.js";

interface SynthFlags {
  docs: string;
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

function similarity(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError(`expected a number between 0 and 1 (exclusive), got "${value}"`);
  return n;
}

/** Adds `synth` under `rubricate env`. */
export function registerSynth(env: Command): void {
  env
    .command("synth")
    .description("Draft tasks from your documents with a model (question, reference answer, cited passages, per-task criteria), check each, append the kept ones to the environment's tasks file")
    .argument("<env>", "the environment package folder or env.yaml (its `dataset:` names the tasks file written to)")
    .requiredOption("--docs <folder>", "the documents (.md and .txt)")
    .requiredOption("-m, --model <model>", "the drafting model: provider:model or a policy config file")
    .option("-n, --tasks <n>", "tasks to keep, counting those an earlier run of the same command kept (so a rerun is free)", positiveInt, 20)
    .option("--max-requests <n>", "drafting requests at most (default 2 × --tasks)", positiveInt)
    .addOption(judgeOption("judge of the support and closed-book checks (default: the environment rubric's `judge`)"))
    .option("--closed-book-probe [model]", "ask the question without the documents (this model, default --model) and reject tasks it already answers")
    .option("--dedup-threshold <x>", "Jaccard similarity (character 5-grams, MinHash) from which two questions are duplicates (default 0.8; lower catches rewordings)", similarity)
    .option("--seed <n>", "which passages are drafted from (same seed and documents, same requests)", positiveInt, 1)
    .option("--rejected <file>", "rejected tasks and errors, one JSON line each, with the reason (default .rubricate/synth/<env>.rejected.jsonl)")
    .addOption(jsonOption("the whole result (kept, rejected, errors, usage)"))
    .addOption(cacheOption("cache database (drafting, probe and judge calls: a rerun pays nothing twice)"))
    .addOption(noCacheOption())
    .addOption(concurrencyOption("drafting requests in flight at once (default 8)"))
    .option("-q, --quiet", "no progress on stderr")
    .action(async (envArg: string, flags: SynthFlags) => {
      process.exitCode = await runSynth(envArg, flags);
    });
}

async function runSynth(envArg: string, flags: SynthFlags): Promise<number> {
  const target = envTarget(envArg);
  const chunks = loadChunks(flags.docs);
  // Tasks `env filter` removed count as existing too: a rerun must not draft them back in.
  const lines = [...readTaskLines(target.tasksFile), ...readTaskLines(removedTasksFile(target.tasksFile))];
  const judgeRef = chooseJudge(flags.judge, target.rubric);
  if (!judgeRef) throw new RubricateError("BAD_INPUT", "env synth checks every task with a judge: pass --judge, or give the environment's rubric a `judge:`");
  const engine = createEngine({ cache: openCache({ path: cachePathOf(flags.cache) }), limits: { maxConcurrency: 8, maxRetries: 5, timeoutMs: 120_000 } });
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
  const rejectedPath = flags.rejected ?? join(".rubricate", "synth", `${target.rubric.id}.rejected.jsonl`);
  mkdirSync(dirname(rejectedPath), { recursive: true });
  writeFileSync(rejectedPath, [...result.rejected, ...result.errors.map((e) => ({ ...e, reason: "error" }))].map((r) => `${JSON.stringify(r)}\n`).join(""));
  const out = textOut(flags.json, (t) => process.stdout.write(t));
  out(`${synthReportText(result, { tasksFile: relative(process.cwd(), target.tasksFile), rejectedFile: rejectedPath, paid: stats.calls, cached: stats.cacheHits })}\n`);
  if (flags.json) writeJsonResult(flags.json, { ...result, tasksFile: target.tasksFile, rejectedFile: rejectedPath, calls: { paid: stats.calls, cached: stats.cacheHits } }, writeFileSync);
  return result.errors.length > 0 ? EXIT.partial : EXIT.ok;
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
