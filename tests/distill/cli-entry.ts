/**
 * `rubricate` with the distill command registered, for tests until src/cli/main.ts registers it
 * (the same program setup as main.ts, so exit codes and error printing match).
 */
import { Command, CommanderError } from "commander";
import { register as registerDistill } from "../../src/cli/commands/distill.js";
import { EXIT, reportError } from "../../src/cli/run.js";

const program = new Command("rubricate").showHelpAfterError().exitOverride();
registerDistill(program);
program.parseAsync(process.argv).catch((e: unknown) => {
  if (e instanceof CommanderError) {
    process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return;
  }
  process.exitCode = reportError(e);
});
