/**
 * A `rubricate` entry with only the optimize command registered, for tests that run it in a
 * child process while src/cli/main.ts does not register it yet (same error handling as main).
 */
import { Command, CommanderError } from "commander";
import { register } from "../../src/cli/commands/optimize.js";
import { EXIT, reportError } from "../../src/cli/run.js";

const program = new Command("rubricate").exitOverride();
register(program);
program.parseAsync(process.argv).catch((e: unknown) => {
  if (e instanceof CommanderError) {
    process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return;
  }
  process.exitCode = reportError(e);
});
