import type { Command } from "commander";
import { chooseJudge, createJudge } from "../../judge/create.js";
import { orderFlips, orderFlipsMarkdown } from "../../judge/order-flips.js";
import { RubricateError } from "../../errors.js";
import { loadRubric } from "../../rubric/load.js";
import type { Sample } from "../../types.js";
import { existingFile, readJsonl, refuseUnwritableOutputs, textOut, writeJsonResult, writeOutputFile } from "../io.js";
import { EXIT, cachePathOf, positiveInt, warnCacheDegraded, warnIfBatchJudge } from "../run.js";
import { cacheOption, concurrencyOption, jsonOption, judgeOption, noCacheOption } from "../options.js";

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
    .addOption(judgeOption())
    .option("-n, --limit <n>", "use the first n samples", positiveInt)
    .addOption(jsonOption("the flip counts"))
    .addOption(concurrencyOption("samples in flight at once (default 4)"))
    .addOption(cacheOption())
    .addOption(noCacheOption("do not read or write any cache"))
    .action(async (samples: string, flags: FlipsFlags) => {
      process.exitCode = await runFlips(samples, flags);
    });
}

/** Runs `rubricate flips`; prints the markdown table, returns the exit code. */
export async function runFlips(samplesPath: string, flags: FlipsFlags, out: (text: string) => void = (t) => process.stdout.write(t)): Promise<number> {
  refuseUnwritableOutputs({ "--json": flags.json }, { "the samples file": samplesPath, "--rubric": flags.rubric, "--judge": existingFile(flags.judge), "--cache": cachePathOf(flags.cache) });
  const rubric = await loadRubric(flags.rubric);
  const judgeRef = chooseJudge(flags.judge, rubric);
  if (!judgeRef) throw new RubricateError("NO_JUDGE", "flips needs a judge: --judge or the rubric's `judge`");
  const samples: Sample[] = [];
  for await (const row of readJsonl(samplesPath)) {
    if (flags.limit !== undefined && samples.length >= flags.limit) break;
    samples.push(row as Sample);
  }
  const judge = warnIfBatchJudge(createJudge(judgeRef, { cache: cachePathOf(flags.cache), onCacheError: warnCacheDegraded }), "flips");
  try {
    const f = await orderFlips(rubric, samples, { judge, concurrency: flags.concurrency });
    textOut(flags.json, out)(orderFlipsMarkdown(f));
    if (flags.json) writeJsonResult(flags.json, f, writeOutputFile);
    // A judge that did not answer measured nothing: the exit code says so, as score's does.
    if (f.all.errors > 0) {
      process.stderr.write(`rubricate: ${f.all.errors} question(s) got no verdict in one of their three asks (the errors column); the table leaves them out\n`);
      return EXIT.partial;
    }
  } finally {
    await judge.close?.();
  }
  return EXIT.ok;
}
