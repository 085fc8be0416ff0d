import { join, resolve } from "node:path";
import { validateHeaderName, type Server } from "node:http";
import { InvalidArgumentError, type Command } from "commander";
import { answerClientErrors } from "../../bridge/http.js";
import { packageVersion } from "../../config/load.js";
import { RubricateError } from "../../errors.js";
import { pushAll, readPushFile } from "../../hub/push.js";
import { createHubApp, DEFAULT_BODY_LIMIT } from "../../site/app.js";
import { DEFAULT_UNKNOWN_TOKENS_PER_MINUTE, DEFAULT_WRITES_PER_MINUTE } from "../../site/limits.js";
import { loadModelsFile, QueueEvalRunner } from "../../site/queue-evals.js";
import { RegistryClient } from "../../site/registry.js";
import { ResultStore } from "../../site/store.js";
import { collect, judgeOption, queueOption } from "../options.js";
import { httpUrl, nonNegativeInt, parseBytes, passThreshold, positiveInt } from "../run.js";

interface HubServeFlags {
  registry: string[];
  db: string;
  port: number;
  host: string;
  bodyLimit: number;
  writesPerMinute: number;
  unknownTokensPerMinute: number;
  clientIpHeader?: string;
  models?: string;
  queue?: string;
  quiet?: boolean;
}

/** A request header's name, lower-cased as hono reads it, or a usage error (exit 2). */
function headerName(value: string): string {
  try {
    validateHeaderName(value);
  } catch {
    throw new InvalidArgumentError(`expected an HTTP header name such as x-forwarded-for, got "${value}"`);
  }
  return value.toLowerCase();
}

const isLoopback = (host: string) => host === "127.0.0.1" || host === "::1" || host === "localhost";

/**
 * `rubricate hub serve --registry URL [--registry URL] [--db .rubricate/hub.db] [--models models.yaml --queue redis://…]`
 * and `rubricate hub push <file> --hub <url>` ((re)send results to a hub).
 */
export function register(program: Command): void {
  const hub = program.command("hub").description("The environment hub: serve the web app over npm registries with leaderboards (serve), send results to one (push)");
  hub
    .command("serve")
    .description("Serve the hub: environment list and pages (README, versions, leaderboard, comparisons, training curves), a JSON API, POST /api/results")
    .option("--registry <url>", "an npm registry to show environments from (repeatable; the first that has a package answers for it)", (v: string, previous: string[]) => collect(httpUrl(v), previous), [])
    .option("--db <file>", "the results store (SQLite)", join(".rubricate", "hub.db"))
    .option("--port <n>", "port (0: any free one)", (v) => (v === "0" ? 0 : positiveInt(v)), 8080)
    .option("--host <host>", "address to bind", "127.0.0.1")
    .option("--body-limit <size>", `largest accepted request body, e.g. 8mb (default ${DEFAULT_BODY_LIMIT} bytes)`, parseBytes, DEFAULT_BODY_LIMIT)
    .option("--writes-per-minute <n>", `results pushed and evals started per token per minute; more get 429 and Retry-After (0: no limit; default ${DEFAULT_WRITES_PER_MINUTE})`, nonNegativeInt, DEFAULT_WRITES_PER_MINUTE)
    .option("--unknown-tokens-per-minute <n>", `tokens the registry has not accepted lately that one client address may present per minute (sign-in, API, cookie); more get 429 before the registry is asked (0: no limit; default ${DEFAULT_UNKNOWN_TOKENS_PER_MINUTE})`, nonNegativeInt, DEFAULT_UNKNOWN_TOKENS_PER_MINUTE)
    .option("--client-ip-header <name>", "behind a reverse proxy: the header with the visitor's address (its last entry), e.g. x-forwarded-for; without it every visitor counts as the proxy", headerName)
    .option("--models <file>", "models a visitor may evaluate an environment on (YAML: models: {name: provider:model}, judge, tasks, rollouts); needs --queue")
    .addOption(queueOption("with --models: the Redis queue `rubricate worker`s take the evals from"))
    .option("-q, --quiet", "no log lines on stderr")
    .action(async (flags: HubServeFlags) => {
      await serveHub(flags);
    });
  hub
    .command("push")
    .description("Send results to a hub: the .hub.json a refused `eval --push` kept, or an eval's rollouts JSONL")
    .argument("<file>", "a .hub.json file, or rollouts JSONL (.rubricate/evals/…/<models>.jsonl)")
    .option("--hub <url>", "the hub (default $RUBRICATE_HUB)", httpUrl)
    .addOption(judgeOption("for rollouts JSONL: the judge the rubric was scored with (its id is stamped in the results)"))
    .option("--step <n>", "for rollouts JSONL: the training step these results are of", nonNegativeInt)
    .option("--series <name>", "for rollouts JSONL: the model series the steps belong to")
    .option("--pass-threshold <x>", "for rollouts JSONL: a rollout passes when its reward ≥ x (default: as the eval marked it)", passThreshold)
    .action(async (file: string, flags: { hub?: string; judge?: string; step?: number; series?: string; passThreshold?: number }) => {
      const url = flags.hub ?? (process.env.RUBRICATE_HUB || undefined);
      if (!url) throw new RubricateError("BAD_INPUT", "hub push needs --hub <url> (or $RUBRICATE_HUB)");
      const results = readPushFile(file, { judge: flags.judge, step: flags.step, series: flags.series, passThreshold: flags.passThreshold });
      // A resend keeps what is still refused in the same kind of file, beside the input.
      const pending = file.endsWith(".hub.json") ? file : `${file.replace(/\.jsonl$/, "")}.hub.json`;
      const answers = await pushAll(url, results, pending);
      for (const [i, a] of answers.entries()) process.stdout.write(`pushed ${results[i].model} on ${results[i].env.name}@${results[i].env.version} to ${url}${typeof a.url === "string" ? `: ${a.url}` : ""}\n`);
    });
}

