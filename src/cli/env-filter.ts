/**
 * `rubricate env filter <env> --model <m> -k 8 --keep 0.1..0.9`: the command and its options. The
 * run (engine, judge, eval) is in env-filter-run.ts, imported only when the command runs.
 */
import { InvalidArgumentError, type Command } from "commander";
import type { FilterFlags } from "./env-filter-run.js";
import { parseBand, type Band } from "../corpus/filter.js";
import { cacheOption, concurrencyOption, errorsOption, jsonOption, judgeOption, noCacheOption } from "./options.js";
import { passThreshold, positiveInt } from "./run.js";


function band(value: string): Band {
  try {
    return parseBand(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}


/** Adds `filter` under `rubricate env`. */
export function registerFilter(env: Command): void {
  env
    .command("filter")
    .description("Roll every task out k times and keep the tasks whose pass rate lies in a band (the ones a group-relative trainer learns from); pass rates go into the task records")
    .argument("<env>", "the environment package folder or env.yaml (its tasks file is rewritten)")
    .requiredOption("-m, --model <model>", "the policy: provider:model or a policy config file")
    .option("-k, --rollouts <k>", "rollouts per task", positiveInt, 8)
    .option("--keep <min..max>", "the pass rates kept, both ends included", band, { min: 0.1, max: 0.9 })
    .addOption(judgeOption())
    .option("--pass-threshold <x>", "a rollout passes when its reward ≥ x (default: the rubric's pass_threshold, else 1)", passThreshold)
    .option("-o, --out <file>", "also save the rollouts (JSONL); an existing file is resumed")
    .addOption(jsonOption("the pass rates, decisions and histograms"))
    .addOption(cacheOption("cache database (policy and judge calls: a rerun pays nothing twice)"))
    .addOption(noCacheOption())
    .addOption(concurrencyOption("rollouts in flight at once (default 8)"))
    .addOption(errorsOption())
    .option("--unsafe-no-sandbox", "run the environment's sandbox commands directly on this machine (only for environments you trust)")
    .option("-q, --quiet", "no progress on stderr")
    .addHelpText("after", "\nA rollout without a reward (the policy failed after retries, or the judge gave no verdict) is neither a pass nor a\nfailure; a task with no rewarded rollout keeps its place, unrated, and the command exits 3.")
    .action(async (envArg: string, flags: FilterFlags) => {
      process.exitCode = await (await import("./env-filter-run.js")).runFilter(envArg, flags);
    });
}
