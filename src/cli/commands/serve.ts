import type { Command } from "commander";
import { isLoopback } from "../../bridge/auth.js";
import { defaultMapping } from "../../bridge/protocol.js";
import { createRewardServer } from "../../bridge/server.js";
import { RubricateError } from "../../errors.js";
import { createJudge } from "../../judge/create.js";
import type { ErrorPolicy } from "../../score/aggregate.js";
import { loadRubricSync } from "../../rubric/load.js";
import { EXIT, positiveInt, cachePathOf, errorPolicyOf } from "../run.js";

interface ServeFlags {
  rubric: string;
  judge?: string;
  port: number;
  host: string;
  token?: string;
  cache: string | boolean;
  maxBody: number;
  maxSamples: number;
  timeoutMs: number;
  concurrency: number;
  errors: ErrorPolicy;
  promptField?: string;
  responseField?: string;
  labelField?: string;
  stripSuffix?: string[];
  sampleCriteria: boolean;
  quiet?: boolean;
}

const port = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`expected a port 0-65535, got "${value}"`);
  return n;
};

/** Parses "16mb", "512k" or a plain byte count. */
export function parseBytes(value: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb?|mb?|gb?)?$/i.exec(value.trim());
  if (!m) throw new Error(`expected a size like 16mb or 1048576, got "${value}"`);
  const unit = (m[2] ?? "b").toLowerCase()[0];
  const bytes = Math.floor(Number(m[1]) * ({ b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 } as Record<string, number>)[unit]);
  if (bytes <= 0) throw new Error(`expected a positive size, got "${value}"`);
  return bytes;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `rubricate serve --rubric r.yaml --judge j.yaml [--port 8000] [--host 127.0.0.1] [--token …]`. */
export function register(program: Command): void {
  program
    .command("serve")
    .description("Serve rewards over HTTP for RL trainers (OpenRLHF POST /get_reward, POST /v1/score, POST /v1/score/one, GET /v1/stats, GET /healthz)")
    .requiredOption("-r, --rubric <file>", "rubric YAML file")
    .option("-j, --judge <judge>", "judge file or packaged judge id (default: the rubric's `judge`)")
    .option("-p, --port <port>", "port (0 picks a free one)", port, 8000)
    .option("--host <host>", "address to bind; anything but loopback needs --token or RUBRICATE_TOKEN", "127.0.0.1")
    .option("--token <token>", "require Authorization: Bearer <token> (default: $RUBRICATE_TOKEN)")
    .option("--cache <path>", "cache database", ".rubricate/cache.db")
    .option("--no-cache", "do not read or write any cache (every call is paid)")
    .option("--max-body <size>", "largest request body, e.g. 16mb", parseBytes, 16 * 1024 * 1024)
    .option("--max-samples <n>", "most samples in one request (more is a 413: split the batch)", positiveInt, 4096)
    .option("--timeout-ms <ms>", "answer 504 when a request is still scoring after this long", positiveInt, 600_000)
    .option("-c, --concurrency <n>", "samples of one request scored at once (the judge file limits calls)", positiveInt, 128)
    .option("--errors <policy>", "a criterion error makes the reward: null (default) | zero | skip-criterion", "null")
    .option("--prompt-field <input>", "OpenRLHF: the rubric input that receives `prompts[i]` (default: prompt or question, if an input)")
    .option("--response-field <input>", "OpenRLHF: the input that receives query minus prompt (default: the rubric's response_field, else response)")
    .option("--label-field <input>", "OpenRLHF: the input that receives `labels[i]` (default: reference, answer, label, ground_truth, solution or target, if an input); a label that is a JSON object supplies inputs by name")
    .option("--strip-suffix <text>", "OpenRLHF: an end-of-turn marker to cut off responses (repeatable; replaces the defaults)", collect)
    .option("--no-sample-criteria", "refuse samples that carry their own `criteria` (clients cannot add paid judge questions)")
    .option("-q, --quiet", "no log lines on stderr")
    .action(async (flags: ServeFlags) => {
      process.exitCode = await runServe(flags);
    });
}

async function runServe(flags: ServeFlags): Promise<number> {
  errorPolicyOf(flags.errors);
  const token = flags.token ?? (process.env.RUBRICATE_TOKEN || undefined);
  if (!isLoopback(flags.host) && !token) {
    throw new RubricateError("BAD_INPUT", `--host ${flags.host} makes the server reachable from other machines; refusing to start without a token (--token or RUBRICATE_TOKEN)`);
  }
  const rubric = loadRubricSync(flags.rubric);
  const mapping = defaultMapping(rubric, { prompt: flags.promptField, response: flags.responseField, label: flags.labelField, stripSuffixes: flags.stripSuffix });
  if (!rubric.inputs.includes(mapping.response)) throw new RubricateError("BAD_INPUT", `--response-field ${mapping.response} is not an input of rubric ${rubric.id} (inputs: ${rubric.inputs.join(", ")})`);
  const log = (line: string) => flags.quiet || process.stderr.write(`rubricate serve: ${line}\n`);
  for (const [flag, name] of [["--prompt-field", flags.promptField], ["--label-field", flags.labelField]] as const) {
    if (name && !rubric.inputs.includes(name)) log(`warning: ${flag} ${name} is not an input of rubric ${rubric.id}; the judge will not see it`);
  }
  const judgeRef = flags.judge ?? rubric.judge;
  const needsJudge = rubric.criteria.some((c) => c.question);
  if (needsJudge && !judgeRef) throw new RubricateError("NO_JUDGE", `rubric ${rubric.id} asks LLM questions: pass --judge <file>`);
  const cache = cachePathOf(flags.cache);
  const judge = needsJudge ? createJudge(judgeRef!, { cache, origin: flags.judge ? "user" : "rubric" }) : undefined;
  const server = createRewardServer({ rubric, judge, token, maxBodyBytes: flags.maxBody, maxSamples: flags.maxSamples, timeoutMs: flags.timeoutMs, concurrency: flags.concurrency, errors: flags.errors, mapping, allowSampleCriteria: flags.sampleCriteria });
  let url: string;
  try {
    url = await server.listen(flags.port, flags.host);
  } catch (e) {
    await judge?.close?.();
    throw new RubricateError("BAD_INPUT", `cannot listen on ${flags.host}:${flags.port}: ${(e as Error).message}`);
  }
  const fields = [`response <- ${mapping.response}`, mapping.prompt ? `prompt <- ${mapping.prompt}` : "prompt unused", mapping.label ? `label <- ${mapping.label}` : "label unused (object labels still merge)"];
  log(`rubric ${rubric.id} listening on ${url} (${token ? "token required" : "no token"}; OpenRLHF ${fields.join(", ")})`);
  const stopped = new Promise<void>((resolve) => {
    const onSignal = (name: NodeJS.Signals) => {
      log(`${name}: finishing ${server.stats().requests.inFlight} request(s) in flight, then closing the cache (${name} again quits now)`);
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      const quit = () => process.exit(EXIT.interrupted);
      process.once("SIGTERM", quit);
      process.once("SIGINT", quit);
      server.close().then(() => {
        log("stopped");
        resolve();
      });
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
  await stopped;
  return EXIT.ok;
}
