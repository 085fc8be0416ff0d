#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { EXIT, packageVersion, quietOnClosedPipe, reportError } from "./run.js";

type CommandModule = { register(program: Command): void };

// Each command is loaded only when it is the one asked for (all of them for help): `rubricate
// validate` need not load both provider SDKs and SQLite. Order here is the order in --help.
const commands: Record<string, () => Promise<CommandModule>> = {
  validate: () => import("./commands/validate.js"),
  lint: () => import("./commands/lint.js"),
  draft: () => import("./commands/draft.js"),
  schema: () => import("./commands/schema.js"),
  score: () => import("./commands/score.js"),
  merge: () => import("./commands/merge.js"),
  serve: () => import("./commands/serve.js"),
  eval: () => import("./commands/eval.js"),
  env: () => import("./commands/env.js"),
  distill: () => import("./commands/distill.js"),
  calibrate: () => import("./commands/calibrate.js"),
  optimize: () => import("./commands/optimize.js"),
  probe: () => import("./commands/probe.js"),
  flips: () => import("./commands/flips.js"),
};

async function main(): Promise<void> {
  quietOnClosedPipe();
  const program = new Command("rubricate")
    .description("Binary-question rubrics, cached parallel LLM judges, rewards.")
    .version(packageVersion(), "-v, --version")
    .showHelpAfterError()
    .exitOverride();
  const asked = process.argv[2];
  const wanted = asked !== undefined && Object.hasOwn(commands, asked) ? [commands[asked]] : asked === "-v" || asked === "--version" ? [] : Object.values(commands);
  for (const load of wanted) (await load()).register(program);
  await program.parseAsync(process.argv);
}

main().catch((e: unknown) => {
  if (e instanceof CommanderError) {
    process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return;
  }
  process.exitCode = reportError(e);
});
