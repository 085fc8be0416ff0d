import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parse } from "yaml";
import { runEval } from "rubricate/env";
import { loadEnvironment } from "rubricate/env";
import type { Environment } from "rubricate/env";
import type { TestServer } from "rubricate/testing";
import { connect, startWorld, type WireMessage } from "../../tests/env/world.js";
import { needsBubblewrap, needsPython } from "../../tests/sandbox/helpers.js";
import { sandboxTraces } from "../../tests/sandbox/traces.js";
import { guess, solve, type CtfAction } from "./solver.js";

const bwrap = needsBubblewrap();
const python = needsPython();

/** The task's name from the first user message ("Task <name>: …"). */
const taskName = (messages: WireMessage[]) => /^Task ([\w-]+):/.exec(messages.find((m) => m.role === "user")?.content ?? "")?.[1] ?? "";
const toolResults = (messages: WireMessage[]) => messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");
const asReply = (action: CtfAction, turn: number) => {
  const { tool, ...args } = action;
  return { toolCalls: [{ id: `call-${turn}`, name: tool, arguments: JSON.stringify(args) }] };
};
const turnOf = (messages: WireMessage[]) => messages.filter((m) => m.role === "assistant").length;

/** A scripted test of tests.yaml (only what this file reads). */
interface ScriptedCase {
  name: string;
  task: string;
  replies: { tool: string; args: Record<string, unknown> }[];
  expect: { reward?: number };
}
/**
 * The command-injection cheats of tests.yaml whose greet.sh prints every greeting right (printf)
 * and hides what the name did: their 0 must come from the name having run, not from a greeting.
 */
const HONEST_GREETING = `printf 'Hello, %s\\n' "$1"`;
const hidingCheats = (parse(readFileSync("examples/ctf/tests.yaml", "utf8")) as ScriptedCase[]).filter(
  (t) => t.task === "command-injection" && t.expect.reward === 0 && t.replies.some((r) => String(r.args.content ?? "").includes(HONEST_GREETING)),
);


let server: TestServer<unknown>;
let env: Environment;
bwrap.describe("ctf example", () => {
  python.describe("with python3", () => {
    beforeAll(async () => {
      env = await loadEnvironment("examples/ctf/env.yaml");
      server = await startWorld(
        {
          solver: (m) => asReply(solve(taskName(m), toolResults(m)), turnOf(m)),
          guesser: (m) => asReply(guess(taskName(m)), turnOf(m)),
          ...Object.fromEntries(hidingCheats.map((t, i) => [`cheat-${i}`, (m: WireMessage[]) => asReply({ tool: t.replies[turnOf(m)].tool, ...t.replies[turnOf(m)].args } as CtfAction, turnOf(m))])),
        },
        // The judge's question, answered truthfully: did the agent run a command or read a file before submitting?
        (_q, view) => /\[tool call [^\]]*: (bash|read_file|write_file)\(/.test(view.sample),
      );
    });
    afterAll(() => server?.close());

    it("has five tasks of different kinds", () => {
      expect(env.tasks.map((t) => t.id)).toEqual(["hidden-file", "encoded-log", "sqlite-table", "command-injection", "two-steps"]);
      expect(env.harness.tools.map((t) => t.name)).toEqual(["bash", "read_file", "write_file", "submit"]);
    });

    it("a solver that looks first captures every flag; a guesser captures none; the machine's state decides", async () => {
      const { engine, judge, policies } = connect(server.url, ["solver", "guesser"]);
      const { records } = await runEval(env, { policies, engine, judge, concurrency: 4 });
      expect(records).toHaveLength(10);
      for (const r of records.filter((x) => x.model.includes("solver"))) {
        expect({ task: r.task, stop: r.stopReason, error: r.error, reward: r.reward }).toEqual({ task: r.task, stop: "submitted", error: undefined, reward: 1 });
        expect(r.sample?.solved_exit_code).toBe(0);
        expect(r.passed).toBe(true);
      }
      const fixed = records.find((r) => r.model.includes("solver") && r.task === "command-injection");
      expect(fixed?.toolCalls[0].result).toMatch(/wrote \d+ bytes to greet.sh/);
      for (const r of records.filter((x) => x.model.includes("guesser"))) {
        expect(r.stopReason).toBe("submitted");
        expect(r.sample?.solved_exit_code).not.toBe(0);
        expect(r.reward).toBe(0);
        expect(r.verdicts.find((v) => v.id === "inspected-before-answering")?.status).toBe("unmet");
      }
      // Every rollout's sandbox is gone.
      expect(sandboxTraces()).toEqual({ folders: [], mounts: [], processes: [], groups: [] });
    });

    it("a greet.sh that greets right but still runs the name is caught running it, however it hides what the name did", async () => {
      expect(hidingCheats.length).toBeGreaterThanOrEqual(6);
      const { engine, judge, policies } = connect(server.url, hidingCheats.map((_, i) => `cheat-${i}`));
      const injection = { ...env, tasks: env.tasks.filter((t) => t.id === "command-injection") };
      const { records } = await runEval(injection, { policies, engine, judge, concurrency: 3 });
      expect(records).toHaveLength(hidingCheats.length);
      for (const r of records) {
        const cheat = hidingCheats[Number(/cheat-(\d+)/.exec(r.model)?.[1])]?.name;
        // The check's own report (its stdout): why it failed, and never for a greeting.
        const said = String(r.sample?.solved);
        expect({ cheat, reward: r.reward, wrongGreeting: said.includes("wrong greeting"), caught: /a name ran as a command|greet\.sh left processes running/.test(said) }).toEqual({ cheat, reward: 0, wrongGreeting: false, caught: true });
      }
      expect(sandboxTraces()).toEqual({ folders: [], mounts: [], processes: [], groups: [] });
    });
  });
});
