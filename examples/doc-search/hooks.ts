/**
 * Search and read tools over a folder of Markdown files (the env's `config.corpus`), and the
 * check that the answer cites a document the policy actually read. Swap the folder for your own.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
// rubricate is a peer dependency: the types of the rubricate that runs this environment.
import type { CheckFunction, EnvHooks, FinalizeContext, HookContext } from "rubricate";

/** One document of the corpus. */
export interface Doc {
  name: string;
  title: string;
  text: string;
}

const corpora = new Map<string, Doc[]>();

/** The documents of a folder (read once per process). */
export function loadCorpus(dir: string): Doc[] {
  let docs = corpora.get(dir);
  if (!docs) {
    docs = readdirSync(dir)
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((name) => {
        const text = readFileSync(join(dir, name), "utf8");
        return { name, title: /^#\s+(.*)$/m.exec(text)?.[1] ?? name, text };
      });
    corpora.set(dir, docs);
  }
  return docs;
}

const words = (s: string) => s.toLowerCase().match(/[a-z0-9#-]+/g)?.filter((w) => w.length > 2) ?? [];

/** Ranks documents by how many of the query's words they contain (title words count double). */
export function search(docs: Doc[], query: string, limit = 3): { doc: string; title: string; snippet: string; score: number }[] {
  const q = new Set(words(query));
  return docs
    .map((d) => {
      const body = new Set(words(d.text));
      const title = new Set(words(d.title));
      const score = [...q].reduce((s, w) => s + (body.has(w) ? 1 : 0) + (title.has(w) ? 1 : 0), 0);
      const lines = d.text.split("\n").filter((l) => l.trim() && !l.startsWith("#"));
      const best = lines.map((l) => ({ l, n: words(l).filter((w) => q.has(w)).length })).sort((a, b) => b.n - a.n)[0];
      return { doc: d.name, title: d.title, snippet: best?.l ?? "", score };
    })
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || a.doc.localeCompare(b.doc))
    .slice(0, limit);
}

interface State {
  read: string[];
}

const corpusOf = (ctx: Pick<HookContext, "config" | "envDir">) => loadCorpus(resolve(ctx.envDir, String(ctx.config.corpus ?? "corpus")));

export const tools = {
  search: ({ query, limit }: { query: string; limit?: number }, ctx: HookContext<State>) => search(corpusOf(ctx), query, limit ?? 3),
  read: ({ doc }: { doc: string }, ctx: HookContext<State>) => {
    const found = corpusOf(ctx).find((d) => d.name === basename(doc));
    if (!found) throw new Error(`no document named "${doc}"; use a file name returned by search`);
    ctx.state.read.push(found.name);
    return found.text;
  },
};

/** The response names the task's source document, and the policy read that document. */
export const checks: Record<string, CheckFunction> = {
  "cites-document": (text, { sample }) => {
    const source = String(sample.source);
    const read = (sample.read_docs as string[] | undefined) ?? [];
    if (!text.includes(source)) return { pass: false, reasoning: `does not name ${source}` };
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
