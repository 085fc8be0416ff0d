import bytes from "bytes";
import { InvalidArgumentError, type Command } from "commander";
import { isLoopback } from "../../bridge/auth.js";
import { defaultMapping, unfedInputs } from "../../bridge/protocol.js";
import { createRewardServer } from "../../bridge/server.js";
import { RubricateError } from "../../errors.js";
import { chooseJudge, createJudge, type EngineJudge } from "../../judge/create.js";
import { sessionRoutes } from "../../bridge/sessions.js";
import { openCache } from "../../engine/cache/index.js";
import { createEngine } from "../../engine/engine.js";
import { loadEnvironmentSpec } from "../../hub/resolve.js";
import { installHookGuard } from "../../env/isolation.js";
import { judgeFamilyWarning } from "../../judge/family.js";
import { createSessionManager } from "../../env/sessions.js";
import type { Environment } from "../../env/types.js";
import { RedisCache } from "../../engine/cache/redis.js";
import type { ErrorPolicy } from "../../score/aggregate.js";
import { loadRubricSync } from "../../rubric/load.js";
import { EXIT, parseBytes, positiveInt, cachePathOf, errorPolicyOf, usageError, warnCacheDegraded, warnIfBatchJudge, finiteNumber } from "../run.js";
import { cacheOption, collect, concurrencyOption, errorsOption, judgeOption, noCacheOption, partWithin, userGave } from "../options.js";

interface ServeFlags {
  rubric?: string;
  env?: string;
  maxSessions: number;
  maxSessionBytes: number;
  maxSessionsBytes: number;
  sessionIdleMs: number;
  maxGroup: number;
  unsafeNoSandbox?: boolean;
  trainee?: string;
  allowPolicyHost?: string[];
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
  labelFields?: string[];
  sampleCriteria: boolean;
  allowSampleQuestions?: boolean;
  fallbackReward: number;
  maxErrorShare: number;
  allowHost?: string[];
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  shutdownGraceMs: number;
  quiet?: boolean;
}


const share = (value: string) => {
  const n = finiteNumber(value);
  if (n < 0 || n > 1) throw new InvalidArgumentError(`expected a share between 0 and 1, got "${value}"`);
  return n;
};

const list = (value: string, previous: string[] = []) => [...previous, ...value.split(",").map((v) => v.trim()).filter(Boolean)];

/** A byte count as a size option takes it ("32MB"), or the count itself when no unit says it exactly. */
const size = (n: number) => {
  const text = bytes.format(n);
  return text !== null && bytes.parse(text) === n ? text : String(n);
};

const port = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`expected a port 0-65535, got "${value}"`);
  return n;
};

