/** Batching as a choice (issue 23): judge_mode per rubric and criterion, max_criteria, order shuffled per vote. */
import { afterEach, describe, expect, it } from "vitest";
import { createJudge } from "../../src/judge/create.js";
import { callGroups } from "../../src/judge/llm-judge.js";
import { parseRubric } from "../../src/rubric/load.js";
import { scoreSample } from "../../src/score/score.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { judgeResponder, viewRequest } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";

const servers: TestServer<unknown>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function judgeServer() {
  const server = (await startOpenAIServer({ respond: judgeResponder((q) => q.id !== "e") })) as TestServer<unknown>;
  servers.push(server);
  return server;
}
const judgeAt = (url: string, extra: Record<string, unknown> = {}) => createJudge({ provider: "openai-compatible", base_url: url, model: "judge", max_retries: 0, ...extra }, { cache: false });
const rubricYaml = (head: string, modes: Record<string, string> = {}) =>
  [`id: r`, `inputs: [response]`, head, `criteria:`, ...["a", "b", "c", "d", "e"].flatMap((id) => [`  - id: ${id}`, `    question: Is ${id} there?`, ...(modes[id] ? [`    judge_mode: ${modes[id]}`] : [])])].filter(Boolean).join("\n");
const asked = (server: TestServer<unknown>) => server.requests.map((r) => viewRequest(r.body as Record<string, unknown>).questions.map((q) => q.id));

describe("judge_mode and max_criteria", () => {
  it("batches every question in one call by default", async () => {
    const server = await judgeServer();
    const r = await scoreSample(parseRubric(rubricYaml("")), { response: "x" }, { judge: judgeAt(server.url) });
    expect(asked(server)).toEqual([["a", "b", "c", "d", "e"]]);
    expect(r.verdicts.map((v) => v.status)).toEqual(["met", "met", "met", "met", "unmet"]);
  });

  it("asks a criterion with judge_mode: single in a call of its own", async () => {
    const server = await judgeServer();
    await scoreSample(parseRubric(rubricYaml("", { e: "single" })), { response: "x" }, { judge: judgeAt(server.url) });
    expect(asked(server).sort()).toEqual([["a", "b", "c", "d"], ["e"]]);
  });

  it("asks every question alone with the rubric's judge_mode: single, unless a criterion says batched", async () => {
    const server = await judgeServer();
    await scoreSample(parseRubric(rubricYaml("judge_mode: single", { a: "batched", b: "batched" })), { response: "x" }, { judge: judgeAt(server.url) });
    expect(asked(server).sort()).toEqual([["a", "b"], ["c"], ["d"], ["e"]]);
  });

  it("judge_mode: auto asks pitfalls and required criteria alone, the rest together", async () => {
    const server = await judgeServer();
    const yaml = rubricYaml("judge_mode: auto").replace("question: Is b there?", "question: Is b there?\n    points: -2").replace("question: Is d there?", "question: Is d there?\n    required: true");
    await scoreSample(parseRubric(yaml), { response: "x" }, { judge: judgeAt(server.url) });
    expect(asked(server).sort()).toEqual([["a", "c", "e"], ["b"], ["d"]]);
  });

  it("caps a batched call at max_criteria questions", async () => {
    const server = await judgeServer();
    const r = await scoreSample(parseRubric(rubricYaml("max_criteria: 2")), { response: "x" }, { judge: judgeAt(server.url) });
    expect(asked(server).sort()).toEqual([["a", "b"], ["c", "d"], ["e"]]);
    expect(r.verdicts.map((v) => v.status)).toEqual(["met", "met", "met", "met", "unmet"]);
  });

  it("refuses a bad max_criteria with the file position", () => {
    expect(() => parseRubric(rubricYaml("max_criteria: 0"), { filename: "r.yaml" })).toThrow(/r\.yaml:3:\d+/);
  });
});

describe("criterion order per vote", () => {
  const qs = ["a", "b", "c", "d", "e", "f"].map((id) => ({ id, question: `Is ${id}?` }));
  it("keeps the rubric's order on vote 0 and shuffles it, reproducibly, on later votes", () => {
    expect(callGroups(qs, undefined, 0, { response: "x" })[0].map((q) => q.id)).toEqual(["a", "b", "c", "d", "e", "f"]);
    const orders = [1, 2, 3, 4].map((v) => callGroups(qs, undefined, v, { response: "x" })[0].map((q) => q.id).join(""));
    expect(new Set(orders).size).toBeGreaterThan(1);
    expect(orders.some((o) => o !== "abcdef")).toBe(true);
    for (const o of orders) expect([...o].sort().join("")).toBe("abcdef");
    expect([1, 2, 3, 4].map((v) => callGroups(qs, undefined, v, { response: "x" })[0].map((q) => q.id).join(""))).toEqual(orders);
  });

  it("sends the shuffled order to the judge on later votes, and reads the answers by id", async () => {
    const server = await judgeServer();
    const r = await scoreSample(parseRubric(rubricYaml("")), { response: "x" }, { judge: judgeAt(server.url, { samples: 3 }) });
    const orders = asked(server).map((o) => o.join(""));
    expect(orders[0]).toBe("abcde");
    expect(orders.slice(1).some((o) => o !== "abcde")).toBe(true);
    expect(r.verdicts.map((v) => v.status)).toEqual(["met", "met", "met", "met", "unmet"]);
  });
});
