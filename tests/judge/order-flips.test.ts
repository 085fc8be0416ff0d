import { afterEach, describe, expect, it, vi } from "vitest";
import { createJudge } from "../../src/judge/create.js";
import { orderFlips, orderFlipsMarkdown } from "../../src/judge/order-flips.js";
import { parseRubric } from "../../src/rubric/load.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";

const servers: TestServer<unknown>[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

// A judge with an order effect: whatever question comes first in a batched call gets a yes.
async function primacyJudge() {
  const server = (await startOpenAIServer({ respond: judgeResponder((q, view) => view.questions[0].id === q.id || q.id === "b") })) as TestServer<unknown>;
  servers.push(server);
  return createJudge({ provider: "openai-compatible", base_url: server.url, model: "judge", max_retries: 0 }, { cache: false });
}
const rubric = (extra = "") => parseRubric(`id: r\ninputs: [response]\n${extra}criteria:\n  - id: a\n    question: Is a there?\n  - id: b\n    question: Is b there?\n  - id: c\n    question: Is c there?\n`);
const samples = [{ response: "one" }, { response: "two" }, { response: "three" }];

describe("orderFlips", () => {
  it("counts verdicts that change when the order is reversed, per criterion", async () => {
    const f = await orderFlips(rubric(), samples, { judge: await primacyJudge() });
    expect(f.criteria).toEqual([
      { id: "a", n: 3, flips: 3, rate: 1, errors: 0 },
      { id: "b", n: 3, flips: 0, rate: 0, errors: 0 },
      { id: "c", n: 3, flips: 3, rate: 1, errors: 0 },
    ]);
    expect(f.all).toMatchObject({ n: 9, flips: 6 });
    expect(orderFlipsMarkdown(f)).toContain("| a | 3 | 3 | 100.0% | 0 |");
  });

  it("finds no flips when each question is asked alone", async () => {
    const f = await orderFlips(rubric("judge_mode: single\n"), samples, { judge: await primacyJudge() });
    expect(f.all).toMatchObject({ n: 9, flips: 0 });
  });

  it("needs at least two questions", async () => {
    const one = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - id: a\n    question: Is a there?\n");
    await expect(orderFlips(one, samples, { judge: await primacyJudge() })).rejects.toThrow(/at least two/);
  });
});

describe("rubricate flips", () => {
  it("prints the flip table for a samples file through a judge file", async () => {
    const { runFlips } = await import("../../src/cli/commands/flips.js");
    const { tempDir, writeJudgeFile, writeJsonl } = await import("../helpers/cli.js");
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const server = (await startOpenAIServer({ respond: judgeResponder((q, view) => view.questions[0].id === q.id) })) as TestServer<unknown>;
    servers.push(server);
    const dir = tempDir("flips-");
    const rubricPath = join(dir, "r.yaml");
    writeFileSync(rubricPath, "id: r\ninputs: [response]\ncriteria:\n  - id: a\n    question: Is a there?\n  - id: b\n    question: Is b there?\n");
    const samplesPath = writeJsonl(dir, "s.jsonl", samples);
    let printed = "";
    vi.stubEnv("RUBRICATE_TEST_KEY", "k");
    const code = await runFlips(samplesPath, { rubric: rubricPath, judge: writeJudgeFile(dir, server.url), cache: false, limit: 2, json: join(dir, "f.json") }, (t) => (printed += t));
    expect(code).toBe(0);
    expect(printed).toContain("| a | 2 | 2 | 100.0% | 0 |");
    expect(printed).toContain("| all | 4 | 4 | 100.0% | 0 |");
  });
});
