import { createServer, type Server } from "node:net";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readRollouts, runEval } from "../../src/env/eval.js";
import { parseEnvironment } from "../../src/env/load.js";
import type { Environment, RolloutRecord } from "../../src/env/types.js";
import { tempDir } from "../helpers/cli.js";
import { needsBubblewrap } from "../sandbox/helpers.js";
import { sandboxTraces } from "../sandbox/traces.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { connect, startWorld, type WireMessage } from "./world.js";

const bwrap = needsBubblewrap();
const isRoot = process.getuid?.() === 0;
const SECRET = "sk-escape-test-0123456789abcdef";

const ENV = (tasks: number, rolloutTimeoutMs = 20_000, commandTimeoutMs = 1500) => `
id: sandbox-faults
dataset: [${Array.from({ length: tasks }, (_, i) => `{ id: t${i}, inputs: { n: ${i} } }`).join(", ")}]
harness:
  prompt: "Task {{n}}"
  max_turns: 14
  tool_timeout_ms: 20000
  rollout_timeout_ms: ${rolloutTimeoutMs}
sandbox:
  limits: { cpu_seconds: 2, processes: 32, file_size_mb: 4, disk_mb: 8, output_kb: 4, command_timeout_ms: ${commandTimeoutMs} }
  setup: ["echo FLAG{inside} > flag.txt"]
  state:
    solved: { run: 'test "$SUBMITTED" = "$(cat flag.txt)"' }
rubric:
  id: sandbox-faults
  inputs: [solved_exit_code]
  criteria:
    - { id: solved, check: { field: solved_exit_code, equals: "0" }, points: 1 }
`;

const turnOf = (m: WireMessage[]) => m.filter((x) => x.role === "assistant").length;
const bash = (turn: number, command: string) => ({ toolCalls: [{ id: `b${turn}`, name: "bash", arguments: JSON.stringify({ command }) }] });
const submit = (turn: number, answer: string) => ({ toolCalls: [{ id: `s${turn}`, name: "submit", arguments: JSON.stringify({ answer }) }] });
const taskNumber = (m: WireMessage[]) => Number(/Task (\d+)/.exec(m.find((x) => x.role === "user")?.content ?? "")?.[1] ?? -1);
const lastTool = (m: WireMessage[]) => [...m].reverse().find((x) => x.role === "tool")?.content ?? "";

/** Every escape the issue lists, one command a turn; then it reads the flag and submits it. */
function escapes(port: number, hostPath: string): string[] {
  return [
    `cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ${SECRET.slice(0, 12)}; env`,
    `cat /etc/shadow; ls /root /home ${hostPath}`,
    `touch /usr/pwned-h18; touch /etc/pwned-h18; touch ${tmpdir()}/pwned-h18; echo tried`,
    `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), timeout=1)"`,
    "f(){ f|f& }; f; sleep 1; echo bomb", // the sleep keeps the shell (and its pid namespace) alive while the bomb meets the process limit
    "i=0; while head -c 1000000 /dev/zero > fill$i; do i=$((i+1)); done; echo disk full after $i; rm -f fill*",
    "kill -9 -1; echo killed-all",
    "(sleep 1000 &); sleep 1000",
    "cat flag.txt",
  ];
}

