import type { Command } from "commander";
import { mergeCaches, mergeResults, type MergeReport } from "../../engine/merge.js";
import { badLineError, jsonlEntries } from "../../config/jsonl.js";
import { RubricateError } from "../../errors.js";
import { JsonlWriter, refuseOutputOverInput, refuseUnwritableOutputs } from "../io.js";
import { EXIT, filePath, usageError } from "../run.js";

/** `rubricate merge <results...> -o merged.jsonl [--cache c.db --from-cache a.db ...]`: joins shards' outputs and caches. */
export function register(program: Command): void {
  program
    .command("merge")
    .description("Join the results (and caches) of `score --shard i/n` runs into one file in input order")
    .argument("<results...>", "results JSONL files written by `rubricate score --shard`")
    .option("-o, --output <file>", "merged results (default: stdout)", filePath)
    .option("--cache <path>", "cache database to merge the shards' caches into", filePath)
    .option("--from-cache <paths...>", "shards' cache databases to copy into --cache")
    .action(async (files: string[], flags: { output?: string; cache?: string; fromCache?: string[] }) => {
      // One without the other merged no cache and said nothing.
      if (Boolean(flags.cache) !== Boolean(flags.fromCache?.length)) throw usageError("--cache and --from-cache go together: --cache <merged.db> --from-cache <shard.db…>");
      refuseOutputOverInput(flags.output, files);
      // The merged cache is written too: -o over it would replace the paid answers with JSONL.
      refuseUnwritableOutputs({ "-o": flags.output, "--cache": flags.cache }, { "the results files": files, "--from-cache": flags.fromCache });
      const report: MergeReport = { rows: 0, duplicates: 0, conflicts: 0, missing: 0 };
      const writer = new JsonlWriter(flags.output);
      for await (const row of mergeResults(files.map(resultRows), report, files)) await writer.write(row);
      await writer.close();
      const lines = [`merged ${report.rows} results from ${files.length} files (${report.duplicates} duplicates dropped, ${report.missing} sample indexes missing)`];
      if (flags.cache && flags.fromCache?.length) lines.push(`cache: ${mergeCaches(flags.cache, flags.fromCache)} answers added to ${flags.cache}`);
      process.stderr.write(`${lines.join("\n")}\n`);
      process.exitCode = report.missing > 0 ? EXIT.partial : EXIT.ok;
    });
}

/** The rows of one results file; a line that is not a result is named by file:line. */
async function* resultRows(path: string): AsyncGenerator<Record<string, unknown>> {
  for await (const entry of jsonlEntries(path)) {
    if ("bad" in entry) throw badLineError(entry.bad);
    if (typeof entry.value.index !== "number") throw new RubricateError("BAD_INPUT", "no numeric `index`: not a results line (was it written by `rubricate score`?)", { location: { file: path, line: entry.line } });
    yield entry.value;
  }
}
