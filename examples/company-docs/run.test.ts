import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIndex, chunkDocuments, loadIndex, readDocuments, search, type Chunk, type SearchIndex } from "rubricate/corpus";
import { failedCriteria, loadEnvironment, runEval, type Environment } from "rubricate/env";
import type { TestServer } from "rubricate/testing";
import { connect, sampleFields, startWorld, toolResults, type WireMessage } from "../../tests/env/world.js";
import type { LabelledQuery } from "./generate.js";
import { citedSources } from "./hooks.js";
import { answers, recallAt, wordOverlap } from "./recall.js";

const HERE = "examples/company-docs";
const queries = readFileSync(join(HERE, "queries.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as LabelledQuery);

let index: SearchIndex;
beforeAll(async () => {
  index = await loadIndex(join(HERE, "search-index.json"));
});

const bm25 = (q: string, k: number) => search(index, q, k).map((h) => h.id);

describe("company-docs corpus", () => {
  it("holds ≥ 200 documents in English and German, in all four formats, and ≥ 50 labelled queries in both languages", async () => {
    const docs = await readDocuments(join(HERE, "docs"));
    expect(docs.length).toBeGreaterThanOrEqual(200);
    const count = (f: (d: (typeof docs)[number]) => string | undefined) => docs.reduce<Record<string, number>>((n, d) => ({ ...n, [String(f(d))]: (n[String(f(d))] ?? 0) + 1 }), {});
    expect(count((d) => d.lang)).toEqual({ en: 107, de: 107 });
    expect(count((d) => extname(d.id))).toEqual({ ".html": 54, ".md": 132, ".txt": 24, ".pdf": 4 });
    expect(queries.length).toBeGreaterThanOrEqual(50);
    expect(new Set(queries.map((q) => q.lang))).toEqual(new Set(["en", "de"]));
    // Every label points at a passage that exists: a query whose evidence no chunk holds could never be found.
    for (const q of queries) expect(index.chunks.some((c) => answers(c, q)), q.id).toBe(true);
  });

  it("the shipped index is the index of the shipped documents (rebuilt, it has the same content hash)", async () => {
    const rebuilt = buildIndex(chunkDocuments(await readDocuments(join(HERE, "docs"))));
    expect(rebuilt.hash).toBe(index.hash);
    expect(rebuilt.chunks).toEqual(index.chunks);
  });

  it("search finds the answering passage in its top 5 for ≥ 90% of labelled queries in each language; the old word-overlap ranking does not", () => {
    const chunks = index.chunks as Chunk[];
    for (const lang of ["en", "de"] as const) {
      const set = queries.filter((q) => q.lang === lang);
      const { recall, missed } = recallAt(5, set, chunks, bm25);
      expect(recall, `${lang}: missed ${missed.map((m) => m.query).join(" | ")}`).toBeGreaterThanOrEqual(0.9);
    }
    // The same test with the ranking examples/doc-search had (same chunks): it fails the bar.
    const old = recallAt(5, queries, chunks, wordOverlap(chunks));
    expect(old.recall).toBeLessThan(0.9);
  });

  it("generate.ts writes the committed corpus, labels and tasks byte for byte", () => {
    const out = mkdtempSync(join(tmpdir(), "company-docs-"));
    try {
      execFileSync(process.execPath, ["--import", "tsx", join(HERE, "generate.ts"), "--out", out, "--no-index"], { stdio: "pipe" });
      const files = (dir: string) => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length)).sort();
      expect(files(join(out, "docs"))).toEqual(files(join(HERE, "docs")));
      for (const f of files(join(HERE, "docs"))) expect(readFileSync(join(out, "docs", f)).equals(readFileSync(join(HERE, "docs", f))), f).toBe(true);
      for (const f of ["queries.jsonl", "tasks.jsonl"]) expect(readFileSync(join(out, f), "utf8")).toBe(readFileSync(join(HERE, f), "utf8"));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("citations", () => {
  it("reads one or several documents from (source: …)", () => {
    expect(citedSources("28.5 kg (source: products/kestrel-a1.html).")).toEqual(["products/kestrel-a1.html"]);
    expect(citedSources("(sources: a.md, b.md and c.md)")).toEqual(["a.md", "b.md", "c.md"]);
    expect(citedSources("no citation")).toEqual([]);
  });
});

/** Searches the question, reads the top passage, answers with its sentence holding a number and cites its document. */
function researcher(messages: WireMessage[]) {
  const question = messages.find((m) => m.role === "user")?.content ?? "";
  const tools = messages.filter((m) => m.role === "tool");
  const turn = messages.filter((m) => m.role === "assistant").length;
  if (tools.length === 0) return { toolCalls: [{ id: `call_${turn}`, name: "search", arguments: { query: question } }] };
  const hits = JSON.parse(tools[0].content ?? "[]") as { id: string; doc: string; snippet: string }[];
  if (tools.length === 1) return { toolCalls: [{ id: `call_${turn}`, name: "read", arguments: { id: hits[0].id } }] };
  return `${hits[0].snippet} (source: ${hits[0].doc})`;
}

/** Answers from "memory", citing a document it never read. */
const guesser = () => "It is 9, as far as I know (source: products/kestrel-a1.html).";

describe("company-docs environment", () => {
  let server: TestServer<unknown>;
  let env: Environment;
  beforeAll(async () => {
    env = await loadEnvironment(join(HERE, "env.yaml"));
    server = await startWorld({ researcher: (m) => researcher(m), guesser }, (q, view) => {
      const f = sampleFields(view.sample);
      // correct: the response holds the reference answer's leading figure or address.
      if (q.id === "correct") return f.response.includes(/^[^ ]+/.exec(f.answer)![0]);
      return (f.response.match(/\d+/g) ?? []).some((n) => !toolResults(f.transcript).includes(n));
    });
  });
  afterAll(() => server.close());

  it("a policy that searches, reads the top passage and cites it earns 1 wherever that passage answers, in both languages; one that guesses earns 0", async () => {
    expect(new Set(env.tasks.map((t) => /[äöüß]|\b(der|die|das|wie|wer)\b/i.test(String(t.inputs.question)) ? "de" : "en"))).toEqual(new Set(["en", "de"]));
    const { engine, judge, policies } = connect(server.url, ["researcher", "guesser"]);
    const { records } = await runEval(env, { policies, engine, judge, rollouts: 1 });
    expect(records).toHaveLength(env.tasks.length * 2);
    const researched = records.filter((x) => x.model.includes("researcher"));
    for (const r of researched) expect(r.toolCalls.map((c) => c.name)).toEqual(["search", "read"]);
    // Search ranks one task's answer second (a newsletter mentioning the Wien garage comes first): the
    // policy trusting the top hit answers from the newsletter, and loses both the answer and the citation.
    const wrong = researched.filter((r) => r.reward !== 1);
    expect(wrong.map((r) => [r.task, failedCriteria(r), r.reward])).toEqual([["standorte-wien-standortleitfaden-0", ["correct", "cites-document"], 0]]);
    for (const r of researched.filter((x) => x.reward === 1)) expect(failedCriteria(r)).toEqual([]);
    expect(researched.length - wrong.length).toBe(env.tasks.length - 1);
    for (const r of records.filter((x) => x.model.includes("guesser"))) {
      expect(failedCriteria(r)).toEqual(["correct", "cites-document", "invents-facts"]);
      expect(r.reward).toBe(0);
    }
    engine.close();
  }, 60_000);
});
