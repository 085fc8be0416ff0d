#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { EXIT, packageVersion, quietOnClosedPipe, reportError } from "./run.js";
import { asksForBatch, runInCappedWorker, setCliEntry, setUpCliWorker } from "./worker.js";
import { commandAsked, COMMANDS, registerCommandTable } from "./commands.js";

async function main(): Promise<void> {
  quietOnClosedPipe();
  setCliEntry(import.meta.url);
  setUpCliWorker();
  const program = new Command("rubricate")
    .description("Binary-question rubrics, cached parallel LLM judges, rewards.")
    .version(packageVersion(), "-v, --version")
    // A typo gets commander's "(Did you mean …?)" and a pointer to --help, not the whole help.
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
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
  const command = commandAsked(process.argv.slice(2));
  if (command !== undefined) (await COMMANDS[command].load()).register(program);
  else registerCommandTable(program);
  await program.parseAsync(process.argv);
}

main().catch((e: unknown) => {
  if (e instanceof CommanderError) {
    process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return;
  }
  process.exitCode = reportError(e);
});
