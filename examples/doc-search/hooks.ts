/**
 * Search and read tools over a folder of documents (the env's `config.corpus`: Markdown, text,
 * HTML or PDF), and the check that the answer cites exactly the task's document, which the policy read. Search is
 * BM25 over chunks (rubricate/corpus); swap the folder for your own.
 */
import { basename, resolve } from "node:path";
// rubricate is a peer dependency: the rubricate that runs this environment, its types and its search.
import type { CheckFunction, EnvHooks, FinalizeContext, HookContext } from "rubricate";
import { buildIndex, chunkDocuments, readDocuments, search as searchIndex, type SearchHit, type SearchIndex, type SourceDocument } from "rubricate/corpus";

/** One folder's documents and the index over their chunks. */
export interface Corpus {
  docs: SourceDocument[];
  index: SearchIndex;
}

const corpora = new Map<string, Promise<Corpus>>();

/** The documents of a folder and their index (read and built once per process). */
export function loadCorpus(dir: string): Promise<Corpus> {
  let corpus = corpora.get(dir);
  if (!corpus) {
    corpus = readDocuments(dir).then((docs) => ({ docs, index: buildIndex(chunkDocuments(docs)) }));
    corpora.set(dir, corpus);
  }
  return corpus;
}

/** The best `limit` chunks for the query (BM25), each with its document's file name and id. */
export function search(corpus: Corpus, query: string, limit = 3): SearchHit[] {
  return searchIndex(corpus.index, query, limit);
}

interface State {
  read: string[];
}

const corpusOf = (ctx: Pick<HookContext, "config" | "envDir">) => loadCorpus(resolve(ctx.envDir, String(ctx.config.corpus ?? "corpus")));

export const tools = {
  search: async ({ query, limit }: { query: string; limit?: number }, ctx: HookContext<State>) => search(await corpusOf(ctx), query, limit ?? 3),
  /** The whole document, by its file name (a chunk id from search names its document too). */
  read: async ({ doc }: { doc: string }, ctx: HookContext<State>) => {
    const id = doc.split("#")[0];
    const { docs } = await corpusOf(ctx);
    const found = docs.find((d) => d.id === id) ?? docs.find((d) => basename(d.id) === basename(id));
    if (!found) throw new Error(`no document named "${doc}"; use a file name returned by search`);
    ctx.state.read.push(found.id);
    return found.text;
  },
};

/** The documents a response cites, as `(source: <doc>)` (several may share one parenthesis, comma-separated). */
export function citedSources(text: string): string[] {
  return [...text.matchAll(/\(sources?:\s*([^)]*)\)/gi)].flatMap((m) => m[1].split(/[,;]\s*|\s+and\s+/)).map((s) => s.trim()).filter(Boolean);
}

/**
 * The response cites exactly the task's source document, as `(source: <doc>)`, and the policy read
 * that document. Exactly: the corpus is small enough to read whole within `max_tool_calls`, and
 * citing every document read (or naming them all in the text) would cover the right one without
 * choosing it.
 */
export const checks: Record<string, CheckFunction> = {
  "cites-document": (text, { sample }) => {
    const source = String(sample.source);
    const read = (sample.read_docs as string[] | undefined) ?? [];
    const cited = citedSources(text);
    if (!cited.includes(source)) return { pass: false, reasoning: `does not cite ${source} as (source: ${source})` };
    if (cited.length > 1) return { pass: false, reasoning: `cites ${cited.length} documents (${cited.join(", ")}), not the one that answers` };
    if (!read.includes(source)) return { pass: false, reasoning: `names ${source} without having read it` };
    return { pass: true, reasoning: `cites ${source}, which it read` };
  },
};

const hooks: EnvHooks<State> = {
  setup: () => ({ read: [] }),
  tools,
  finalize: ({ state }: FinalizeContext<State>) => ({ read_docs: state.read }),
  checks,
};

export default hooks;
