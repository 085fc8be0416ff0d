/**
 * Search and read tools over the shipped search index (the env's `config.index`), and the check
 * that the answer cites the task's document, which the policy actually read.
 */
import { resolve } from "node:path";
// rubricate is a peer dependency: the rubricate that runs this environment, its types and its search.
import type { CheckFunction, EnvHooks, FinalizeContext, HookContext } from "rubricate";
import { loadIndex, search, type SearchIndex } from "rubricate/corpus";

const indexes = new Map<string, Promise<SearchIndex>>();

/** The index saved at `file` (read once per process). */
export function openIndex(file: string): Promise<SearchIndex> {
  let index = indexes.get(file);
  if (!index) indexes.set(file, (index = loadIndex(file)));
  return index;
}

interface State {
  /** Documents the policy read a passage of. */
  read: string[];
}

const indexOf = (ctx: Pick<HookContext, "config" | "envDir">) => openIndex(resolve(ctx.envDir, String(ctx.config.index ?? "search-index.json")));

export const tools = {
  search: async ({ query, limit }: { query: string; limit?: number }, ctx: HookContext<State>) => search(await indexOf(ctx), query, limit ?? 5),
  read: async ({ id }: { id: string }, ctx: HookContext<State>) => {
    const { chunks } = await indexOf(ctx);
    const passage = chunks.find((c) => c.id === id);
    const whole = passage ? [passage] : chunks.filter((c) => c.doc === id);
    if (whole.length === 0) throw new Error(`no passage or document "${id}"; use a chunk id or a doc path returned by search`);
    ctx.state.read.push(whole[0].doc);
    return whole.map((c) => c.text).join("\n\n");
  },
};

/** The documents a response cites, as `(source: <doc>)` (several may share one parenthesis, comma-separated). */
export function citedSources(text: string): string[] {
  return [...text.matchAll(/\(sources?:\s*([^)]*)\)/gi)].flatMap((m) => m[1].split(/[,;]\s*|\s+and\s+/)).map((s) => s.trim()).filter(Boolean);
}

/**
 * The response cites exactly the task's source document, and the policy read a passage of it.
 * Exactly: citing every document searched would otherwise cover the right one without choosing it.
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