/** `rubricate serve --rubric r.yaml --judge j.yaml [--port 8000] [--host 127.0.0.1] [--token …]`. */
export function register(program: Command): void {
  program
    .command("serve")
    .description("Serve rewards over HTTP for RL trainers (OpenRLHF POST /get_reward, POST /v1/score, POST /v1/score/one, GET /v1/stats, GET /healthz)")
    .option("-r, --rubric <file>", "rubric YAML file (with --env: the environment's rubric)")
    .option("--env <spec>", "also serve this environment (a path, package name, name@version or git URL) to trainers: sessions (/v1/sessions) and rollouts against their policy endpoint (/v1/rollouts)")
    .option("--max-sessions <n>", "--env: sessions open at once", positiveInt, 1024)
    .option("--max-session-bytes <size>", "--env: what a client may send into one session (turns, tool arguments); more is a 413", parseBytes, 32 * 1024 * 1024)
    .option("--max-sessions-bytes <size>", "--env: what clients may send into all open sessions together; more is a 429 until sessions close", parseBytes, 512 * 1024 * 1024)
    .option("--session-idle-ms <ms>", "--env: a session untouched this long is closed (a trainer that went away)", positiveInt, 600_000)
    .option("--max-group <n>", "--env: most rollouts in one /v1/rollouts request", positiveInt, 64)
    .option("--trainee <model>", "the model being trained (e.g. qwen3-8b or openai-compatible:qwen3-8b@…): warns when the judge is of its family")
    .option("--unsafe-no-sandbox", "--env: run the environment's sandbox commands on this machine with your rights (no isolation: only for environments you trust)")
    .option("--allow-policy-host <host:port>", "--env: a policy endpoint /v1/rollouts may call, loopback included (repeatable, e.g. 127.0.0.1:8001; none: /v1/rollouts calls nothing)", collect)
    .addOption(judgeOption())
    .option("-p, --port <port>", "port (0 picks a free one)", port, 8000)
    .option("--host <host>", "address to bind; anything but loopback needs --token or RUBRICATE_TOKEN", "127.0.0.1")
    .option("--token <token>", "require Authorization: Bearer <token> (default: $RUBRICATE_TOKEN)")
    .addOption(cacheOption("cache: a SQLite file, or redis://host:port/db shared by several servers"))
    .addOption(noCacheOption())
    .option("--max-body <size>", "largest request body, e.g. 128mb (a whole OpenRLHF batch)", parseBytes, 128 * 1024 * 1024)
    .option("--max-samples <n>", "most samples in one request (more is a 413 naming this flag)", positiveInt, 16_384)
    .option("--timeout-ms <ms>", "per-request deadline: samples not scored by then fail (DEADLINE; a 504 when none was); keep it under the trainer's timeout (OpenRLHF: 180 s)", positiveInt, 150_000)
    .addOption(concurrencyOption("samples of one request scored at once (the judge file limits calls)", 128))
    .addOption(errorsOption())
    .option("--fallback-reward <n>", "OpenRLHF /get_reward: the reward of a sample without one (counted in extra_logs.rubricate_error and /v1/stats)", finiteNumber, 0)
    .option("--max-error-share <share>", "answer 503 + Retry-After when more than this share of a request failed from a judge outage", share, 0.25)
    .option("--prompt-field <input>", "OpenRLHF: the rubric input that receives `prompts[i]` (default: prompt, question, problem, query, input, instruction, task or message, if an input)")
    .option("--response-field <input>", "OpenRLHF: the input that receives query minus prompt (default: the rubric's response_field, else response)")
    .option("--label-field <input>", "OpenRLHF: the input that receives `labels[i]` (default: reference, answer, label, ground_truth, solution, target, expected or gold, if an input)")
    .option("--label-fields <inputs>", "OpenRLHF: inputs that JSON-object labels carry by name, comma-separated (e.g. problem,answer)", list)
    .option("--strip-suffix <text>", "OpenRLHF: an end-of-turn marker to cut off responses (repeatable; replaces the defaults)", collect)
    .option("--allow-sample-questions", "let samples add their own LLM judge questions (paid by this server; off by default)")
    .option("--no-sample-criteria", "refuse samples that carry their own `criteria` at all (by default pure checks are allowed, custom checks never)")
    .option("--allow-host <host:port>", "accept this Host name besides the bound address (repeatable; e.g. behind a proxy)", collect)
    .option("--max-connections <n>", "open connections at once; more are closed (those that have not yet shown the token share a quarter of them, at most 64: past it, the oldest idle a second are closed)", positiveInt, 512)
    .option("--headers-timeout-ms <ms>", "a client must send its request headers within this", positiveInt, 10_000)
    .option("--request-timeout-ms <ms>", "a client must send its whole request (body included) within this", positiveInt, 120_000)
    .option("--shutdown-grace-ms <ms>", "on SIGTERM, requests in flight get this long to finish; then they are aborted (stalled rollouts too)", positiveInt, 30_000)
    .option("-q, --quiet", "no log lines on stderr")
    .action(async (flags: ServeFlags, command: Command) => {
      process.exitCode = await runServe(flags, command);
    });
}