async function serveHub(flags: HubServeFlags): Promise<void> {
  if (flags.registry.length === 0) throw new RubricateError("BAD_INPUT", "hub serve needs at least one --registry <url> (the npm registry environments are published to)");
  if (flags.models && !flags.queue) throw new RubricateError("BAD_INPUT", "--models needs --queue redis://host:port/db: the evals are played by `rubricate worker`s");
  const log = (line: string) => flags.quiet || process.stderr.write(`hub: ${line}\n`);
  const store = new ResultStore(resolve(flags.db));
  const registries = new RegistryClient({ registries: flags.registry });
  const evals = flags.models
    ? new QueueEvalRunner({ models: loadModelsFile(flags.models), queue: flags.queue!, store, workDir: join(resolve(flags.db), "..", "hub-evals"), rubricateVersion: packageVersion(), log })
    : undefined;
  const app = createHubApp({ registries, store, bodyLimit: flags.bodyLimit, writesPerMinute: flags.writesPerMinute, unknownTokensPerMinute: flags.unknownTokensPerMinute, clientIpHeader: flags.clientIpHeader, evals, log });
  const { serve } = await import("@hono/node-server");
  const server = await new Promise<ReturnType<typeof serve>>((done, fail) => {
    const s = serve({ fetch: app.fetch, port: flags.port, hostname: flags.host }, () => done(s));
    answerClientErrors(s as Server);
    s.once("error", (e: Error) => fail(new RubricateError("BAD_INPUT", `cannot listen on ${flags.host}:${flags.port}: ${e.message}`)));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : flags.port;
  const host = flags.host.includes(":") ? `[${flags.host}]` : flags.host;
  if (!isLoopback(flags.host)) log(`warning: ${flags.host} is reachable from other machines; serve it behind HTTPS so sign-in cookies and tokens are not sent in the clear`);
  // The header is the proxy's word only if the proxy is the one way in.
  if (flags.clientIpHeader && !isLoopback(flags.host)) log(`warning: --client-ip-header ${flags.clientIpHeader} is believed from anyone who reaches ${flags.host} directly, who may then write any address in it; bind the hub to 127.0.0.1 behind the proxy`);
  // The one line a script waits for (the port when --port 0).
  process.stdout.write(`hub listening on http://${host}:${port}/ (registries: ${registries.registries.join(", ")}; results in ${flags.db})\n`);
  // Evals the last hub process left unfinished go on (their records are in the store).
  evals?.resume();
  await new Promise<void>((done) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      server.close(() => done());
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  store.close();
}
