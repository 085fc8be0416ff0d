import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { score } from "../../src/score/score.js";
import { createJudge } from "../../src/judge/create.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import { runCli, tempDir, writeJudgeFile } from "../helpers/cli.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer, type TestServer } from "../../src/testing/servers/openai-server.js";
import { decide, KEY, RUBRIC } from "./helpers.js";

process.env.RUBRICATE_TEST_KEY = KEY;
const servers: TestServer<unknown>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("offline batch mode", () => {
  it("rollouts piped through `rubricate score <rubric> -` come back as JSONL on stdout, in input order", async () => {
    // Random latency so calls finish out of order; the output must still follow the input.
    const judge = (await startOpenAIServer({ respond: judgeResponder(decide), latencyMs: [1, 40], seed: 7 })) as TestServer<unknown>;
    servers.push(judge);
    const dir = tempDir();
    const judgePath = writeJudgeFile(dir, judge.url, { max_concurrency: 8 });
    const rollouts = Array.from({ length: 60 }, (_, i) => ({
      id: `rollout-${i}`,
      question: `What is ${i} doubled?`,
      answer: String(2 * i),
      response: [`${2 * i}, thank you.`, `${2 * i + 1}`, `According to maths, ${2 * i}.`, `You idiot, ${2 * i}.`, "GARBLE"][i % 5],
    }));
    const input = rollouts.map((r) => JSON.stringify(r)).join("\n") + "\n";
    const run = await runCli(["score", RUBRIC, "-", "--judge", judgePath, "--cache", join(dir, "cache.db"), "-q"], { input, env: { RUBRICATE_TEST_KEY: KEY } });
    // Exit 3: the run finished but some samples (the GARBLE ones) have no reward.
    expect(run.code).toBe(3);
    const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual(rollouts.map((r) => r.id));
    expect(lines.map((l) => l.index)).toEqual(rollouts.map((_, i) => i));
    const inProcess = createJudge(judgePath, { cache: false });
    const expected = (await score(loadRubricSync(RUBRIC), rollouts, { judge: inProcess })).map((r) => r.reward);
    inProcess.close?.();
    expect(lines.map((l) => l.reward)).toEqual(expected);
    expect(lines.filter((l) => l.reward === null)).toHaveLength(12);
    expect(lines.filter((l) => l.reward === null).every((l) => l.errors.length > 0)).toBe(true);
  });
});
