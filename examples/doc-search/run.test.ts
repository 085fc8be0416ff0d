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
  it("search ranks the passage that answers the question first, in English and in German, in Markdown and in HTML", async () => {
    const corpus = await loadCorpus("examples/doc-search/corpus");
    expect(corpus.docs.map((d) => [d.id, d.lang])).toEqual([
      ["api-limits.md", "en"],
      ["expense-policy.md", "en"],
      ["onboarding.md", "en"],
      ["reisekosten.html", "de"],
      ["security-handbook.md", "en"],
      ["vacation-policy.md", "en"],
    ]);
    expect(search(corpus, "daily meal allowance")[0]).toMatchObject({ id: "expense-policy.md#0", doc: "expense-policy.md", snippet: "The daily meal allowance on business trips is 60 euros, receipts required." });
    // Stems: "approving" finds "approval", "expense" finds "expenses"; the chunk is the section that says it.
    expect(search(corpus, "approving a large expense")[0].id).toBe("expense-policy.md#1");
    // The old ranking read only .md files and only the letters a-z: this document and these words were out of reach.
    expect(search(corpus, "Wie viel wird für eine Hotelübernachtung erstattet?")[0]).toMatchObject({ id: "reisekosten.html#0", doc: "reisekosten.html" });
    expect(search(corpus, "zzz qqq")).toEqual([]);
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
