/**
 * `rubricate env synth <env> [--docs <folder>] --model <m> -n 200`: the command and its options. The
 * run (engine, judge, policies) is in env-synth-run.ts, imported only when the command runs.
 */
import { InvalidArgumentError, type Command } from "commander";
import type { SynthFlags } from "./env-synth-run.js";
import { cacheOption, concurrencyOption, jsonOption, judgeOption, noCacheOption } from "./options.js";
import { positiveInt } from "./run.js";


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
    .option("--docs <folder>", "the documents (Markdown, text, HTML, PDF; default: the search index a doc-search package ships)")
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
      process.exitCode = await (await import("./env-synth-run.js")).runSynth(envArg, flags);
    });
}
