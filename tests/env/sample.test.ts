/**
 * An eval rollout, a trainer's session and a re-scored record must hand the rubric the same
 * sample: a `tool_calls` check that reads the tools' results (answer_uses) gave 1 in an eval
 * and 0 in a session and on re-scoring while each built its own sample.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnvironment } from "../../src/env/load.js";
import { sampleOfRollout } from "../../src/env/records.js";
import { rollout } from "../../src/env/rollout.js";
import { startSession } from "../../src/env/session.js";
import type { Environment } from "../../src/env/types.js";
import { parseRubric } from "../../src/rubric/load.js";
import { scoreSample } from "../../src/score/score.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { connect, lastOf, startWorld, type WireMessage } from "./world.js";

const lookup = { id: "c1", name: "lookup", arguments: JSON.stringify({ word: "alpha" }) };
/** Looks the word up, then answers with what the tool said. */
const quoter = (messages: WireMessage[]) => (messages.some((m) => m.role === "tool") ? `It says: ${lastOf(messages, "tool")}` : { toolCalls: [lookup] });

let server: TestServer<unknown>;
let env: Environment;
beforeAll(async () => {
  const loaded = await loadEnvironment("tests/env/fixtures/tools/env.yaml");
  const rubric = parseRubric("id: uses-result\ninputs: [response, tool_calls, turns]\ncriteria:\n  - { id: uses-lookup, check: { tool_calls: { answer_uses: lookup } }, points: 1 }\n  - { id: turns, check: { field: turns, equals: \"2\" }, points: 1 }\n", { filename: "uses-result.yaml" });
  env = { ...loaded, rubric };
  server = await startWorld({ quoter }, () => true);
});
afterAll(() => server.close());

describe("one sample for every way an episode is played", () => {
  it("an eval rollout, a session played the same way, and its record re-scored all see the tools' results", async () => {
    const { engine, judge, policies } = connect(server.url, ["quoter"]);
    const task = env.tasks[0];
    const rec = await rollout(env, policies[0], task, { engine, judge });
    expect(rec.verdicts.map((v) => [v.id, v.status])).toEqual([["uses-lookup", "met"], ["turns", "met"]]);
    expect(rec.reward).toBe(1);

    const session = await startSession(env, task, { engine, judge });
    const stepped = await session.step({ content: "", toolCalls: [lookup] });
    expect(stepped.done).toBe(false);
    await session.step({ content: `It says: ${String(stepped.messages[0].content)}` });
    const scored = await session.finish();
    expect(scored.verdicts.map((v) => [v.id, v.status])).toEqual([["uses-lookup", "met"], ["turns", "met"]]);
    // The same sample, field for field, as the record's (less what only a record has: env, model, rollout).
    const { env: _env, model: _model, rollout: _rollout, ...fromRecord } = sampleOfRollout(rec);
    expect(scored.sample).toEqual(fromRecord);

    const rescored = await scoreSample(env.rubric, sampleOfRollout(rec), { judge, checks: env.hooks.checks });
    expect(rescored.reward).toBe(rec.reward);
    engine.close();
  });
});