async function runServe(flags: ServeFlags, command: Command): Promise<number> {
  errorPolicyOf(flags.errors);
  const token = flags.token ?? (process.env.RUBRICATE_TOKEN || undefined);
  checkServeFlags(flags, token, command);
  const log = (line: string) => flags.quiet || process.stderr.write(`rubricate serve: ${line}\n`);
  // A limit within another: both given and contradicting is exit 2; one given past the other's default moves that default, said.
  [flags.headersTimeoutMs, flags.requestTimeoutMs] = partWithin(command, "--headers-timeout-ms", "--request-timeout-ms", String, (line) => log(`note: ${line}`));
  [flags.maxSessionBytes, flags.maxSessionsBytes] = partWithin(command, "--max-session-bytes", "--max-sessions-bytes", size, (line) => flags.env && log(`note: ${line}`));
  // A path, an installed package name, name@version or a git URL (installed into .rubricate/envs), as for `eval`.
  const env = flags.env ? await loadEnvironmentSpec(flags.env, { onNotice: (line) => flags.quiet || process.stderr.write(`rubricate serve: ${line}\n`) }) : undefined;
  const rubric = env ? env.rubric : loadRubricSync(flags.rubric!);
  const mapping = defaultMapping(rubric, { prompt: flags.promptField, response: flags.responseField, label: flags.labelField, labelFields: flags.labelFields, stripSuffixes: flags.stripSuffix });
  // An environment's rubric may have no response input at all (wordle grades `game_log`): its
  // episodes fill the inputs, so only an explicit --response-field must name one.
  if (!rubric.inputs.includes(mapping.response) && (!env || flags.responseField !== undefined)) {
    throw new RubricateError("BAD_INPUT", `--response-field ${mapping.response} is not an input of rubric ${rubric.id} (inputs: ${rubric.inputs.join(", ")})`);
  }
  // Fail at start, not once per sample: every input must come from some field of a request. With
  // --env the episodes fill the rubric's inputs (transcript, end state): only /get_reward needs them fed.
  const unfed = unfedInputs(rubric, mapping);
  const envUnfed = env ? unfed : [];
  if (unfed.length > 0 && !env) {
    const taken = [mapping.response && `response <- ${mapping.response}`, mapping.prompt && `prompt <- ${mapping.prompt}`, mapping.label && `label <- ${mapping.label}`].filter(Boolean).join(", ");
    throw new RubricateError(
      "BAD_INPUT",
      `rubric ${rubric.id} needs input${unfed.length > 1 ? "s" : ""} ${unfed.map((n) => `"${n}"`).join(", ")} that no request field feeds (${taken}); ` +
        `pass --prompt-field ${unfed[0]} (OpenRLHF prompts), --label-field ${unfed[0]} (labels), or --label-fields ${unfed.join(",")} (labels that are JSON objects carrying them)`,
    );
  }
  if (envUnfed.length > 0) log(`note: /get_reward cannot feed ${envUnfed.map((n) => `"${n}"`).join(", ")} (the environment's episodes do): use the sessions and rollouts routes for this environment`);
  for (const [flag, name] of [["--prompt-field", flags.promptField], ["--label-field", flags.labelField]] as const) {
    if (name && !rubric.inputs.includes(name)) log(`warning: ${flag} ${name} is not an input of rubric ${rubric.id}; the judge will not see it`);
  }
  const judgeRef = chooseJudge(flags.judge, rubric);
  const needsJudge = rubric.criteria.some((c) => c.question);
  if (needsJudge && !judgeRef) throw new RubricateError("NO_JUDGE", `rubric ${rubric.id} asks LLM questions: pass --judge <file>`);
  const cache = cachePathOf(flags.cache);
  const judge = needsJudge ? warnIfBatchJudge(createJudge(judgeRef!, { cache, onCacheError: warnCacheDegraded }), "serve") : undefined;
  const envApi = env ? environmentApi(env, flags, judge, cache) : undefined;
  if (judge && flags.trainee) {
    // A judge of the trainee's family tends to favour its outputs: the policy learns the judge's taste.
    const model = flags.trainee.replace(/^[a-z-]+:/, "").replace(/@https?:\/\/.*$/, "");
    const warning = judgeFamilyWarning(judge, { model }, "trainee");
    if (warning && !flags.quiet) process.stderr.write(`rubricate serve: warning: ${warning}\n`);
  }
  const server = createRewardServer({
    rubric,
    judge,
    token,
    maxBodyBytes: flags.maxBody,
    maxSamples: flags.maxSamples,
    timeoutMs: flags.timeoutMs,
    concurrency: flags.concurrency,
    errors: flags.errors,
    mapping,
    sampleCriteria: !flags.sampleCriteria ? "off" : flags.allowSampleQuestions ? "questions" : "checks",
    fallbackReward: flags.fallbackReward,
    maxErrorShare: flags.maxErrorShare,
    allowHosts: flags.allowHost,
    maxConnections: flags.maxConnections,
    headersTimeoutMs: flags.headersTimeoutMs,
    requestTimeoutMs: flags.requestTimeoutMs,
    closeGraceMs: flags.shutdownGraceMs,
    log,
    ...(envApi ? { dynamicRoutes: envApi.routes, onClose: envApi.close } : {}),
  });
  let url: string;
  try {
    const shared = judge?.engine.cache;
    if (shared instanceof RedisCache) {
      await shared.ready(); // an unreachable shared cache is a start-up error naming its cause, not a silent cost
      // Later outages are not fatal (this replica answers from its memory): said when they start and end.
      shared.onHealthChange((_health, message) => log(message));
    }
    url = await server.listen(flags.port, flags.host);
  } catch (e) {
    await judge?.close?.();
    if (e instanceof RubricateError) throw e;
    throw new RubricateError("BAD_INPUT", `cannot listen on ${flags.host}:${flags.port}: ${(e as Error).message}`);
  }
  const fields = [`response <- ${mapping.response}`, mapping.prompt ? `prompt <- ${mapping.prompt}` : "prompt unused", mapping.label ? `label <- ${mapping.label}` : "label unused (object labels still merge)", ...(mapping.labelFields.length ? [`JSON labels carry ${mapping.labelFields.join(", ")}`] : [])];
  // Signal handlers first: a supervisor may send SIGTERM the moment it reads the line below.
  if (env) log(`environment ${env.id}@${env.version} (${env.tasks.length} tasks): POST /v1/sessions, POST /v1/rollouts`);
  if (env && flags.unsafeNoSandbox) log("warning: --unsafe-no-sandbox: every holder of the token can run commands on this machine with your rights");
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
  log(`rubric ${rubric.id} listening on ${url} (${token ? "token required" : "no token"}; OpenRLHF ${fields.join(", ")})`);
  await stopped;
  return EXIT.ok;
}

