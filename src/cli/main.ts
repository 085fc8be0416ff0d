#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { register as registerCalibrate } from "./commands/calibrate.js";
import { register as registerDraft } from "./commands/draft.js";
import { register as registerDistill } from "./commands/distill.js";
import { register as registerEval } from "./commands/eval.js";
import { register as registerLint } from "./commands/lint.js";
import { register as registerMerge } from "./commands/merge.js";
import { register as registerOptimize } from "./commands/optimize.js";
import { register as registerProbe } from "./commands/probe.js";
import { register as registerSchema } from "./commands/schema.js";
import { register as registerScore } from "./commands/score.js";
import { register as registerServe } from "./commands/serve.js";
import { register as registerValidate } from "./commands/validate.js";
import { EXIT, packageVersion, reportError } from "./run.js";

const program = new Command("rubricate")
  .description("Binary-question rubrics, cached parallel LLM judges, rewards.")
  .version(packageVersion(), "-v, --version")
  .showHelpAfterError()
  .exitOverride();

for (const register of [
  registerValidate,
  registerLint,
  registerDraft,
  registerSchema,
  registerScore,
  registerMerge,
  registerServe,
  registerEval,
  registerDistill,
  registerCalibrate,
  registerOptimize,
  registerProbe,
]) {
  register(program);
}

program.parseAsync(process.argv).catch((e: unknown) => {
  if (e instanceof CommanderError) {
    process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return;
  }
  process.exitCode = reportError(e);
});
