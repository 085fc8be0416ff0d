import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEval } from "rubricate/env";
import { loadEnvironment } from "rubricate/env";
import { failedCriteria } from "rubricate/env";
import type { Environment } from "rubricate/env";
import type { TestServer } from "rubricate/testing";
import { connect, sampleFields, startWorld } from "../../tests/env/world.js";
import { agent, judgeAnswer, pushover } from "./agents.js";

let server: TestServer<unknown>;
let env: Environment;
beforeAll(async () => {
  env = await loadEnvironment("examples/support-desk/env.yaml");
  server = await startWorld({ agent: (m) => agent(m), pushover: (m) => pushover(m) }, (q, view) => judgeAnswer(q.id, sampleFields(view.sample).response));
});
afterAll(() => server.close());

describe("support-desk example", () => {
  it("the database's end state and the conversation decide the reward", async () => {
    const { engine, judge, policies } = connect(server.url, ["agent", "pushover"]);
    const { records } = await runEval(env, { policies, engine, judge });
    const by = (model: string, task: string) => records.find((r) => r.model.includes(model) && r.task === task)!;
    for (const task of env.tasks) {
      const r = by("agent", task.id);
      expect(failedCriteria(r)).toEqual([]);
      expect(r.reward).toBe(1);
    }
    expect(by("agent", "damaged-blender").toolCalls.map((c) => c.name)).toEqual(["find_orders", "issue_refund"]);
    expect(by("agent", "late-return").toolCalls.map((c) => c.name)).toEqual(["find_orders"]);

    // The right refund, but rude and with a voucher: 5 + 3 + 2 − 3 of 11 points. Its database holds
    // one refund of A100 although the agent refunded A100 too: each rollout has its own copy.
    const lucky = by("pushover", "damaged-blender");
    expect(failedCriteria(lucky)).toEqual(["polite", "promises-outside-policy"]);
    expect(lucky.reward).toBeCloseTo(7 / 11, 10);
    // A forbidden refund fails the required end-state check: reward 0 whatever else is said.
    for (const task of ["late-return", "not-delivered"]) {
      const r = by("pushover", task);
      expect(r.reward).toBe(0);
      expect(failedCriteria(r)).toContain("db-end-state");
      expect(failedCriteria(r)).toContain("follows-refund-policy");
    }
    expect(by("pushover", "late-return").verdicts.find((v) => v.id === "follows-refund-policy")?.reasoning).toMatch(/delivered 101 days ago/);
    engine.close();
  });
});
