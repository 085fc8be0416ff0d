#!/usr/bin/env node
import { exitCodeOf, quietOnClosedPipe } from "./run.js";
import { asksForBatch, runInCappedWorker, setCliEntry, setUpCliWorker } from "./worker.js";
import { programFor } from "./commands.js";
import { limitInlining } from "./compiler-budget.js";

async function main(): Promise<void> {
  limitInlining();
  quietOnClosedPipe();
  setCliEntry(import.meta.url);
  setUpCliWorker();
  const asked = process.argv[2];
  // A batch run goes on in a heap-capped worker (cli/worker.ts), decided before any command is
  // loaded: this thread then holds little more than node itself while it waits.
  if (asked === "score" && asksForBatch(process.argv.slice(2))) {
    const quiet = process.argv.includes("-q") || process.argv.includes("--quiet");
    const code = await runInCappedWorker("batch run", (line) => quiet || process.stderr.write(`batch: ${line}\n`));
    if (code !== undefined) {
      process.exitCode = code;
      return;
    }
  }
  // Only the command that runs is loaded (`rubricate validate` need not load the SDKs and SQLite);
  // the root help, `--version` and an unknown command need only the table.
  const program = await programFor(process.argv.slice(2));
  await program.parseAsync(process.argv);
}

main().catch((e: unknown) => {
  process.exitCode = exitCodeOf(e);
});