let server: TestServer<unknown>;
let loopback: Server;
let port = 0;
let connections = 0;
let hangs = true;
bwrap.describe("sandboxed environments", () => {
  beforeAll(async () => {
    process.env.RUBRICATE_ESCAPE_SECRET = SECRET;
    loopback = createServer((s) => {
      connections++;
      s.end("host\n");
    });
    await new Promise<void>((r) => loopback.listen(0, "127.0.0.1", () => r()));
    port = (loopback.address() as { port: number }).port;
    const plan = escapes(port, process.cwd());
    server = await startWorld(
      {
        escaper: (m) => {
          const t = turnOf(m);
          return t < plan.length ? bash(t, plan[t]) : submit(t, /FLAG\{\w+\}/.exec(lastTool(m))?.[0] ?? "none");
        },
        // Fills /work with empty files under long random names (no disk, megabytes of archive), then submits a wrong flag.
        hoarder: (m) => {
          const t = turnOf(m);
          const hoard = `python3 -c "import random, string\nfor i in range(12000): open(''.join(random.choices(string.ascii_letters, k=250)), 'w').close()\nprint('hoarded')"`;
          return t < 6 ? bash(t, hoard) : submit(t, "FLAG{guess}");
        },
        // Task n % 4: 0 solves; 1 stalls in a command past the rollout's limit (until `hangs` is cleared); 2 leaves a background
        // process and a fork bomb; 3 fills the disk and calls an unknown tool. Then each submits what it read.
        faulty: (m) => {
          const t = turnOf(m);
          const n = taskNumber(m);
          const kind = n % 4;
          if (kind === 1 && hangs) return bash(t, "sleep 100");
          if (kind === 2 && t === 0) return bash(t, "(sleep 1000 &); f(){ f|f& }; f");
          if (kind === 3 && t === 0) return bash(t, "while head -c 1000000 /dev/zero >> big; do :; done");
          if (kind === 3 && t === 1) return { toolCalls: [{ id: "u1", name: "no_such_tool", arguments: "{}" }] };
          if (!m.some((x) => x.role === "tool" && x.content?.includes("FLAG{"))) return bash(t, "cat flag.txt");
          return submit(t, /FLAG\{\w+\}/.exec(lastTool(m))?.[0] ?? "none");
        },
      },
      () => true,
    );
  });
  afterAll(() => {
    server?.close();
    loopback?.close();
    delete process.env.RUBRICATE_ESCAPE_SECRET;
  });

  it("a policy trying every escape is confined, killed at its limits, and the rollout goes on to a correct submit; the host is unchanged", async () => {
    const env = await parseEnvironment(ENV(1), { baseDir: process.cwd() });
    const { engine, judge, policies } = connect(server.url, ["escaper"]);
    const { records } = await runEval(env, { policies, engine, judge });
    const rec = records[0];
    expect(rec.error).toBeUndefined();
    expect(rec.stopReason).toBe("submitted");
    expect(rec.reward).toBe(1);
    const results = rec.toolCalls.map((c) => c.result);
    expect(results[0]).toMatch(/^exit code: 0\nstdout:\n0\n/);
    expect(results.join("\n")).not.toContain(SECRET);
    expect(results[1]).toMatch(/No such file or directory/);
    expect(results[1]).not.toMatch(/root:/);
    expect(results[2]).toMatch(/Read-only file system/);
    expect(results[3]).toMatch(/Connection refused|Network is unreachable/);
    expect(connections).toBe(0);
    if (isRoot) expect(results[4]).toMatch(/Cannot fork|Resource temporarily unavailable|killed/);
    // As root the work folder is a size-limited tmpfs; otherwise only the command's time limit stops the loop.
    expect(results[5]).toMatch(isRoot ? /No space left on device/ : /No space left on device|killed: the command ran longer/);
    expect(results[6]).toMatch(/killed-all/);
    expect(results[7]).toMatch(/killed: the command ran longer than 1500 ms/);
    expect(existsSync("/usr/pwned-h18") || existsSync("/etc/pwned-h18") || existsSync(join(tmpdir(), "pwned-h18"))).toBe(false);
    expect(sandboxTraces()).toEqual({ folders: [], mounts: [], processes: [], groups: [] });
  });

  it("an agent that makes its work folder too large to archive for the final-state checks gets reward 0, not an error that withholds the reward", async () => {
    const env = await parseEnvironment(ENV(1, 60_000), { baseDir: process.cwd() });
    const { engine, judge, policies } = connect(server.url, ["hoarder"]);
    const { records } = await runEval(env, { policies, engine, judge });
    const rec = records[0];
    expect(rec.messages.filter((x) => x.role === "tool" && String(x.content).includes("hoarded")).length).toBeGreaterThan(3);
    expect(rec.error).toBeUndefined();
    expect(rec.reward).toBe(0);
    expect(rec.forfeit).toEqual({ code: "SANDBOX", message: rec.feedback.replace(/^reward 0: /, "") });
    // Larger than the limit as an archive, or (on a loaded machine) slower to archive than the time limit: the agent's forfeit either way.
    expect(rec.feedback).toMatch(/the final-state checks cannot run: the work folder .* (is larger than \d+ bytes as an archive|could not be archived within the sandbox's limits \(it took longer than \d+ ms\))/);
  }, 120_000);

  it("after 24 rollouts with injected faults no process, mount or temp folder is left; the stalled ones are forfeits, which --resume keeps", async () => {
    // 8 tasks x 3 rollouts (it was 25 x 4, then 12 x 4): each fault 6 times with 12 rollouts at once,
    // so every slot is filled, cleaned and reused; a leaked process, mount or folder shows after a
    // single rollout. The rollout limit is well above a healthy rollout on a loaded CI machine: 4 s
    // cut a disk-filling rollout (t15) at load average 16. Commands may run past the rollout's
    // limit, so the stalling command is what the limit ends (none of the others takes a second).
    const env: Environment = await parseEnvironment(ENV(8, 8000, 60_000), { baseDir: process.cwd() });
    const dir = tempDir("rubricate-sbx-eval-");
    const out = join(dir, "rollouts.jsonl");
    hangs = true;
    const first = connect(server.url, ["faulty"]);
    const { records } = await runEval(env, { ...first, policies: first.policies, rollouts: 3, concurrency: 12, out });
    expect(records).toHaveLength(24);
    const kindOf = (r: RolloutRecord) => Number(r.task.slice(1)) % 4;
    for (const r of records) {
      if (kindOf(r) === 1) {
        // Stalling is no way out of a failing rollout's 0: the limit ended the agent's own command.
        expect(r.error, r.task).toBeUndefined();
        expect(r.forfeit).toEqual({ code: "ROLLOUT_TIMEOUT", message: expect.stringMatching(/ran longer than 8000 ms: the limit ended the bash tool call/) });
        expect(r.stopReason).toBe("timeout");
        expect(r.reward).toBe(0);
      } else {
        expect(r.error, r.task).toBeUndefined();
        expect(r.reward, r.task).toBe(1);
      }
    }
    expect(sandboxTraces()).toEqual({ folders: [], mounts: [], processes: [], groups: [] });

    // A forfeit is a result: with the stall gone (a re-run would now solve it), --resume plays nothing again.
    hangs = false;
    const second = connect(server.url, ["faulty"]);
    const resumed = await runEval(env, { ...second, policies: second.policies, rollouts: 3, concurrency: 8, out, resume: true });
    expect(resumed.resumed).toBe(24);
    const lines = readRollouts(out);
    expect(lines).toHaveLength(24);
    expect(lines.map((r) => r.reward)).toEqual(lines.map((r) => (kindOf(r) === 1 ? 0 : 1)));
    expect(sandboxTraces()).toEqual({ folders: [], mounts: [], processes: [], groups: [] });
  }, 120_000);
});

/** What each kind of the stall environment's tasks does first; then it writes a solve.py printing 42 and submits. */
const STALL_PLANS: Record<string, { name: string; args: Record<string, unknown> }[]> = {
  solves: [],
  sleeps: [{ name: "bash", args: { command: "sleep 1000" } }],
  loops: [{ name: "python", args: { code: "import time\nwhile True:\n    time.sleep(0.05)" } }],
  waits: [{ name: "wait", args: { forever: true } }],
  "deaf-waits": [{ name: "deaf_wait", args: {} }],
  // Its check runs its code, which never ends.
  "check-hangs": [{ name: "write_file", args: { path: "solve.py", content: "import time\ntime.sleep(1000)\n" } }, { name: "submit", args: { answer: "done" } }],
  "policy-hangs": [],
  // 5 of the 8 s limit in its own commands, none of them reaching the limit.
  "stalls-then-policy-hangs": [
    { name: "bash", args: { command: "sleep 2.5" } },
    { name: "bash", args: { command: "sleep 2.5" } },
  ],
  "llm-query-hangs": [{ name: "python", args: { code: 'print(llm_query("hang"))' } }],
  "setup-hangs": [],
  "finalize-hangs": [],
};
const SOLVE = [
  { name: "write_file", args: { path: "solve.py", content: "print(42)\n" } },
  { name: "submit", args: { answer: "done" } },
];

let stallServer: TestServer<unknown>;
/** Cleared to play the tasks again with the model fixed. */
let modelHangs = true;
bwrap.describe("a rollout's time limit: the agent's stalling is its forfeit, the harness's hang an error", () => {
  let env: Environment;
  let out: string;
  let control: { hang: boolean };
  const byTask: Record<string, RolloutRecord> = {};
  beforeAll(async () => {
    control = (await import("./fixtures/stall/hooks.js")).control;
    control.hang = true;
    stallServer = await startWorld(
      {
        staller: (m) => {
          // llm_query's call from the agent's Python cell: the model hangs.
          if (m.length === 1 && m[0].content === "hang") return modelHangs ? { fault: "hang" } : "42";
          const kind = /Kind: ([\w-]+)/.exec(m[0].content ?? "")?.[1] ?? "";
          if (kind === "policy-hangs" && modelHangs) return { fault: "hang" };
          const plan = [...STALL_PLANS[kind], ...SOLVE];
          const t = turnOf(m);
          // Stalls in shorter commands, then the policy's own call takes the rest of the limit.
          if (kind === "stalls-then-policy-hangs" && modelHangs && t === STALL_PLANS[kind].length) return { fault: "hang" };
          return t < plan.length ? { toolCalls: [{ id: `c${t}`, name: plan[t].name, arguments: JSON.stringify(plan[t].args) }] } : "done";
        },
      },
      () => true,
    );
    env = await parseEnvironment(readFileSync("tests/env/fixtures/stall/env.yaml", "utf8"), { baseDir: join(process.cwd(), "tests/env/fixtures/stall") });
    out = join(tempDir("rubricate-stall-"), "rollouts.jsonl");
    const { records } = await runEval(env, { ...connect(stallServer.url, ["staller"]), concurrency: env.tasks.length, out });
    for (const r of records) byTask[r.task] = r;
  }, 120_000);
  afterAll(() => {
    stallServer?.close();
  });

  const forfeited = (task: string, action: string | RegExp) => {
    const r = byTask[task];
    expect(r.error, task).toBeUndefined();
    if (typeof action === "string") expect(r.forfeit, task).toEqual({ code: "ROLLOUT_TIMEOUT", message: `task "${task}" ran longer than 8000 ms: the limit ended ${action}, the agent's own action` });
    else expect(r.forfeit, task).toEqual({ code: "ROLLOUT_TIMEOUT", message: expect.stringMatching(action) });
    expect([r.reward, r.passed, r.stopReason], task).toEqual([0, false, "timeout"]);
    expect(r.feedback, task).toBe(`reward 0: ${r.forfeit?.message}`);
  };
  const errored = (task: string) => {
    const r = byTask[task];
    expect(r.forfeit, task).toBeUndefined();
    expect(r.error, task).toEqual({ code: "ROLLOUT_TIMEOUT", message: `task "${task}" ran longer than 8000 ms` });
    expect([r.reward, r.passed, r.stopReason], task).toEqual([null, null, "timeout"]);
  };

  it("a rollout that does the work within the limit is scored as usual; no sandbox outlives the rollouts", () => {
    expect(byTask.solves).toMatchObject({ reward: 1, passed: true, stopReason: "submitted" });
    expect(byTask.solves.error ?? byTask.solves.forfeit).toBeUndefined();
    expect(sandboxTraces()).toEqual({ folders: [], mounts: [], processes: [], groups: [] });
  });

  it("the attack: an agent that sleeps in its bash call until the limit gets reward 0, not a reward that is left out", () => {
    forfeited("sleeps", "the bash tool call");
  });

  it("a Python cell that loops until the limit is the agent's forfeit too, and so is a tool handler that waits as long as the agent asks", () => {
    forfeited("loops", "the python tool call");
    expect(byTask.loops.toolCalls[0].result).toMatch(/the cell was stopped \(aborted\)/);
    forfeited("waits", "the wait tool call");
    // A handler that does not follow its signal is ended at the limit all the same (its own timeout is far later).
    forfeited("deaf-waits", "the deaf_wait tool call");
  });

  it("a final-state check that hangs on the agent's code past the limit is the agent's forfeit", () => {
    expect(byTask["check-hangs"].toolCalls.map((c) => c.name)).toEqual(["write_file", "submit"]);
    forfeited("check-hangs", "the final-state checks");
  });

  it("stalling in shorter commands until the limit lands in the policy's call is the agent's forfeit too: its own actions took most of the limit", () => {
    expect(byTask["stalls-then-policy-hangs"].toolCalls.map((c) => c.name)).toEqual(["bash", "bash"]);
    forfeited("stalls-then-policy-hangs", /^task "stalls-then-policy-hangs" ran longer than 8000 ms: the limit ended the agent's own actions, which took \d+ ms of it$/);
  });

  it("a model call that hangs past the limit — the policy's, or llm_query's from inside the agent's Python cell — stays a ROLLOUT_TIMEOUT error, reward null", () => {
    errored("policy-hangs");
    expect(byTask["llm-query-hangs"].toolCalls).toHaveLength(1);
    errored("llm-query-hangs");
  });

  it("a hook that hangs past the limit — setup before the agent's first turn, finalize after its last — stays an error", () => {
    errored("setup-hangs");
    expect(byTask["finalize-hangs"].toolCalls.map((c) => c.name)).toEqual(["write_file", "submit"]);
    errored("finalize-hangs");
  });

  it("--resume keeps the forfeits and the result, and plays the errored rollouts again", async () => {
    modelHangs = false;
    control.hang = false;
    try {
      const again = await runEval(env, { ...connect(stallServer.url, ["staller"]), concurrency: env.tasks.length, out, resume: true });
      expect(again.resumed).toBe(7);
      const lines = readRollouts(out);
      expect(lines).toHaveLength(env.tasks.length);
      const rewards = Object.fromEntries(lines.map((r) => [r.task, r.reward]));
      // Fixed, the model and the hooks let their rollouts finish now; the forfeits were not played again.
      expect(rewards).toEqual({ solves: 1, sleeps: 0, loops: 0, waits: 0, "deaf-waits": 0, "check-hangs": 0, "policy-hangs": 1, "stalls-then-policy-hangs": 0, "llm-query-hangs": 1, "setup-hangs": 1, "finalize-hangs": 1 });
      expect(lines.filter((r) => r.forfeit).map((r) => r.task).sort()).toEqual(["check-hangs", "deaf-waits", "loops", "sleeps", "stalls-then-policy-hangs", "waits"]);
    } finally {
      modelHangs = true;
      control.hang = true;
    }
  }, 120_000);
});
