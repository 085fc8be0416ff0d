/**
 * Each trainer's loop (TRL GRPOTrainer and AsyncGRPOTrainer, OpenRLHF's multi-turn executor, verl's
 * tool agent loop with tools, interaction and compute_score, verifiers classic and v1 through
 * prime-rl) plays an example environment through the shipped adapters, driven by
 * tests/bridge/drive_trainer_loops.py and drive_verifiers_v1.py, whose headers list the contracts
 * read from each trainer's source. Rewards must equal `rubricate eval` replaying the same
 * trajectories; failures (a server killed mid-episode, an expired session, a full server answering
 * 429, episodes the trainer cuts) must neither raise into the trainer nor leave a session open.
 *
 * One environment per test file (env-trainer-loops-<env>.test.ts), so vitest runs them on
 * different workers. The drivers run their scenarios in three Python processes side by side (not
 * one per scenario: torch loads once per process), each scenario against a server of its own; the
 * tests then assert each scenario's output.
 */
import { execFile } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRewardServer, type RewardServer } from "../../src/bridge/server.js";
import { sessionRoutes } from "../../src/bridge/sessions.js";
import { runEval } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import { openingOf } from "../../src/env/session.js";
import { createSessionManager } from "../../src/env/sessions.js";
import type { Environment } from "../../src/env/types.js";
import { sweepStaleSandboxes } from "../../src/sandbox/bubblewrap/index.js";
import { cgroupParent, sweepStaleGroups } from "../../src/sandbox/bubblewrap/cgroup.js";
import type { Reply, TestServer } from "../../src/testing/servers/common.js";
import type { AskedQuestion, Decision, JudgeRequestView } from "../../src/testing/servers/judge-responder.js";
import { pattern } from "../../examples/wordle/hooks.js";
import { judgeAnswer } from "../../examples/support-desk/agents.js";
import { connect, JUDGE_MODEL, sampleFields, startWorld, type WireMessage } from "../env/world.js";
import { tempDir } from "../helpers/cli.js";
import { needs, runs } from "../helpers/system.js";
import { needsBubblewrap } from "../sandbox/helpers.js";
import type { LiveServer } from "./helpers.js";

const PYTHON = "/usr/bin/python3";
// find_spec, not `import torch`: the check costs no torch start-up (a broken torch fails the drivers loudly).
const python = needs("python3 with python3-torch", () => runs(PYTHON, ["-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)"]) && PYTHON, "apt-get install python3 python3-torch");
const bwrap = needsBubblewrap();

type Turn = { text?: string; calls?: { name: string; arguments: Record<string, unknown> }[] };
const TRAJECTORIES = JSON.parse(readFileSync("tests/bridge/fixtures/trajectories.json", "utf8")) as Record<string, Record<string, Turn[]>>;

