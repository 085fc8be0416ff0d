/**
 * Which search library document-search environments use: recall@5, index time and query time of
 * MiniSearch, Orama and FlexSearch over the company-docs corpus generated at ≥ 1,000 documents
 * (English and German), with the old word-overlap ranking of examples/doc-search as the peer.
 * Every library gets the same chunks and the same terms (Unicode words, English and German
 * Snowball stems, stop words out: `termsOf`), so the figures compare the ranking and the engine;
 * Orama is also run with its own English tokenizer (stemming on), as a user would start. Orama
 * searches with `threshold: 1` (any term, as BM25 ranks; 3.1.18 behaves so by default although its
 * types say 0) and with `threshold: 0` (every term); FlexSearch with `suggest: true` (any term; its
 * default intersects).
 * A hit is a top-5 chunk from the labelled document holding the answer's phrase.
 *
 * Run: npx tsx bench/doc-search.ts [--products 940] [--newsletters 60]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { create, insertMultiple, search as oramaSearch } from "@orama/orama";
import FlexSearch from "flexsearch";
import { buildIndex, chunkDocuments, readDocuments, search, type Chunk } from "../src/corpus/index.js";
import { termsOf } from "../src/corpus/language.js";
import type { LabelledQuery } from "../examples/company-docs/generate.js";
import { recallAt, wordOverlap, type RankChunks } from "../examples/company-docs/recall.js";
import { machine, median, ROOT, round } from "./lib/common.js";

const termsOfText = (s: string) => (s.match(/[\p{L}\p{N}]+/gu) ?? []).flatMap(termsOf);

interface Candidate {
  name: string;
  /** Builds the index and returns the ranking over it. */
  build: (chunks: Chunk[]) => Promise<RankChunks> | RankChunks;
}

const CANDIDATES: Candidate[] = [
  {
    name: "MiniSearch 7.2 (rubricate/corpus)",
    build: (chunks) => {
      const index = buildIndex(chunks);
      return (q, k) => search(index, q, k).map((h) => h.id);
    },
  },
  {
    // The same index without the snippet each hit carries: the engine's own share of a search.
    name: "MiniSearch 7.2, engine only (no snippets)",
    build: (chunks) => {
      const index = buildIndex(chunks);
      return (q, k) => index.engine.search(q).slice(0, k).map((r) => String(r.id));
    },
  },
  {
    name: "Orama 3.1, rubricate terms",
    build: async (chunks) => {
      const db = create({
        schema: { cid: "string", title: "string", text: "string" } as const,
        components: { tokenizer: { language: "english", normalizationCache: new Map(), tokenize: (raw: string) => termsOfText(raw) } },
      });
      await insertMultiple(db, chunks.map((c) => ({ cid: c.id, title: c.title, text: c.text })));
      return (q, k) => (oramaSearch(db, { term: q, properties: ["title", "text"], boost: { title: 2 }, limit: k, threshold: 1 }) as { hits: { document: { cid: string } }[] }).hits.map((h) => h.document.cid);
    },
  },
  {
    name: "Orama 3.1, rubricate terms, threshold 0 (every term)",
    build: async (chunks) => {
      const db = create({
        schema: { cid: "string", title: "string", text: "string" } as const,
        components: { tokenizer: { language: "english", normalizationCache: new Map(), tokenize: (raw: string) => termsOfText(raw) } },
      });
      await insertMultiple(db, chunks.map((c) => ({ cid: c.id, title: c.title, text: c.text })));
      return (q, k) => (oramaSearch(db, { term: q, properties: ["title", "text"], boost: { title: 2 }, limit: k, threshold: 0 }) as { hits: { document: { cid: string } }[] }).hits.map((h) => h.document.cid);
    },
  },
  {
    name: "Orama 3.1, its English tokenizer (stemming on)",
    build: async (chunks) => {
      const db = create({ schema: { cid: "string", title: "string", text: "string" } as const, components: { tokenizer: { language: "english", stemming: true } } });
      await insertMultiple(db, chunks.map((c) => ({ cid: c.id, title: c.title, text: c.text })));
      return (q, k) => (oramaSearch(db, { term: q, properties: ["title", "text"], boost: { title: 2 }, limit: k, threshold: 1 }) as { hits: { document: { cid: string } }[] }).hits.map((h) => h.document.cid);
    },
  },
  {
    name: "FlexSearch 0.8, rubricate terms",
    build: (chunks) => {
      const index = new FlexSearch.Document({ document: { id: "n", index: ["title", "text"] }, tokenize: "strict", encode: termsOfText, resolution: 9 });
      chunks.forEach((c, n) => index.add({ n, title: c.title, text: c.text }));
      return (q, k) => {
        // FlexSearch ranks per field, not one score: merge the fields' lists, best rank first.
        const best = new Map<number, number>();
        for (const field of index.search(q, { limit: k * 4, suggest: true }) as { result: number[] }[]) field.result.forEach((n, rank) => best.set(n, Math.min(best.get(n) ?? Infinity, rank)));
        return [...best].sort((a, b) => a[1] - b[1] || a[0] - b[0]).slice(0, k).map(([n]) => chunks[n].id);
      };
    },
  },
  { name: "word overlap (old examples/doc-search)", build: (chunks) => wordOverlap(chunks) },
];

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), "doc-search-bench-"));
  try {
    const products = option("--products", 940);
    const newsletters = option("--newsletters", 60);
    execFileSync(process.execPath, ["--import", "tsx", join(ROOT, "examples/company-docs/generate.ts"), "--out", out, "--products", String(products), "--newsletters", String(newsletters), "--no-index"], { stdio: "inherit" });
    const readStart = performance.now();
    const docs = await readDocuments(join(out, "docs"));
    const chunks = chunkDocuments(docs);
    const readMs = performance.now() - readStart;
    const queries = readFileSync(join(out, "queries.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as LabelledQuery);
    const m = machine();
    console.log(`\n${docs.length} documents (${docs.filter((d) => d.lang === "de").length} German), ${chunks.length} chunks, ${queries.length} labelled queries; read + chunk ${Math.round(readMs)} ms`);
    console.log(`machine: ${m.cpu}, ${m.cores} cores, node ${m.node}, load average ${m.loadavg.join(" ")}\n`);
    console.log("| search | recall@5 | recall@5 en | recall@5 de | index (ms) | query median (ms) | query p95 (ms) |");
    console.log("|---|---|---|---|---|---|---|");
    for (const c of CANDIDATES) {
      const t0 = performance.now();
      const rank = await c.build(chunks);
      const indexMs = performance.now() - t0;
      const times: number[] = [];
      const timed: RankChunks = (q, k) => {
        const s = performance.now();
        const r = rank(q, k);
        times.push(performance.now() - s);
        return r;
      };
      const all = recallAt(5, queries, chunks, timed).recall;
      const en = recallAt(5, queries.filter((q) => q.lang === "en"), chunks, rank).recall;
      const de = recallAt(5, queries.filter((q) => q.lang === "de"), chunks, rank).recall;
      const p95 = [...times].sort((a, b) => a - b)[Math.floor(times.length * 0.95)];
      console.log(`| ${c.name} | ${round(all, 3)} | ${round(en, 3)} | ${round(de, 3)} | ${Math.round(indexMs)} | ${round(median(times), 2)} | ${round(p95, 2)} |`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

await main();
