/**
 * BM25 search over chunks, by MiniSearch (chosen by measuring recall@5 and speed against Orama and
 * FlexSearch: bench/doc-search.ts, BENCHMARKS.md). Words are split at any Unicode non-letter, and
 * each is indexed as its stems in every language of `LANGUAGES`, so "Urlaubstage" finds
 * "Urlaubstagen" and "batteries" finds "battery". The index saves to one JSON file holding the
 * chunks too, so an environment package ships it and searches without re-reading its documents.
 */
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import MiniSearch, { type AsPlainObject, type Options } from "minisearch";
import { jsonFileValue } from "../config/jsonl.js";
import { RubricateError } from "../errors.js";
import { isRecord } from "../text/json.js";
import { termsOf } from "./language.js";
import type { Chunk } from "./types.js";

/** A searchable index of chunks; build with `buildIndex`, or `loadIndex` a saved one. */
export interface SearchIndex {
  readonly chunks: readonly Chunk[];
  /** sha256 of the chunks' ids and texts: tells whether an index is stale for a set of chunks. */
  readonly hash: string;
  /** @internal */
  readonly engine: MiniSearch<Chunk>;
}

/** One search result: a chunk, with the passage of it that matches best. */
export interface SearchHit {
  /** The chunk id (`<document>#<n>`). */
  id: string;
  doc: string;
  title: string;
  /** The chunk's line or sentence that shares most terms with the query (at most 300 characters). */
  snippet: string;
  /** BM25 score: comparable within one search only. */
  score: number;
}

const FORMAT = "rubricate-search-index";
const FORMAT_VERSION = 1;

const OPTIONS: Options<Chunk> = {
  fields: ["title", "text"],
  storeFields: [],
  processTerm: (term) => termsOf(term),
  searchOptions: { boost: { title: 2 }, combineWith: "OR" },
};

/** The content hash of a list of chunks (ids and texts, in order). */
export function chunksHash(chunks: readonly Chunk[]): string {
  const h = createHash("sha256");
  for (const c of chunks) h.update(`${c.id}\u0000${c.title}\u0000${c.text}\u0000`);
  return h.digest("hex");
}

/** Indexes chunks for `search`; chunk ids must be unique. */
export function buildIndex(chunks: readonly Chunk[]): SearchIndex {
  const engine = new MiniSearch<Chunk>(OPTIONS);
  const seen = new Set<string>();
  for (const c of chunks) {
    if (seen.has(c.id)) throw new RubricateError("DUPLICATE_ID", `chunk id "${c.id}" occurs twice`);
    seen.add(c.id);
  }
  engine.addAll(chunks as Chunk[]);
  return { chunks, hash: chunksHash(chunks), engine };
}

function snippetOf(text: string, query: string): string {
  const wanted = new Set((query.match(/[\p{L}\p{N}]+/gu) ?? []).flatMap(termsOf));
  const passages = text.split(/\n+|(?<=[.!?])\s+/u).map((p) => p.trim()).filter((p) => p && !/^#{1,6}\s/.test(p));
  let best = passages[0] ?? "";
  let bestHits = -1;
  for (const p of passages) {
    const hits = new Set((p.match(/[\p{L}\p{N}]+/gu) ?? []).flatMap(termsOf).filter((t) => wanted.has(t))).size;
    if (hits > bestHits) (best = p), (bestHits = hits);
  }
  return best.length > 300 ? `${best.slice(0, 299)}…` : best;
}

/**
 * The words of a query search uses: its first `MAX_QUERY_WORDS` distinct words. A policy writes
 * the query, and each word costs a pass over the index: a query of thousands of words would hold
 * the tool call for seconds.
 */
export const MAX_QUERY_WORDS = 64;

function queryWords(query: string): string {
  return [...new Set(query.match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, MAX_QUERY_WORDS).join(" ");
}

/** The `k` chunks that best match `query` (BM25), best first; ties in chunk order. None for a query of stop words only. */
export function search(index: SearchIndex, query: string, k = 5): SearchHit[] {
  if (!Number.isInteger(k) || k < 1) throw new TypeError(`k must be a positive integer, got ${k}`);
  const byId = new Map(index.chunks.map((c, i) => [c.id, { c, i }]));
  query = queryWords(query);
  return index.engine
    .search(query)
    .map((r) => ({ r, at: byId.get(String(r.id))! }))
    .sort((a, b) => b.r.score - a.r.score || a.at.i - b.at.i)
    .slice(0, k)
    .map(({ r, at: { c } }) => ({ id: c.id, doc: c.doc, title: c.title, snippet: snippetOf(c.text, query), score: r.score }));
}

interface IndexFile {
  format: typeof FORMAT;
  version: number;
  hash: string;
  chunks: Chunk[];
  minisearch: AsPlainObject;
}

/** Writes the index (chunks included) to a JSON file that `loadIndex` reads. */
export async function saveIndex(index: SearchIndex, file: string): Promise<void> {
  const data: IndexFile = { format: FORMAT, version: FORMAT_VERSION, hash: index.hash, chunks: [...index.chunks], minisearch: index.engine.toJSON() };
  await writeFile(file, JSON.stringify(data));
}

/** Reads an index `saveIndex` wrote; a file of another format or version is an error naming it. */
export async function loadIndex(file: string): Promise<SearchIndex> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === "ENOENT";
    throw new RubricateError(missing ? "FILE_NOT_FOUND" : "BAD_INPUT", `${file}: ${missing ? "no such search index" : `not a search index: ${(e as Error).message}`}`, { cause: e });
  }
  const value = jsonFileValue(text, file, { hint: "a search index: rebuild it" });
  if (!isRecord(value)) throw new RubricateError("BAD_INPUT", `${file}: not a search index (no "format": "${FORMAT}")`);
  const data = value as Partial<IndexFile>;
  if (data.format !== FORMAT || !Array.isArray(data.chunks) || !data.minisearch) throw new RubricateError("BAD_INPUT", `${file}: not a search index (no "format": "${FORMAT}")`);
  if (data.version !== FORMAT_VERSION) throw new RubricateError("BAD_INPUT", `${file}: search index version ${data.version}, this rubricate reads version ${FORMAT_VERSION}; rebuild it`);
  return { chunks: data.chunks, hash: data.hash ?? chunksHash(data.chunks), engine: MiniSearch.loadJS(data.minisearch, OPTIONS) };
}