/** The judges of the three environments, each answering its questions truthfully from the sample. */
const JUDGES: Record<string, (q: AskedQuestion, view: JudgeRequestView) => Decision> = {
  "support-desk": (q, view) => judgeAnswer(q.id, sampleFields(view.sample).response),
  wordle: (_q, view) => {
    const lines = [...view.sample.matchAll(/^\d+\. (\S*) (\S+)/gm)].map((m) => ({ word: m[1], pattern: m[2] }));
    if (lines.some((l) => !/^[GY-]{5}$/.test(l.pattern))) return false;
    return lines.every((l, i) => lines.slice(0, i).every((prev) => pattern(prev.word, l.word) === prev.pattern));
  },
  ctf: (_q, view) => /\[tool call [^\]]*: (bash|read_file|write_file)\(/.test(view.sample),
};

/** A policy that replays the fixture's trajectory of one task (wordle's tasks all open with the same message). */
function replay(name: string, task: string) {
  return (messages: WireMessage[]): Reply => {
    const turn = TRAJECTORIES[name][task][messages.filter((m) => m.role === "assistant").length];
    if (!turn) return "I am done.";
    if (turn.calls) return { text: turn.text, toolCalls: turn.calls.map((c, i) => ({ id: `call_${i}`, name: c.name, arguments: c.arguments })) };
    return turn.text!;
  };
}

interface World {
  env: Environment;
  world: TestServer<unknown>;
  servers: RewardServer[];
  /** `rubricate eval`'s reward for each task of the fixture. */
  evalRewards: Record<string, number | null>;
  /** A new in-process `serve --env` on the environment (its own sessions), listening; its URL. */
  serve(maxSessions?: number): Promise<string>;
}

async function startEnvWorld(name: string): Promise<World> {
  const env = await loadEnvironment(`examples/${name}/env.yaml`);
  const tasks = Object.keys(TRAJECTORIES[name]);
  const world = await startWorld(Object.fromEntries(tasks.map((t) => [`replay-${t}`, replay(name, t)])), JUDGES[name]);
  const servers: RewardServer[] = [];
  const { judge } = connect(world.url, []);
  return {
    env,
    world,
    servers,
    evalRewards: {},
    async serve(maxSessions) {
      const sessions = createSessionManager({ env, engine: judge.engine, judge, maxSessions });
      const server = createRewardServer({ rubric: env.rubric, judge, dynamicRoutes: sessionRoutes({ env, sessions, engine: judge.engine, judge }), onClose: () => sessions.closeAll() });
      servers.push(server);
      return server.listen(0);
    },
  };
}

/** `rubricate eval`'s reward of each fixture task, replayed by its scripted policy. */
async function evalRewardsOf(w: World, name: string): Promise<Record<string, number | null>> {
  const tasks = Object.keys(TRAJECTORIES[name]);
  const { engine, judge, policies } = connect(w.world.url, tasks.map((t) => `replay-${t}`));
  const { records } = await runEval(w.env, { policies, engine, judge });
  return Object.fromEntries(tasks.map((t) => [t, records.find((r) => r.task === t && r.model.includes(`:replay-${t}@`))!.reward]));
}

const LOOPS = "tests/bridge/drive_trainer_loops.py";
const V1 = "tests/bridge/drive_verifiers_v1.py";

/** What one driver process printed: each scenario's output, and the stderr it wrote. */
interface Driven {
  outputs: Record<string, any>;
  stderr: Record<string, string>;
}

/** Runs `script` with `<scenario>=<url>` for each entry, in order, in one Python process. */
async function drive(script: string, name: string, scenarios: Record<string, string>, extra: Record<string, string>): Promise<Driven> {
  const run = await promisify(execFile)(PYTHON, [script, ...Object.entries(scenarios).map(([s, url]) => `${s}=${url}`)], {
    encoding: "utf8",
    timeout: 540_000,
    maxBuffer: 16 * 1024 * 1024,
    env: { PATH: process.env.PATH, RUBRICATE_ENV_URL: Object.values(scenarios)[0], ENV_NAME: name, RUBRICATE_ENV_RETRIES: "1", ...extra },
  }).catch((e: { stdout: string; stderr: string }) => ({ stdout: e.stdout, stderr: e.stderr, failed: true }));
  if ("failed" in run) throw new Error(`${script} failed:\n${run.stderr}`);
  const stderr: Record<string, string> = {};
  for (const part of run.stderr.split(/^--- scenario /m).slice(1)) stderr[part.slice(0, part.indexOf("\n"))] = part;
  return { outputs: JSON.parse(run.stdout.trim().split("\n").at(-1)!), stderr };
}

/** One scenario's output; its Python traceback, or any traceback on its stderr, fails the test. */
function scenario(driven: Driven, name: string): any {
  const out = driven.outputs[name];
  if (!out) throw new Error(`no output for scenario ${name}`);
  if (typeof out.error === "string") throw new Error(`scenario ${name} raised:\n${out.error}`);
  expect(driven.stderr[name] ?? "", `stderr of ${name}`).not.toMatch(/Traceback/);
  return out;
}

const KEYS = (env: Environment) => ["rubricate_error", "rubricate_unfinished", ...env.rubric.criteria.map((c) => `rubricate/${c.id}`)].sort();

export interface TrainerLoopOptions {
  /** Concurrent episodes per trainer in the `play` scenarios (64 is a trainer's usual batch). */
  many: number;
  /** Starts a real `rubricate serve <args>` process with `env` added (tests/bridge/helpers.ts `startServe`): the SIGKILL scenarios kill it. */
  startServe: (args: string[], env: Record<string, string>) => Promise<LiveServer>;
}

/** Every trainer's loop over `examples/<name>/env.yaml` (a describe block; call it in a test file). */
export function trainerLoops(name: string, options: TrainerLoopOptions): void {
  const body = () => suite(name, options);
  const title = { "support-desk": "support-desk (tools)", wordle: "wordle (turns)", ctf: "ctf (sandboxed tools)" }[name] ?? name;
  python.describe("trainer loops over environments (python3)", () => (name === "ctf" ? bwrap.describe(title, body) : describe(title, body)));
}

function suite(name: string, { many, startServe }: TrainerLoopOptions) {
  let w: World;
  let loops: Driven;
  let v1: Driven;
  /** The server each scenario played against. */
  let urls: Record<string, string>;
  const live: LiveServer[] = [];
  /** The temp folder of the servers in `live`, where their sandboxes are made (ctf's tools run in them). */
  let serveTmp: string | undefined;
  beforeAll(async () => {
    w = await startEnvWorld(name);
    // Two real servers to SIGKILL, one per driver; the other scenarios each get an in-process server.
    const dir = tempDir("rubricate-trainer-loops-");
    const judgeFile = join(dir, "judge.yaml");
    writeFileSync(judgeFile, `provider: openai-compatible\nmodel: ${JUDGE_MODEL}\nbase_url: ${w.world.url}\nmax_retries: 1\n`);
    const args = ["--env", `examples/${name}/env.yaml`, "--judge", judgeFile, "--no-cache", "--port", "0"];
    serveTmp = tempDir("rubricate-trainer-loops-tmp-");
    // Each sandbox's user passes through it to the sandbox's own folder (0711, bubblewrap/index.ts).
    chmodSync(serveTmp, 0o711);
    const env = { TMPDIR: serveTmp };
    live.push(...(await Promise.all([startServe(args, env), startServe(args, env)])));
    const [killLoops, killV1] = live;
    // The scenario order is a trainer run's: the SIGKILL, which ends the server for good, comes last.
    urls = { play: await w.serve(), verifiers: await w.serve(), cut: await w.serve(), "fail:expire": await w.serve(), limit: await w.serve(4), "fail:kill": killLoops.url };
    const v1Urls = { play: await w.serve(), cut: await w.serve(4), "fail:expire": await w.serve(4), limit: await w.serve(4), "fail:kill": killV1.url };
    const { play, ...rest } = urls;
    const extra = { MANY: String(many), SERVE_PID: String(killLoops.child.pid) };
    // Three processes side by side: the trainers' play (the longest scenario) apart from the rest.
    let played: Driven, others: Driven;
    [w.evalRewards, played, others, v1] = await Promise.all([
      evalRewardsOf(w, name),
      drive(LOOPS, name, { play }, extra),
      drive(LOOPS, name, rest, extra),
      drive(V1, name, v1Urls, { MANY: String(many), SERVE_PID: String(killV1.child.pid) }),
    ]);
    loops = { outputs: { ...played.outputs, ...others.outputs }, stderr: { ...played.stderr, ...others.stderr } };
  }, 600_000);
  afterAll(async () => {
    for (const s of live) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
    await Promise.all(live.map((s) => s.exited));
    // A SIGKILLed server cannot destroy its sandboxes: their tmpfs mounts and cgroups would stay
    // until some later process's first sandbox swept them. They go now, and only theirs.
    const killed = new Set(live.map((s) => s.child.pid));
    if (serveTmp) sweepStaleSandboxes(serveTmp);
    sweepStaleGroups(cgroupParent(), (pid) => !killed.has(pid));
    for (const s of w?.servers ?? []) await s.close();
    await w?.world.close();
  });

  it(`TRL, AsyncGRPO (pickled factory), OpenRLHF and verl give eval's reward on every trajectory, ${many} at once too, and close every session`, () => {
    const out = scenario(loops, "play");
    const tasks = Object.keys(TRAJECTORIES[name]);
    // The fixture's trajectories are worth different rewards, so a constant could not pass.
    expect(new Set(tasks.map((t) => w.evalRewards[t])).size).toBeGreaterThan(1);
    for (const t of tasks) {
      expect(out.trl[t], `TRL ${t}`).toBeCloseTo(w.evalRewards[t]!, 6); // float32, as TRL stores it
      expect(out.openrlhf[t], `OpenRLHF ${t}`).toBeCloseTo(w.evalRewards[t]!, 6); // torch.tensor(reward).item(): float32
      expect(out.verl[t], `verl ${t}`).toBe(w.evalRewards[t]);
    }
    expect(out.verl_errors.every((e: number) => e === 0)).toBe(true);
    expect(out.openrlhf_keys).toEqual(KEYS(w.env));
    expect(out.verl_tools).toEqual(openingOf(w.env, w.env.tasks[0]).tools.map((t) => t.name).sort());
    if (name === "support-desk") {
      // The shipped registry file is what the generator writes for this environment (no drift).
      const shipped = parseYaml(readFileSync("examples/trainers/verl_tools.support-desk.yaml", "utf8"));
      expect(JSON.parse(JSON.stringify(out.verl_registry).replaceAll(urls.play, "http://127.0.0.1:8000"))).toEqual(shipped);
    }
    if (w.env.hooks.envResponse) expect(out.trl_pickled_members).toContain("reply");
    expect(out.trl_pickled_members).toContain("reset");
    expect(out.tasks_64).toHaveLength(many);
    for (const [i, t] of (out.tasks_64 as string[]).entries()) {
      expect(out.trl_64[i]).toBeCloseTo(w.evalRewards[t]!, 6);
      expect(out.openrlhf_64[i]).toBeCloseTo(w.evalRewards[t]!, 6);
      expect(out.verl_64[i]).toBe(w.evalRewards[t]);
    }
    expect(out.open_after_play).toBe(0);
    expect(out.open_after_64).toBe(0);
  });

  it(`verifiers (classic API, a stand-in of its loader, MultiTurnEnv loop and Rubric: verifiers is not installable here) gives eval's rewards, ${many} at once too; max_turns and expiry close sessions`, () => {
    const out = scenario(loops, "verifiers");
    for (const t of Object.keys(TRAJECTORIES[name])) expect(out.verifiers[t], `verifiers ${t}`).toBe(w.evalRewards[t]);
    expect(out.verifiers_errors.every((e: number) => e === 0)).toBe(true);
    expect(out.tasks_64).toHaveLength(many);
    for (const [i, t] of (out.tasks_64 as string[]).entries()) expect(out.verifiers_64[i]).toBe(w.evalRewards[t]);
    expect(out.verifiers_rows).toBe(w.env.tasks.length);
    expect(out.verifiers_prompt_roles.at(-1)).toBe("user");
    expect(out.verifiers_cut.rubricate_error).toBe(0);
    expect(out.verifiers_failed).toEqual({ metrics: { rubricate_reward: 0, rubricate_error: 1 }, error: "InfraError" });
    expect(out.open_after).toBe(0);
  });

  it(`verifiers v1 through prime-rl (stand-ins of its orchestrator and env server and of v1's episode, interaction, null harness and MCP tool servers; examples/trainers/prime-rl.rubricate.toml loaded as prime-rl loads it) gives eval's rewards, ${many} at once too, and closes every session`, () => {
    const out = scenario(v1, "play");
    for (const t of Object.keys(TRAJECTORIES[name])) expect(out.v1[t], `v1 ${t}`).toBe(w.evalRewards[t]);
    // prime-rl trains every trace, on the same reward.
    expect(out.v1_trained).toEqual(Object.keys(TRAJECTORIES[name]).map((t) => [w.evalRewards[t]]));
    expect(out.tasks_64).toHaveLength(many);
    for (const [i, t] of (out.tasks_64 as string[]).entries()) expect(out.v1_64[i]).toBe(w.evalRewards[t]);
    expect(out.v1_metrics).toEqual(w.env.rubric.criteria.map((c) => `rubricate/${c.id}`).sort());
    // The model sees the environment's tools under their own names.
    expect(out.advertised_tools).toEqual(openingOf(w.env, w.env.tasks[0]).tools.map((t) => t.name).sort());
    expect(out.v1_rows).toBe(w.env.tasks.length);
    expect(out.open_after).toBe(0);
  });

  it("verifiers v1: a run its max_turns cuts is scored as it stands; a finish without a reward, an expired session or a full server (429) fails the episode, so prime-rl trains none of it, and a new episode recovers", () => {
    const cut = scenario(v1, "cut");
    expect(cut.v1_cut.ok).toBe(true);
    expect(cut.v1_cut.traces[0].rewards.rubricate).toBe(cut.direct_cut);
    // A finish without a reward (the judge failed) fails the episode: nothing recorded, nothing trained.
    expect(cut.v1_no_reward).toMatchObject({ ok: false, errors: ["RuntimeError"], trained: [] });
    expect(cut.v1_no_reward.traces[0].rewards).toEqual({});
    expect(cut.open_after).toBe(0);
    const expired = scenario(v1, "fail:expire");
    expect(expired.expired).toBeGreaterThan(0);
    expect(expired.v1_failed).toMatchObject({ ok: false, trained: [] });
    expect(expired.v1_failed.traces[0].rewards).toEqual({});
    expect(expired.v1_recovered.ok).toBe(true);
    expect(expired.open_after).toBe(0);
    const limited = scenario(v1, "limit");
    expect(limited.cap_status).toBe(429);
    expect(limited.v1_limited).toMatchObject({ ok: false, errors: ["RubricateEnvError"], trained: [], traces: [] });
    expect(limited.v1_recovered.ok).toBe(true);
    expect(limited.open_after).toBe(0);
  });

  it("episodes the trainer cuts (OpenRLHF's token budget, verl's max_assistant_turns) keep the log keys and close their sessions", () => {
    const out = scenario(loops, "cut");
    expect(Object.keys(out.openrlhf_cut).sort()).toEqual(KEYS(w.env));
    expect(out.openrlhf_cut.rubricate_unfinished).toBe(1);
    expect(out.open_after_budget).toBe(0);
    // verl stopped after one turn: the session is scored as it stands and closed.
    expect(Object.keys(out.verl_cut).sort()).toEqual(["rubricate_error", "score"]);
    expect(out.verl_cut.rubricate_error).toBe(0);
    expect(out.open_after_verl_cut).toBe(0);
  });

  it("an expired session: TRL gets None, OpenRLHF the fallback with the same keys and the error flag, nothing raises", () => {
    const out = scenario(loops, "fail:expire");
    expect(out.trl_reward).toBeNull();
    expect(out.openrlhf_failed.extra_logs.rubricate_error).toBe(1);
    expect(out.openrlhf_failed.reward).toBe(0);
    expect(out.openrlhf_keys_match).toBe(true);
    expect(out.open_after).toBe(0);
  });

  it("a full server (429 past retries): every adapter fails the episode cleanly, then recovers", () => {
    const out = scenario(loops, "limit");
    expect(out.cap_status).toBe(429);
    expect(out.trl_reset).toBeNull();
    expect(out.trl_reward).toBeNull();
    expect(out.openrlhf_limited.extra_logs.rubricate_error).toBe(1);
    expect(out.verl_limited).toEqual({ score: 0, rubricate_error: 1 });
    const first = Object.keys(TRAJECTORIES[name])[0];
    expect(out.openrlhf_recovered.reward).toBeCloseTo(w.evalRewards[first]!, 6);
    expect(out.open_after).toBe(0);
  });

  it("serve --env SIGKILLed mid-episode: TRL None, OpenRLHF fallback with the same keys, verl a flagged 0.0; nothing raises", async () => {
    const out = scenario(loops, "fail:kill");
    expect(out.trl_reward).toBeNull();
    expect(out.openrlhf_failed.extra_logs.rubricate_error).toBe(1);
    expect(out.openrlhf_keys_match).toBe(true);
    expect(out.verl_failed).toEqual({ score: 0, rubricate_error: 1 });
    expect((await live[0].exited).signal).toBe("SIGKILL");
  });

  it("verifiers v1: serve --env SIGKILLed mid-episode fails the episode (nothing raises into prime-rl, nothing trained)", async () => {
    const out = scenario(v1, "fail:kill");
    expect(out.v1_failed).toMatchObject({ ok: false, trained: [] });
    expect(out.v1_failed.traces[0].errors.length).toBeGreaterThan(0);
    expect((await live[1].exited).signal).toBe("SIGKILL");
  });
}
