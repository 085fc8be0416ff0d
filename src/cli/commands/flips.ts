import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { chooseJudge, createJudge } from "../../judge/create.js";
import { orderFlips, orderFlipsMarkdown } from "../../judge/order-flips.js";
import { RubricateError } from "../../errors.js";
import { loadRubric } from "../../rubric/load.js";
import type { Sample } from "../../types.js";
import { readJsonl } from "../io.js";
import { EXIT, cachePathOf, positiveInt, warnIfBatchJudge } from "../run.js";

/** The flags of `rubricate flips`. */
export interface FlipsFlags {
  rubric: string;
  judge?: string;
  cache: string | boolean;
  limit?: number;
  json?: string;
  concurrency?: number;
}

/** `rubricate flips`: how often batched verdicts change when the questions are rotated, beyond a same-order repeat. */
export function register(program: Command): void {
  program
    .command("flips")
    .description("Measure order effects: ask each sample's questions in rubric order, again in that order (the noise baseline) and rotated by half, and report the flips beyond the baseline with a 95% interval")
    .argument("<samples>", "samples JSONL")
    .requiredOption("--rubric <file>", "rubric YAML file")
    .option("-j, --judge <judge>", "judge file or packaged judge id (default: the rubric's `judge`)")
    .option("-n, --limit <n>", "use the first n samples", positiveInt)
    .option("--json <file>", "write the flip counts as JSON")
    .option("-c, --concurrency <n>", "samples in flight at once (default 4)", positiveInt)
    .option("--cache <path>", "cache database", ".rubricate/cache.db")
    .option("--no-cache", "do not read or write any cache")
    .action(async (samples: string, flags: FlipsFlags) => {
      process.exitCode = await runFlips(samples, flags);
    });
}

/** Runs `rubricate flips`; prints the markdown table, returns the exit code. */
export async function runFlips(samplesPath: string, flags: FlipsFlags, out: (text: string) => void = (t) => process.stdout.write(t)): Promise<number> {
  const rubric = await loadRubric(flags.rubric);
  const judgeRef = chooseJudge(flags.judge, rubric);
  if (!judgeRef) throw new RubricateError("NO_JUDGE", "flips needs a judge: --judge or the rubric's `judge`");
  const samples: Sample[] = [];
  for await (const row of readJsonl(samplesPath)) {
    if (flags.limit !== undefined && samples.length >= flags.limit) break;
    samples.push(row as Sample);
  }
  const judge = warnIfBatchJudge(createJudge(judgeRef, { cache: cachePathOf(flags.cache) }), "flips");
  try {
    const f = await orderFlips(rubric, samples, { judge, concurrency: flags.concurrency });
    out(orderFlipsMarkdown(f));
    if (flags.json) writeFileSync(flags.json, `${JSON.stringify(f, null, 2)}\n`);
  } finally {
    await judge.close?.();
  }
  return EXIT.ok;
}
