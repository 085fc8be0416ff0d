/**
 * Re-scoring stored samples after a rubric edit pays only for what changed (issue 21, item 4):
 * with `judge_mode: single` every question is its own cached call, so rewording one question
 * re-asks that question alone; in batched mode the batch shares one call, so it is asked again.
 */
import { describe, expect, it } from "vitest";
import { createJudge } from "../../src/judge/create.js";
import { parseRubric } from "../../src/rubric/load.js";
import { score } from "../../src/score/score.js";
import { createScriptedProvider } from "../../src/testing/index.js";

const rubric = (mode: "single" | "batched", third: string) =>
  parseRubric(`id: r\njudge_mode: ${mode}\ninputs: [response]\ncriteria:\n  - { id: a, question: Is the response polite? }\n  - { id: b, question: Does the response name an order? }\n  - { id: c, question: ${third} }\n`);

function countingJudge() {
  let calls = 0;
  const provider = createScriptedProvider((req) => {
    calls++;
    const text = JSON.stringify(req.messages);
    const ids = [...text.matchAll(/<question id=\\"([a-z])\\"/g)].map((m) => m[1]);
    return ids.length > 1 || req.jsonSchema?.name === "verdicts" ? JSON.stringify({ answers: (ids.length ? ids : ["a", "b", "c"]).map((id) => ({ id, reason: "ok", verdict: true })) }) : JSON.stringify({ reason: "ok", verdict: true });
  });
  const judge = createJudge({ provider: "openai-compatible", base_url: "http://127.0.0.1:9/v1", model: "m" }, { provider, cache: false });
  return { judge, calls: () => calls };
}

const samples = Array.from({ length: 5 }, (_, i) => ({ response: `Sorry about order A${i}00.` }));

describe("re-scoring after a rubric edit", () => {
  it("single mode: rewording one question pays one call per sample, nothing for the unchanged ones", async () => {
    const { judge, calls } = countingJudge();
    const first = await score(rubric("single", "Does the response apologise?"), samples, { judge });
    expect(first.every((r) => r.errors.length === 0)).toBe(true);
    expect(calls()).toBe(15);
    await score(rubric("single", "Does the response apologise for the trouble?"), samples, { judge });
    expect(calls()).toBe(15 + 5);
    await judge.close?.();
  });

  it("batched mode: the edited batch is one new call per sample (the whole batch, asked again)", async () => {
    const { judge, calls } = countingJudge();
    await score(rubric("batched", "Does the response apologise?"), samples, { judge });
    expect(calls()).toBe(5);
    await score(rubric("batched", "Does the response apologise for the trouble?"), samples, { judge });
    expect(calls()).toBe(10);
    await judge.close?.();
  });
});
