/**
 * The options several commands share, defined once: the same flag has the same spelling, parser,
 * default and (for an enum) the same `choices`, so `--errors bogus` exits 2 listing the choices in
 * every command. A command passes its own description where the meaning narrows (what
 * `--concurrency` counts), never its own parser.
 */
import { Option, type Command } from "commander";
import { ERROR_POLICIES } from "../types.js";
import { filePath, positiveInt, usageError } from "./run.js";

/** A repeatable option's accumulator: each use adds its value. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** A repeatable option that also takes comma-separated values (`--require a,b --require c`). */
export const collectList = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean),
];

/** `-j, --judge <judge>`: a judge file or packaged id. */
export const judgeOption = (description = "judge file or packaged judge id (default: the rubric's `judge`)") => new Option("-j, --judge <judge>", description);

/** `--cache <path>` (read back with `cachePathOf`; add `noCacheOption` beside it). */
export const cacheOption = (description = "cache database") => new Option("--cache <path>", description).argParser(filePath).default(".rubricate/cache.db");

/** `--no-cache`: no cache read or written. */
export const noCacheOption = (description = "do not read or write any cache (every call is paid)") => new Option("--no-cache", description);

/** `-c, --concurrency <n>`: a positive integer; the description says what runs at once. */
export const concurrencyOption = (description: string, fallback?: number) => {
  const option = new Option("-c, --concurrency <n>", description).argParser(positiveInt);
  return fallback === undefined ? option : option.default(fallback);
};

/** `--errors <policy>`: null (default), zero or skip-criterion. */
export const errorsOption = (description = "what a criterion error makes of the reward") =>
  new Option("--errors <policy>", description).choices(ERROR_POLICIES).default("null");

/** `-o, --output <file>`: where the command's main output goes instead of stdout. */
export const outputOption = (description: string) => new Option("-o, --output <file>", description).argParser(filePath);

/**
 * `--json <file>`, one meaning in every command: the command's full result as JSON, to `file`, or
 * to stdout for `-` (the text report then goes to stderr). `lint --json` is `--json -`: lint
 * keeps its bare flag, as it has no file form.
 */
export const jsonOption = (what = "the full result") => new Option("--json <file>", `write ${what} as JSON to <file> (- for stdout; the text report then goes to stderr)`).argParser(filePath);

/** `--queue <url>`: the Redis database of a work queue (`score`/`eval`/`distill --queue`, `worker`); what goes on it is the command's. */
export const queueOption = (description: string) => new Option("--queue <url>", description);

/** `--chunk-size <n>`: with --queue, how much of the work one chunk holds. */
export const chunkSizeOption = (description: string) => new Option("--chunk-size <n>", description).argParser(positiveInt);

/** Whether the user gave an option (on the command line, or from the environment where it reads one) rather than leaving its default. */
export function userGave(command: Command, flag: string): boolean {
  const option = command.options.find((o) => o.long === flag);
  const source = option ? command.getOptionValueSource(option.attributeName()) : undefined;
  return source === "cli" || source === "env";
}

/**
 * Two options of which the first must not exceed the second (a part within its whole: one
 * session's bytes within all sessions', the headers' time within the whole request's). Both given
 * and the part above the whole: a usage error naming both (exit 2). One given past the other's
 * default: that default gives way to it, and `note` says so. Returns the two values to use.
 * @example const [headers, request] = partWithin(command, "--headers-timeout-ms", "--request-timeout-ms", String, log)
 */
export function partWithin(command: Command, part: string, whole: string, show: (n: number) => string, note: (line: string) => void): [number, number] {
  const valueOf = (flag: string) => command.getOptionValue(command.options.find((o) => o.long === flag)!.attributeName()) as number;
  const p = valueOf(part);
  const w = valueOf(whole);
  if (p <= w) return [p, w];
  const partGiven = userGave(command, part);
  const wholeGiven = userGave(command, whole);
  if (partGiven && wholeGiven) throw usageError(`${part} ${show(p)} is above ${whole} ${show(w)}, which bounds it: lower ${part} or raise ${whole}`);
  if (wholeGiven) {
    note(`${part} lowered from its default ${show(p)} to ${show(w)}: ${whole} ${show(w)} bounds it`);
    return [w, w];
  }
  note(`${whole} raised from its default ${show(w)} to ${show(p)}: it bounds ${part} ${show(p)}`);
  return [p, p];
}
