import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDistill } from "../../src/distill/run.js";
import { readRollouts, runEval } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import { sampleOfRollout } from "../../src/env/records.js";
import type { Environment } from "../../src/env/types.js";
import { scoreSample } from "../../src/score/score.js";
import { runCli, tempDir } from "../helpers/cli.js";
import { needsBubblewrap } from "../sandbox/helpers.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { connect, startWorld, type WireMessage } from "./world.js";
import { guess, solve, type CtfAction } from "../../examples/ctf/solver.js";

const call = (turn: number, name: string, args: Record<string, unknown>) => ({ toolCalls: [{ id: `call_${turn}`, name, arguments: args }] });
/** Refunds whatever the customer names. */
function refunder(messages: WireMessage[]) {
  const first = messages.find((m) => m.role === "user")?.content ?? "";
  const tools = messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content ?? "null") as { order_id: string; price: number }[]);
  const turn = messages.filter((m) => m.role === "assistant").length;
  if (tools.length === 0) return call(turn, "find_orders", { email: /\(([^)]+)\)/.exec(first)?.[1] ?? "" });
  const target = tools[0].find((o) => first.includes(o.order_id));
  if (tools.length === 1 && target) return call(turn, "issue_refund", { order_id: target.order_id, amount: target.price, reason: "asked" });
  return "Done, refunded.";
}

let server: TestServer<unknown>;
beforeAll(async () => {
  const taskName = (m: WireMessage[]) => /^Task ([\w-]+):/.exec(m.find((x) => x.role === "user")?.content ?? "")?.[1] ?? "";
  const asReply = (a: CtfAction, turn: number) => {
    const { tool, ...args } = a;
    return { toolCalls: [{ id: `c${turn}`, name: tool, arguments: JSON.stringify(args) }] };
  };
  const turnOf = (m: WireMessage[]) => m.filter((x) => x.role === "assistant").length;
  server = await startWorld(
    {
      refunder,
      solver: (m) => asReply(solve(taskName(m), m.filter((x) => x.role === "tool").map((x) => x.content ?? "")), turnOf(m)),
      guesser: (m) => asReply(guess(taskName(m)), turnOf(m)),
    },
    () => true,
  );
});
afterAll(() => server.close());

describe("rollout records keep what re-scoring needs", () => {
  it("scoreSample and distill --rescore reproduce every eval reward from the records alone (no MISSING_INPUT)", async () => {
    const env: Environment = await loadEnvironment("examples/support-desk/env.yaml");
    const dir = tempDir("rubricate-records-");
    const out = join(dir, "rollouts.jsonl");
    const { engine, judge, policies } = connect(server.url, ["refunder"]);
    await runEval(env, { policies, engine, judge, out });
    const records = readRollouts(out);
    expect(records.length).toBe(env.tasks.length);
    expect(new Set(records.map((r) => r.reward)).size).toBeGreaterThan(1);
    for (const rec of records) {
      expect(rec.sample?.db).toBeDefined();
      const again = await scoreSample(env.rubric, sampleOfRollout(rec), { judge, checks: env.hooks.checks });
      expect(again.errors).toEqual([]);
      expect(again.reward).toBe(rec.reward);
    }
    const result = await runDistill({ input: out, rubric: env.rubric, judge, checks: env.hooks.checks, rescore: true, format: "openai", filters: {}, rows: {}, onProgress: () => {} });
    expect(result.report.errorCodes).toEqual({});
    expect(result.report.rows).toBe(records.length);

    // The CLI: custom checks come from the environment (`--checks`); without them the criterion is a named error, not a "no".
    const rubric = join(dir, "end-state.yaml");
    writeFileSync(rubric, "id: end-state-only\ninputs: [db]\ncriteria:\n  - { id: db-end-state, check: { custom: refunds-match-expected }, points: 1 }\n");
    const withChecks = await runCli(["score", rubric, out, "-o", join(dir, "a.jsonl"), "-q", "--checks", "examples/support-desk/env.yaml"]);
    expect(withChecks.stderr).toBe("");
    expect(withChecks.code).toBe(0);
    const expected = records.map((r) => (r.verdicts.find((v) => v.id === "db-end-state")!.status === "met" ? 1 : 0));
    expect((readRollouts(join(dir, "a.jsonl")) as unknown as { reward: number }[]).map((x) => x.reward)).toEqual(expected);
    const without = await runCli(["score", rubric, out, "-o", join(dir, "b.jsonl"), "-q"]);
    expect(without.code).toBe(3);
    expect(readFileSync(join(dir, "b.jsonl"), "utf8")).toMatch(/no custom check named \\"refunds-match-expected\\"/);
  });

  const bwrap = needsBubblewrap();
  bwrap.describe("with a sandbox", () => {
    it("`rubricate score` on a ctf eval's rollouts scores the final state the sandbox reported", async () => {
      const env: Environment = await loadEnvironment("examples/ctf/env.yaml");
      const dir = tempDir("rubricate-records-ctf-");
      const out = join(dir, "rollouts.jsonl");
      const { engine, judge, policies } = connect(server.url, ["solver", "guesser"]);
      await runEval(env, { policies, engine, judge, out, concurrency: 4 });
      const rubric = join(dir, "solved.yaml");
      writeFileSync(rubric, "id: solved-only\ninputs: [solved_exit_code, submitted]\ncriteria:\n  - { id: solved, check: { field: solved_exit_code, equals: \"0\" }, points: 1 }\n");
      const results = join(dir, "scores.jsonl");
      const r = await runCli(["score", rubric, out, "-o", results, "-q"]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const scores = readRollouts(results) as unknown as { reward: number }[];
      const recs = readRollouts(out);
      expect(scores.map((s) => s.reward)).toEqual(recs.map((x) => (x.model.includes("solver") ? 1 : 0)));
    });
  });
});
