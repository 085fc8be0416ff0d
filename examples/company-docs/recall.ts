/**
 * Recall@k of a search over the labelled queries, and the word-overlap ranking examples/doc-search
 * used before rubricate/corpus (kept as the baseline the test and bench/doc-search.ts beat).
 */
import type { Chunk } from "rubricate/corpus";
import type { LabelledQuery } from "./generate.js";

/** A search under test: the ids of the best `k` chunks for a query, best first. */
export type RankChunks = (query: string, k: number) => string[];

const squash = (s: string) => s.replace(/\s+/g, " ");

/** Whether this chunk answers the query: it is from the labelled document and holds the evidence phrase. */
export function answers(chunk: Chunk, q: Pick<LabelledQuery, "doc" | "evidence">): boolean {
  return chunk.doc === q.doc && squash(chunk.text).includes(squash(q.evidence));
}

/** The share of queries with an answering chunk among the first `k` results, and the queries missed. */
export function recallAt(k: number, queries: readonly LabelledQuery[], chunks: readonly Chunk[], rank: RankChunks): { recall: number; missed: LabelledQuery[] } {
  const byId = new Map(chunks.map((c) => [c.id, c]));
  const missed = queries.filter((q) => !rank(q.query, k).some((id) => answers(byId.get(id)!, q)));
  return { recall: 1 - missed.length / queries.length, missed };
}

const words = (s: string) => s.toLowerCase().match(/[a-z0-9#-]+/g)?.filter((w) => w.length > 2) ?? [];

/** The old examples/doc-search ranking, over chunks: distinct query words present, title words counting double. */
export function wordOverlap(chunks: readonly Chunk[]): RankChunks {
  const indexed = chunks.map((c) => ({ id: c.id, body: new Set(words(c.text)), title: new Set(words(c.title)) }));
  return (query, k) => {
    const q = new Set(words(query));
    return indexed
      .map((c) => ({ id: c.id, score: [...q].reduce((s, w) => s + (c.body.has(w) ? 1 : 0) + (c.title.has(w) ? 1 : 0), 0) }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, k)
      .map((r) => r.id);
  };
}
