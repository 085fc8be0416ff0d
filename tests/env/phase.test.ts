/**
 * Whose time ran out (src/env/phase.ts): the agent's own actions are timed without the harness's
 * work inside them, and a limit is the agent's stall when it ends the agent's action or when the
 * agent's actions took half of it or more.
 */
import { describe, expect, it } from "vitest";
import { EpisodePhase, stallOf } from "../../src/env/phase.js";

/** A clock the test moves, and a way to hold an action or harness work open until released. */
function world() {
  let t = 0;
  const phase = new EpisodePhase(() => t);
  const held = () => {
    let release!: () => void;
    const done = new Promise<void>((r) => (release = r));
    return { done, release };
  };
  return { phase, held, advance: (ms: number) => (t += ms) };
}

describe("EpisodePhase", () => {
  it("counts the agent's own time across its actions, not the model calls inside them nor the time between them", async () => {
    const { phase, held, advance } = world();
    const tool = held();
    const running = phase.agent("the bash tool call", () => tool.done);
    advance(300);
    expect(phase.agentAction()).toBe("the bash tool call");
    const model = held();
    const call = phase.harness(() => model.done); // llm_query from the agent's cell
    expect(phase.agentAction()).toBeUndefined();
    advance(1000);
    model.release();
    await call;
    advance(200);
    tool.release();
    await running;
    advance(5000); // the policy's next call: the harness's time
    expect(phase.agentAction()).toBeUndefined();
    expect(phase.agentTimeMs()).toBe(500);
  });

  it("a limit is the agent's stall when it ends the agent's action, or when the agent's actions took half of it; else the harness's", async () => {
    const { phase, held, advance } = world();
    const stalls = async (own: number, thenHarness: number, limit: number) => {
      const tool = held();
      const running = phase.agent("the bash tool call", () => tool.done);
      advance(own);
      tool.release();
      await running;
      advance(thenHarness);
      return stallOf(phase, limit);
    };
    // Many short stalls and the limit landing in the policy's call: still the agent's.
    expect(await stalls(600, 400, 1000)).toBe("the agent's own actions, which took 600 ms of it");
    const fresh = world();
    const tool = fresh.held();
    void fresh.phase.agent("the python tool call", () => tool.done);
    fresh.advance(10);
    expect(stallOf(fresh.phase, 1000)).toBe("the python tool call, the agent's own action");
    tool.release();
    const slowModel = world();
    const quick = slowModel.held();
    const r = slowModel.phase.agent("the bash tool call", () => quick.done);
    slowModel.advance(100);
    quick.release();
    await r;
    slowModel.advance(900);
    expect(stallOf(slowModel.phase, 1000)).toBeUndefined();
  });
});
