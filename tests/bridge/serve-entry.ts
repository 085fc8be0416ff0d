/** A CLI entry with only `serve`, used by the bridge tests until src/cli/main.ts registers the command. */
import { Command, CommanderError } from "commander";
import { register } from "../../src/cli/commands/serve.js";
import { EXIT, reportError } from "../../src/cli/run.js";

const program = new Command("rubricate").exitOverride();
register(program);
program.parseAsync(process.argv).catch((e: unknown) => {
  process.exitCode = e instanceof CommanderError ? (e.exitCode === 0 ? EXIT.ok : EXIT.usage) : reportError(e);
});
