/**
 * The command table: what `rubricate --help` lists (name, usage, description) and how to load each
 * command. A command's module (and with it the SDKs, SQLite, the servers…) loads only when that
 * command runs; the root help is drawn from this table alone. tests/cli/commands.test.ts checks that
 * each entry says what its module registers.
 */
import { Command, Help } from "commander";
import { packageVersion } from "./run.js";

/** A command module: adds its command (options, action) to the program. */
export type CommandModule = { register(program: Command): void };

/** One line of the root help and the way to the command behind it. */
export interface CommandEntry {
  /** The usage as the root help shows it: name, `[options]` when it has any, its arguments. */
  term: string;
  description: string;
  load(): Promise<CommandModule>;
}

/** Every command, in the order of `rubricate --help`. */
export const COMMANDS: Record<string, CommandEntry> = {
  validate: {
    term: "validate [options] <files...>",
    description: "Check rubric files (and judge files with --judge) and report every problem as file:line:col",
    load: () => import("./commands/validate.js"),
  },
  lint: {
    term: "lint [options] <rubrics...>",
    description: "Lint rubric questions (yes/no, one ask, standards for vague words, polarity, duplicates, examples, points)",
    load: () => import("./commands/lint.js"),
  },
  draft: {
    term: "draft [options]",
    description: "Draft a rubric from notes, a reference answer and labelled good/bad responses (validated and linted; repaired once, else rejected)",
    load: () => import("./commands/draft.js"),
  },
  schema: {
    term: "schema",
    description: "Print the JSON Schema of rubric files (for editors and other validators)",
    load: () => import("./commands/schema.js"),
  },
  score: {
    term: "score [options] <rubric> <samples>",
    description: "Score samples (JSONL, or - for stdin) with a rubric; one JSON result line per sample, in input order",
    load: () => import("./commands/score.js"),
  },
  merge: {
    term: "merge [options] <results...>",
    description: "Join the results (and caches) of `score --shard i/n` runs into one file in input order",
    load: () => import("./commands/merge.js"),
  },
  worker: {
    term: "worker [options]",
    description: "Take chunks of queued runs (`score --queue`) from Redis and score them, until SIGTERM; start as many as you like, anywhere",
    load: () => import("./commands/worker.js"),
  },
  serve: {
    term: "serve [options]",
    description: "Serve rewards over HTTP for RL trainers (OpenRLHF POST /get_reward, POST /v1/score, POST /v1/score/one, GET /v1/stats, GET /healthz)",
    load: () => import("./commands/serve.js"),
  },
  eval: {
    term: "eval [options] <env>",
    description: "Roll out an environment's tasks with one or more policy models, score every rollout with its rubric, compare the models",
    load: () => import("./commands/eval.js"),
  },
  env: {
    term: "env",
    description: "Environment packages: scaffold, check, publish (push), list, search, info; draft tasks from documents (synth), keep the tasks of useful difficulty (filter)",
    load: () => import("./commands/env.js"),
  },
  hub: {
    term: "hub",
    description: "The environment hub: serve the web app over npm registries with leaderboards (serve), send results to one (push)",
    load: () => import("./commands/hub.js"),
  },
  distill: {
    term: "distill [options] [input]",
    description: "Filter scored samples/rollouts (or score them with --rubric) and export SFT (OpenAI, TRL) or preference (DPO) JSONL",
    load: () => import("./commands/distill.js"),
  },
  calibrate: {
    term: "calibrate [options]",
    description: "Measure how far judges agree with human labels, per criterion, with bootstrap intervals",
    load: () => import("./commands/calibrate.js"),
  },
  optimize: {
    term: "optimize",
    description: "Evolve a prompt with GEPA (reflection on rubric feedback, Pareto front over instances)",
    load: () => import("./commands/optimize.js"),
  },
  probe: {
    term: "probe [options] <rubric> <samples>",
    description: "Attack a rubric with responses that deserve zero (empty, keyword stuffing, injection, forged delimiters, …) and report what they win; exit 4 when an attack's mean reward is above --fail-above",
    load: () => import("./commands/probe.js"),
  },
  flips: {
    term: "flips [options] <samples>",
    description: "Measure order effects: ask each sample's questions in rubric order, again in that order (the noise baseline) and rotated by half, and report the flips beyond the baseline with a 95% interval",
    load: () => import("./commands/flips.js"),
  },
};

/** The command an argument list asks for (`score …`, or `help score`), if it is one of the table's. */
export function commandAsked(args: string[]): string | undefined {
  const name = args[0] === "help" ? args[1] : args[0];
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? name : undefined;
}

/**
 * Adds every command as a stand-in that only describes itself, for the root help and for "unknown
 * command" errors with their "did you mean"; a command that runs is registered from its module.
 */
export function registerCommandTable(program: Command): void {
  for (const [name, entry] of Object.entries(COMMANDS)) program.command(name).description(entry.description);
  program.configureHelp({
    subcommandTerm(this: Help, cmd: Command) {
      return Object.hasOwn(COMMANDS, cmd.name()) ? COMMANDS[cmd.name()].term : Help.prototype.subcommandTerm.call(this, cmd);
    },
  });
}

/**
 * The `rubricate` program with what `args` ask for registered: the one command that runs, or only
 * the table (the root help, `--version`, an unknown command). Errors throw (`exitOverride`);
 * `exitCodeOf` (run.ts) turns them into the exit code.
 */
export async function programFor(args: string[]): Promise<Command> {
  const program = new Command("rubricate")
    .description("Binary-question rubrics, cached parallel LLM judges, rewards.")
    .version(packageVersion(), "-v, --version")
    // A typo gets commander's "(Did you mean …?)" and a pointer to --help, not the whole help.
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  const command = commandAsked(args);
  if (command !== undefined) (await COMMANDS[command].load()).register(program);
  else registerCommandTable(program);
  return program;
}
