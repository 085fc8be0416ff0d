#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { EXIT, packageVersion, quietOnClosedPipe, reportError } from "./run.js";
import { asksForBatch, runInCappedWorker, setCliEntry, setUpCliWorker } from "./worker.js";

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
