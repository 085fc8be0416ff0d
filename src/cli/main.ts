#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { register as registerSchema } from "./commands/schema.js";
import { register as registerScore } from "./commands/score.js";
import { register as registerValidate } from "./commands/validate.js";
import { register as registerMerge } from "./commands/merge.js";
import { EXIT, packageVersion, reportError } from "./run.js";

const program = new Command("rubricate")
  .description("Binary-question rubrics, cached parallel LLM judges, rewards.")
  .version(packageVersion(), "-v, --version")
  .showHelpAfterError()
  .exitOverride();

for (const register of [registerValidate, registerSchema, registerScore, registerMerge]) register(program);

program.parseAsync(process.argv).catch((e: unknown) => {
  if (e instanceof CommanderError) {
    process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return;
  }
  process.exitCode = reportError(e);
});
