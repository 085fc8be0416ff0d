import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planChunkGroups, readDraft, synthesizeTasks, synthTaskId, type SynthResult } from "../../src/corpus/synth.js";
import type { Chunk } from "../../src/corpus/types.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { tempDir } from "../helpers/cli.js";
import { connect, lastOf, sampleFields, startWorld, type WireMessage } from "../env/world.js";

/** One passage per document; the drafting script reads the document's name to decide how to misbehave. */
const DOCS: Record<string, string> = {
  "vacation.md": "Full-time employees get 25 days of paid vacation per calendar year.",
  "meals.md": "The daily meal allowance on business trips is 60 euros, with receipts.",
  "laptop.md": "A lost laptop must be reported to the security team within 1 hour.",
  "unsupported.md": "The office kitchen is cleaned every Friday afternoon.",
  "closed-book.md": "Our Paris office is in France, whose capital is Paris.",
  "duplicate.md": "Full-time employees get 25 days of paid vacation, as the vacation policy says.",
  "lint.md": "Expense reports are due on the fifth working day of the month.",
  "bad-id.md": "Badges are renewed every two years at the front desk.",
  "garbage.md": "Parking spaces are assigned by seniority.",
  "repaired.md": "The fleet API allows 600 requests per minute per API key.",
  "echo-passes.md": "All visitors sign in at the reception desk on the ground floor.",
  "reference-fails.md": "The cafeteria opens at 8 o'clock.",
};
const CHUNKS: Chunk[] = Object.entries(DOCS).map(([doc, text]) => ({ id: `${doc}#0`, doc, title: doc.replace(/\.md$/, ""), text }));

const task = (question: string, answer: string, chunks: string[], criteria = `  - id: states-fact\n    question: Does the response say that ${answer}?\n    importance: essential\n`) =>
  `question: ${question}\nanswer: ${answer}\nchunks: [${chunks.join(", ")}]\ncriteria:\n${criteria}`;