/** The options with defaults that only the sessions and rollouts of --env read. */
const ENV_ONLY_OPTIONS = ["--max-sessions", "--max-session-bytes", "--max-sessions-bytes", "--session-idle-ms", "--max-group"];

/** Refuses flag combinations that cannot work (exit 2), before anything is loaded or listens. */
function checkServeFlags(flags: ServeFlags, token: string | undefined, command: Command): void {
  if (!flags.rubric && !flags.env) throw usageError("serve needs --rubric <file> or --env <file>");
  if (flags.rubric && flags.env) throw usageError("give --rubric or --env, not both: an environment brings its own rubric");
  if (flags.allowSampleQuestions && !flags.sampleCriteria) throw usageError("--allow-sample-questions lets samples add questions, --no-sample-criteria refuses every sample criterion: pick one");
  if (!flags.env && (flags.unsafeNoSandbox || flags.allowPolicyHost)) throw usageError("--unsafe-no-sandbox and --allow-policy-host apply to the sessions and rollouts of --env: pass --env <env> too, or drop them");
  // Options with a default: only one the user typed is a mistake without --env (ignored before).
  const sessionOnly = ENV_ONLY_OPTIONS.filter((flag) => userGave(command, flag));
  if (!flags.env && sessionOnly.length > 0) throw usageError(`${sessionOnly.join(", ")} ${sessionOnly.length > 1 ? "apply" : "applies"} to the sessions and rollouts of --env: pass --env <env> too, or drop ${sessionOnly.length > 1 ? "them" : "it"}`);
  if (!isLoopback(flags.host) && !token) throw usageError(`--host ${flags.host} makes the server reachable from other machines; refusing to start without a token (--token or RUBRICATE_TOKEN)`);
  // Without a sandbox a session's tool calls are shell commands on this machine: only token holders may send them.
  if (flags.unsafeNoSandbox && !token) throw usageError("--unsafe-no-sandbox lets every client of /v1/sessions and /v1/rollouts run commands on this machine with your rights; refusing to start without a token (--token or RUBRICATE_TOKEN), so only its holders can");
}

/** The environment API: a session manager swept for idle sessions, and its routes. */
function environmentApi(env: Environment, flags: ServeFlags, judge: EngineJudge | undefined, cache: string | null | undefined) {
  // Rollouts call the trainer's policy through the judge's engine (one place for limits and stats);
  // without a judge, an engine of their own (policy calls are not cached unless versioned anyway).
  const engine = judge?.engine ?? createEngine({ cache: openCache({ path: cache, onError: warnCacheDegraded }), limits: { maxConcurrency: 256, maxRetries: 2, timeoutMs: 600_000 } });
  const sessions = createSessionManager({ env, engine, judge, unsafeNoSandbox: flags.unsafeNoSandbox, errors: flags.errors, maxSessions: flags.maxSessions, maxSessionBytes: flags.maxSessionBytes, maxTotalBytes: flags.maxSessionsBytes, idleMs: flags.sessionIdleMs, allowTaskCriteria: Boolean(flags.allowSampleQuestions) });
  // A hook's process.exit or stray throw fails its session, not the server.
  const releaseGuard = installHookGuard();
  const sweeper = setInterval(() => sessions.sweep(), Math.min(flags.sessionIdleMs, 30_000));
  sweeper.unref();
  const routes = sessionRoutes({ env, sessions, engine, judge, errors: flags.errors, allowPolicyHosts: flags.allowPolicyHost, maxGroup: flags.maxGroup, allowTaskCriteria: Boolean(flags.allowSampleQuestions) });
  return {
    routes,
    close: () => {
      clearInterval(sweeper);
      sessions.closeAll();
      releaseGuard();
      if (!judge) engine.close();
    },
  };
}
