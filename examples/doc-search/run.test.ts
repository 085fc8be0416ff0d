import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEval } from "rubricate/env";
import { loadEnvironment } from "rubricate/env";
import { compareModels, failedCriteria } from "rubricate/env";
import type { Environment } from "rubricate/env";
import type { TestServer } from "rubricate/testing";
import { connect, sampleFields, startWorld, toolResults, type WireMessage } from "../../tests/env/world.js";
import { loadCorpus, search } from "./hooks.js";

const words = (s: string) => s.toLowerCase().match(/[a-z0-9#-]+/g)?.filter((w) => w.length > 2) ?? [];

/** Searches, reads the top hit, answers with the line sharing most words with the question and cites it. */
function researcher(messages: WireMessage[]) {
  const question = messages.find((m) => m.role === "user")?.content ?? "";
  const tools = messages.filter((m) => m.role === "tool");
  const turn = messages.filter((m) => m.role === "assistant").length;
  if (tools.length === 0) return { toolCalls: [{ id: `call_${turn}`, name: "search", arguments: { query: question } }] };
  if (tools.length === 1) {
    const hits = JSON.parse(tools[0].content ?? "[]") as { doc: string }[];
    return { toolCalls: [{ id: `call_${turn}`, name: "read", arguments: { doc: hits[0].doc } }] };
  }
  const doc = tools[1].content ?? "";
  const q = new Set(words(question));
  const line = doc.split("\n").filter((l) => l.trim() && !l.startsWith("#")).sort((a, b) => words(b).filter((w) => q.has(w)).length - words(a).filter((w) => q.has(w)).length)[0];
  const read = messages.find((m) => m.tool_calls?.[0]?.function.name === "read")!.tool_calls![0];
  return `${line} (source: ${(JSON.parse(read.function.arguments) as { doc: string }).doc})`;
}

/** Answers at once from "memory": no tool, no citation, an invented number. */
const guesser = () => "Employees get 30 of them, as far as I know.";

let server: TestServer<unknown>;
let env: Environment;
beforeAll(async () => {
  env = await loadEnvironment("examples/doc-search/env.yaml");
  server = await startWorld({ researcher: (m) => researcher(m), guesser }, (q, view) => {
    const f = sampleFields(view.sample);
    const key = /\d+ \w+/.exec(f.answer)?.[0] ?? "";
    if (q.id === "correct") return f.response.includes(key);
    // invents-facts: a number in the response that no tool result shows.
    const seen = toolResults(f.transcript);
    return (f.response.match(/\d+/g) ?? []).some((n) => !seen.includes(n));
  });
});
afterAll(() => server.close());

describe("doc-search example", () => {
  it("search ranks the document that answers the question first", () => {
    const docs = loadCorpus("examples/doc-search/corpus");
    expect(docs).toHaveLength(5);
    expect(search(docs, "daily meal allowance")[0].doc).toBe("expense-policy.md");
    expect(search(docs, "zzz qqq")).toEqual([]);
  });

  it("a policy that searches, reads and cites earns 1; one that answers from memory earns 0", async () => {
    const { engine, judge, policies } = connect(server.url, ["researcher", "guesser"]);
    const { records } = await runEval(env, { policies, engine, judge, rollouts: 1 });
    expect(records).toHaveLength(env.tasks.length * 2);
    for (const r of records.filter((x) => x.model.includes("researcher"))) {
      expect(r.toolCalls.map((c) => c.name)).toEqual(["search", "read"]);
      expect(r.toolCalls.every((c) => c.error === undefined)).toBe(true);
      expect(r.turns).toBe(3);
      expect(r.stopReason).toBe("final_answer");
      expect(failedCriteria(r)).toEqual([]);
      expect(r.reward).toBe(1);
      expect(r.usage.policy.calls).toBe(3);
      expect(r.usage.policy.costUsd).toBeGreaterThan(0);
    }
    for (const r of records.filter((x) => x.model.includes("guesser"))) {
      expect(r.toolCalls).toEqual([]);
      expect(failedCriteria(r)).toEqual(["correct", "cites-document", "invents-facts"]);
      expect(r.reward).toBe(0);
    }
    const cmp = compareModels(records, { passThreshold: 0.7 });
    expect(cmp.models.map((m) => m.reward?.mean)).toEqual([1, 0]);
    expect(cmp.models[0].criteria.map((c) => c.rate)).toEqual([1, 1, 1]);
    engine.close();
  });
});