/** The drafting model: a task per passage, some of them wrong on purpose (named by the document). */
function drafter(messages: WireMessage[]): string {
  const prompt = messages.find((m) => m.role === "user")?.content ?? "";
  const id = /^\[(\S+)\]/m.exec(prompt)![1];
  const doc = id.replace(/#\d+$/, "");
  switch (doc) {
    case "vacation.md":
      return task("How many days of paid vacation does a full-time employee get per year?", "25 days of paid vacation per calendar year", [id]);
    case "duplicate.md":
      return task("How many days of paid vacation does a full-time employee get per year?", "25 days of paid vacation", [id]);
    case "meals.md":
      return "```yaml\n" + task("What is the daily meal allowance on business trips?", "60 euros, with receipts", [id]) + "```";
    case "laptop.md":
      return task("How quickly must a lost laptop be reported?", "within 1 hour", [id]);
    case "unsupported.md":
      return task("How often are the windows cleaned?", "every Tuesday morning", [id]);
    case "closed-book.md":
      return task("What is the capital of France?", "Paris", [id]);
    case "lint.md":
      return task("When are expense reports due?", "on the fifth working day of the month", [id], "  - id: explains-deadline\n    question: How well does the response explain the deadline?\n    importance: essential\n");
    case "bad-id.md":
      return task("How often are badges renewed?", "every two years", ["badges.md#7"]);
    case "echo-passes.md":
      // A criterion any response about the topic meets: it would reward an echo of the question.
      return task("Where do visitors sign in?", "visitors sign in at the reception desk on the ground floor", [id], "  - id: mentions-visitors\n    question: Does the response mention visitors?\n    importance: essential\n");
    case "reference-fails.md":
      return task("When does the cafeteria open?", "at 8 o'clock", [id], "  - id: cites-page\n    question: Does the response cite the page number of the handbook?\n    importance: essential\n");
    case "garbage.md":
      return "Sure! Here is a task: parking is by seniority.";
    case "repaired.md":
      // Unreadable first; the repair request (which says what was wrong) gets a good answer.
      return lastOf(messages, "user").includes("could not be read") ? task("How many requests per minute does the fleet API allow?", "600 requests per minute per API key", [id]) : "question: [unclosed";
  }
  return "?";
}

/** The closed-book model knows capitals and nothing of the company. */
const closed = (messages: WireMessage[]) => (lastOf(messages, "user").includes("capital of France") ? "Paris" : "I do not know.");

let server: TestServer<unknown>;
beforeAll(async () => {
  server = await startWorld({ drafter, closed }, (q, view) => {
    const f = sampleFields(view.sample);
    if (q.id === "passages-state-answer") return f.passages.includes(f.answer);
    if (q.id === "mentions-visitors") return f.response.toLowerCase().includes("visitors");
    if (q.id.startsWith("cites-page")) return false;
    // The closed-book check and the tasks' own "does the response say …" criteria.
    return f.response.includes(f.answer);
  });
});
afterAll(() => server.close());

/** A synthesis run against the local server: a fresh engine on `cache`, the given options. */
async function run(options: { cache?: string; count?: number; closedBook?: boolean; existing?: SynthResult["kept"]; reserved?: string[] } = {}) {
  const { engine, judge, policies } = connect(server.url, ["drafter", "closed"], { cache: options.cache });
  const before = server.stats.requests;
  const handed: SynthResult["kept"][] = [];
  try {
    const result = await synthesizeTasks(CHUNKS, {
      onKept: (tasks) => handed.push(tasks),
      engine,
      judge,
      drafter: policies[0],
      closedBook: options.closedBook === false ? undefined : policies[1],
      count: options.count ?? 20,
      reservedCriterionIds: options.reserved,
      existing: options.existing ? { ids: options.existing.map((t) => t.id), questions: options.existing.map((t) => t.inputs.question) } : undefined,
      concurrency: 3,
    });
    return { result, handed, requests: server.stats.requests - before };
  } finally {
    await engine.close();
  }
}

describe("synthesizeTasks", () => {
  it("keeps the good drafts and rejects each bad one for its own reason; an unreadable answer is retried, then an error", async () => {
    const { result } = await run({ reserved: ["states-fact"] });
    expect(result.requests).toBe(CHUNKS.length);
    expect(result.kept.map((t) => t.inputs.source).sort()).toEqual(["laptop.md", "meals.md", "repaired.md", "vacation.md"]);
    const reasons = Object.fromEntries(result.rejected.map((r) => [r.chunks[0].replace(/#\d+$/, ""), r.reason]));
    expect(reasons).toEqual({
      "unsupported.md": "unsupported",
      "closed-book.md": "closed-book",
      "duplicate.md": "duplicate",
      "lint.md": "lint",
      "badges.md": "bad-chunk-id",
      "echo-passes.md": "weak-criteria",
      "reference-fails.md": "weak-criteria",
    });
    const weak = (doc: string) => result.rejected.find((r) => r.chunks[0] === `${doc}#0`)!.detail;
    expect(weak("echo-passes.md")).toBe("a response that only echoes the question meets mentions-visitors");
    expect(weak("reference-fails.md")).toBe("the reference answer fails essential criteria cites-page");
    expect(result.rejected.find((r) => r.reason === "lint")!.detail).toMatch(/explains-deadline/);
    expect(result.rejected.find((r) => r.reason === "bad-chunk-id")!.detail).toBe('"badges.md#7" names no passage');
    expect(result.rejected.find((r) => r.reason === "closed-book")!.detail).toMatch(/Paris/);
    expect(result.errors).toEqual([{ request: expect.any(Number), chunks: ["garbage.md#0"], code: "PARSE", message: expect.stringMatching(/could not be read after 2 retries/) }]);

    const vacation = result.kept.find((t) => t.inputs.source === "vacation.md")!;
    expect(vacation).toEqual({
      id: synthTaskId("How many days of paid vacation does a full-time employee get per year?", ["vacation.md#0"]),
      inputs: { question: "How many days of paid vacation does a full-time employee get per year?", source: "vacation.md" },
      answer: "25 days of paid vacation per calendar year",
      // Renamed around the environment rubric's own criterion id.
      criteria: [expect.objectContaining({ id: "states-fact-2", question: "Does the response say that 25 days of paid vacation per calendar year?", points: 5, required: false })],
      meta: { synth: { chunks: ["vacation.md#0"], shown: ["vacation.md#0"], model: expect.stringMatching(/^openai-compatible:drafter@/), request: expect.any(Number), seed: 1, closedBook: "I do not know." } },
    });
  });

  it("drafts, answers and judges the same way again from the cache: a rerun pays nothing and adds nothing", async () => {
    const cache = join(tempDir("rubricate-synth-"), "cache.db");
    const first = await run({ cache });
    expect(first.requests).toBeGreaterThan(0);
    const second = await run({ cache, existing: first.result.kept });
    expect(second.requests).toBe(0);
    expect(second.result.kept).toEqual([]);
    expect(second.result.existing).toBe(first.result.kept.length);
    expect(second.result.rejected).toEqual(first.result.rejected);
    // The unreadable answer stays an error (never dropped), replayed from the cache too.
    expect(second.result.errors).toEqual(first.result.errors);

    // A run that stopped at its target, run again, finds its target met and drafts nothing new.
    const small = join(tempDir("rubricate-synth-"), "cache.db");
    const once = await run({ cache: small, count: 2, closedBook: false });
    expect(once.result.kept).toHaveLength(2);
    expect(once.result.requests).toBeLessThan(CHUNKS.length);
    const again = await run({ cache: small, count: 2, closedBook: false, existing: once.result.kept });
    expect(again.requests).toBe(0);
    expect(again.result).toMatchObject({ kept: [], existing: 2 });
  });

  it("counts a near-duplicate of a task already in the environment (case and punctuation apart) as a duplicate", async () => {
    const near = { id: "hand-written", inputs: { question: "HOW MANY days of paid vacation does a full-time  employee get per year", source: "x" } } as SynthResult["kept"][number];
    const { result } = await run({ existing: [near], closedBook: false });
    expect(result.rejected.filter((r) => r.reason === "duplicate").map((r) => r.chunks[0]).sort()).toEqual(["duplicate.md#0", "vacation.md#0"]);
    expect(result.kept.map((t) => t.inputs.source)).not.toContain("vacation.md");
  });

  it("without the closed-book probe, a task a model knows without the documents is kept", async () => {
    const { result } = await run({ closedBook: false });
    expect(result.kept.map((t) => t.inputs.source)).toContain("closed-book.md");
    expect(result.kept.find((t) => t.inputs.source === "closed-book.md")!.meta.synth.closedBook).toBeUndefined();
  });

  it("stops once it has kept the count asked for, handing over each wave's kept tasks as it goes", async () => {
    const { result, handed } = await run({ count: 1, closedBook: false });
    expect(result.kept).toHaveLength(1);
    expect(handed).toEqual([result.kept]);
    expect(result.requests).toBeLessThan(CHUNKS.length);
  });
});

describe("readDraft", () => {
  it("reads a fenced or bare YAML task and names what is missing", () => {
    expect(readDraft("```yaml\n" + task("Q?", "A", ["d#0"]) + "```")).toMatchObject({ draft: { question: "Q?", answer: "A", chunks: ["d#0"] } });
    const bad = readDraft("question: Q?\nanswer: A\n");
    expect(bad).toEqual({ problems: [expect.stringMatching(/^chunks: /), expect.stringMatching(/^criteria: /)] });
    expect(readDraft("question: [unclosed")).toEqual({ problems: [expect.stringMatching(/not valid YAML/)] });
  });

  it("rejects a task whose criteria reward nothing (pitfalls only: every response would score the same), through the linter", async () => {
    const pitfallsOnly = "  - id: wrong-figure\n    question: Does the response state a figure other than 25 days?\n    importance: pitfall\n";
    const local = await startWorld({ drafter: () => task("How many vacation days?", "25 days of paid vacation", ["vacation.md#0"], pitfallsOnly) }, () => true);
    const { engine, judge, policies } = connect(local.url, ["drafter"]);
    try {
      const result = await synthesizeTasks([CHUNKS[0]], { engine, judge, drafter: policies[0], count: 1 });
      expect(result.kept).toEqual([]);
      expect(result.rejected).toEqual([expect.objectContaining({ reason: "lint", detail: expect.stringMatching(/no criterion has positive points/) })]);
    } finally {
      await engine.close();
      await local.close();
    }
  });
});

describe("synthesizeTasks with a judge that cannot answer", () => {
  it("counts a task whose support check got no verdict as an error, never as a rejection", async () => {
    const local = await startWorld({ drafter }, () => "malformed");
    const { engine, judge, policies } = connect(local.url, ["drafter"]);
    try {
      const result = await synthesizeTasks([CHUNKS[0]], { engine, judge, drafter: policies[0], count: 1 });
      expect(result.kept).toEqual([]);
      expect(result.rejected).toEqual([]);
      expect(result.errors).toEqual([{ request: 0, chunks: ["vacation.md#0"], code: "JUDGE", message: expect.stringMatching(/^support check: /) }]);
    } finally {
      await engine.close();
      await local.close();
    }
  });
});

describe("planChunkGroups", () => {
  const many: Chunk[] = ["a", "b", "c", "d"].flatMap((doc) => [0, 1, 2].map((n) => ({ id: `${doc}#${n}`, doc, title: doc, text: `${doc} ${n}` })));

  it("spreads requests across the documents, pairs neighbours of one document every other time, never repeats a group", () => {
    const plan = planChunkGroups(many, 8, 7);
    expect(new Set(plan.slice(0, 4).map((g) => g[0].doc)).size).toBe(4);
    plan.forEach((g, i) => {
      expect(g).toHaveLength(i % 2 === 1 ? 2 : 1);
      if (g.length === 2) {
        expect(g[1].doc).toBe(g[0].doc);
        expect(Number(g[1].id.split("#")[1])).toBe(Number(g[0].id.split("#")[1]) + 1);
      }
    });
    const keys = plan.map((g) => g.map((c) => c.id).join(" "));
    expect(new Set(keys).size).toBe(keys.length);
    expect(planChunkGroups(many, 8, 7)).toEqual(plan);
    expect(planChunkGroups(many, 8, 8)).not.toEqual(plan);
  });

  it("plans no more requests than there are distinct groups", () => {
    expect(planChunkGroups(many.slice(0, 1), 5, 1)).toHaveLength(1);
  });
});
