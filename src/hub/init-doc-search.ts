/**
 * `rubricate env init --template doc-search --docs <folder>`: an environment package over the
 * user's own documents, shaped like examples/company-docs: the documents copied in, a BM25 index
 * built once and shipped, `search`/`read` tools over it, a rubric that requires citing the right
 * document, and a starter task with scripted tests so the fresh package passes `env check --strict`.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { buildIndex, saveIndex } from "../corpus/search.js";
import { chunkDocuments } from "../corpus/chunk.js";
import { readDocuments } from "../corpus/read.js";
import type { Chunk } from "../corpus/types.js";
import { RubricateError } from "../errors.js";
import { GITIGNORE, packageNameOf, scaffoldPackageJson } from "./init.js";
import { linkRubricatePeer } from "./package.js";

/** Where the scaffold keeps the documents and the index, relative to the package. */
export const DOCS_DIR = "docs";
export const INDEX_FILE = "search-index.json";

/**
 * Scaffolds a document-search package in `dir` (default: the name without its scope) over the
 * documents under `docs`. Refuses a folder that already has files, a missing folder and one
 * without documents; returns the files written (the copied documents as their folder).
 * @example await initDocSearchPackage("@acme/handbook-env", { docs: "handbook" }) // ["handbook-env/package.json", …]
 */
export async function initDocSearchPackage(requested: string, options: { docs: string; dir?: string; description?: string }): Promise<string[]> {
  const name = packageNameOf(requested);
  const base = name.replace(/^@[^/]+\//, "");
  const dir = resolve(options.dir ?? base);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new RubricateError("BAD_INPUT", `${dir} already has files; pick an empty folder with --dir`);
  // Read everything before writing anything: an unreadable document leaves no half-made package.
  const documents = await readDocuments(options.docs);
  const chunks = chunkDocuments(documents);
  if (chunks.length === 0) throw new RubricateError("BAD_INPUT", `${options.docs}: the documents hold no text to search (a scanned PDF has none; convert it to text first)`);
  const id = base.replace(/-env$/, "") || base;
  const starter = chunks[0];
  const files: Record<string, string> = {
    ".gitignore": GITIGNORE,
    "package.json": scaffoldPackageJson({ name, description: options.description ?? `A rubricate document-search environment: ${id}`, files: ["env.yaml", "rubric.yaml", "hooks.ts", "tasks.jsonl", INDEX_FILE, DOCS_DIR, "tests.yaml", "README.md"] }),
    "env.yaml": ENV_YAML.replaceAll("__ID__", id),
    "rubric.yaml": RUBRIC_YAML.replaceAll("__ID__", id),
    "hooks.ts": HOOKS_TS,
    "tasks.jsonl": `${JSON.stringify(starterTask(starter))}\n`,
    "tests.yaml": starterTests(starter, chunks.find((c) => c.doc !== starter.doc)),
    "README.md": README.replaceAll("__NAME__", name),
  };
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    writeFileSync(join(dir, file), text);
    written.push(join(dir, file));
  }
  for (const doc of documents) {
    const target = join(dir, DOCS_DIR, doc.id);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(options.docs, doc.id), target);
  }
  written.push(join(dir, DOCS_DIR));
  await saveIndex(buildIndex(chunks), join(dir, INDEX_FILE));
  written.push(join(dir, INDEX_FILE));
  // The hooks import rubricate/corpus at run time: linked to this rubricate (git ignores
  // node_modules/), the package runs as scaffolded; \`npm install\` puts the devDependency there instead.
  linkRubricatePeer(dir);
  return written;
}

/** The starter task: find the document with a given title. True of any folder, answerable only by searching it. */
function starterTask(chunk: Chunk) {
  return { id: "starter", inputs: { question: `Which document is titled "${documentTitle(chunk)}"?`, source: chunk.doc }, answer: chunk.doc };
}

/** A chunk's document title (a chunk under a heading is titled "<document> › <heading>"). */
const documentTitle = (chunk: Chunk) => chunk.title.split(" › ")[0];

/**
 * Scripted tests on the starter task, written out in each test rather than named by id: `env filter`
 * may move the starter out of tasks.jsonl, and the tests must still run. Search, read and cite earns
 * 1; citing a document never read does not pass, nor (given another document) citing every document
 * read so as to cover the right one.
 */
function starterTests(chunk: Chunk, other: Chunk | undefined): string {
  const y = (value: unknown) => JSON.stringify(value);
  const { inputs, answer: reference } = starterTask(chunk);
  const task = y({ inputs, answer: reference });
  const answer = `The document titled "${documentTitle(chunk)}" is ${chunk.doc} (source: ${chunk.doc}).`;
  return `# Scripted tests: \`rubricate env check\` plays each through the real rollout loop with these
# replies as the policy and these answers as the judge (no model is called), then checks the score.
- name: search, read and cite earns everything
  task: ${task}
  replies:
    - { tool: search, args: { query: ${y(documentTitle(chunk))} } }
    - { tool: read, args: { id: ${y(chunk.id)} } }
    - ${y(answer)}
  judge: { correct: true, invents-facts: false }
  expect: { reward: 1, passed: true, criteria: { cites-document: met } }

- name: citing a document never read does not count
  task: ${task}
  replies: [${y(answer)}]
  judge: { correct: true, invents-facts: false }
  expect: { passed: false, criteria: { cites-document: unmet } }
${
  other
    ? `
- name: citing every document read, to cover the right one, does not count
  task: ${task}
  replies:
    - { tool: read, args: { id: ${y(chunk.id)} } }
    - { tool: read, args: { id: ${y(other.id)} } }
    - ${y(`The document titled "${documentTitle(chunk)}" is ${chunk.doc} (sources: ${chunk.doc}, ${other.doc}).`)}
  judge: { correct: true, invents-facts: false }
  expect: { passed: false, criteria: { cites-document: unmet } }
`
    : ""
}`;
}

const ENV_YAML = `# A document-search environment: answer a question with \`search\` and \`read\` tools over the
# documents in docs/, citing the document used. The index (search-index.json) was built once by
# \`rubricate env init --template doc-search\`; tasks come from \`rubricate env synth\`.
#   npx rubricate env synth . --model openai:gpt-4.1-mini -n 200
#   npx rubricate eval . --model openai:gpt-4.1-mini --rollouts 4 --report report.html
id: __ID__
version: 1
description: Answer questions from the documents with search and read tools, citing the document used.
dataset: tasks.jsonl
hooks: ./hooks.ts
config:
  index: ./${INDEX_FILE}  # chunks + BM25 index, relative to this file
harness:
  system: |
    You answer questions using only the documents, in the language of the question. Use \`search\`
    to find passages and \`read\` to read a passage or a whole document. Answer in one or two
    sentences, and end with the document you used, as (source: <doc>), where <doc> is the document
    path search returned. If the documents do not say, say so.
  prompt: "{{question}}"
  max_turns: 6
  tool_timeout_ms: 5000
  stop: { max_tool_calls: 8 }
  tools:
    - name: search
      description: Full-text search (BM25) over the documents; returns the best passages, each with its chunk id, document path (doc), title and a snippet.
      parameters:
        type: object
        properties:
          query: { type: string, minLength: 1 }
          limit: { type: integer, minimum: 1, maximum: 8 }
        required: [query]
        additionalProperties: false
    - name: read
      description: The text of one passage by chunk id (<doc>#<n>, as search returns it), or of a whole document by its path.
      parameters:
        type: object
        properties:
          id: { type: string, minLength: 1 }
        required: [id]
        additionalProperties: false
policy:
  temperature: 0.3
  max_tokens: 400
rubric: rubric.yaml
`;

const RUBRIC_YAML = `# Grades an answer found with search/read tools over the documents.
id: __ID__-answer
version: 1
description: An answer to a question about the documents, found with search and read, citing its document.
inputs: [question, answer, response, transcript]
judge: openai-small            # a packaged judge; --judge overrides it
scoring: { method: points, pass_threshold: 0.7 }
criteria:
  - id: correct
    question: >-
      Does the response give the same facts as the reference answer "{{answer}}" to the question
      "{{question}}", with every number and name of the reference answer (wording and language may differ)?
    points: 5
    examples:
      - response: "Full-time employees get 25 vacation days a year (source: hr/vacation.md)."
        inputs: { question: "How many vacation days do full-time employees get?", answer: "25 days a year", transcript: "" }
        answer: true
      - response: "Full-time employees get about 20 vacation days (source: hr/vacation.md)."
        inputs: { question: "How many vacation days do full-time employees get?", answer: "25 days a year", transcript: "" }
        answer: false
        reason: The number differs from the reference answer.
  - id: cites-document
    # 3 of 8 points: a correct answer without its one right citation stays under the pass threshold.
    check: { custom: cites-document }
    points: 3
  - id: invents-facts
    question: >-
      Does the response state a fact that appears nowhere in the tool results of the transcript
      (invented, or taken from outside the documents)?
    points: -4
    examples:
      - response: "Full-time employees get 25 vacation days a year (source: hr/vacation.md)."
        inputs: { question: "How many vacation days do full-time employees get?", answer: "25 days a year", transcript: "tool read: Full-time employees get 25 days of paid vacation per calendar year." }
        answer: false
      - response: "Full-time employees get 25 vacation days a year, and unused days never expire (source: hr/vacation.md)."
        inputs: { question: "How many vacation days do full-time employees get?", answer: "25 days a year", transcript: "tool read: Full-time employees get 25 days of paid vacation per calendar year." }
        answer: true
        reason: No tool result says unused days never expire.
`;

const HOOKS_TS = `/**
 * Search and read tools over the shipped search index (the env's \`config.index\`), and the check
 * that the answer cites the task's document, which the policy actually read.
 */
import { resolve } from "node:path";
// rubricate is a peer dependency: the rubricate that runs this environment, its types and its search.
import type { CheckFunction, EnvHooks, FinalizeContext, HookContext } from "rubricate";
import { loadIndex, search, type SearchIndex } from "rubricate/corpus";

const indexes = new Map<string, Promise<SearchIndex>>();

/** The index saved at \`file\` (read once per process). */
export function openIndex(file: string): Promise<SearchIndex> {
  let index = indexes.get(file);
  if (!index) indexes.set(file, (index = loadIndex(file)));
  return index;
}

interface State {
  /** Documents the policy read a passage of. */
  read: string[];
}

const indexOf = (ctx: Pick<HookContext, "config" | "envDir">) => openIndex(resolve(ctx.envDir, String(ctx.config.index ?? "${INDEX_FILE}")));

export const tools = {
  search: async ({ query, limit }: { query: string; limit?: number }, ctx: HookContext<State>) => search(await indexOf(ctx), query, limit ?? 5),
  read: async ({ id }: { id: string }, ctx: HookContext<State>) => {
    const { chunks } = await indexOf(ctx);
    const passage = chunks.find((c) => c.id === id);
    const whole = passage ? [passage] : chunks.filter((c) => c.doc === id);
    if (whole.length === 0) throw new Error(\`no passage or document "\${id}"; use a chunk id or a doc path returned by search\`);
    ctx.state.read.push(whole[0].doc);
    return whole.map((c) => c.text).join("\\n\\n");
  },
};

/** The documents a response cites, as \`(source: <doc>)\` (several may share one parenthesis, comma-separated). */
export function citedSources(text: string): string[] {
  return [...text.matchAll(/\\(sources?:\\s*([^)]*)\\)/gi)].flatMap((m) => m[1].split(/[,;]\\s*|\\s+and\\s+/)).map((s) => s.trim()).filter(Boolean);
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
    if (!cited.includes(source)) return { pass: false, reasoning: \`does not cite \${source} as (source: \${source})\` };
    if (cited.length > 1) return { pass: false, reasoning: \`cites \${cited.length} documents (\${cited.join(", ")}), not the one that answers\` };
    if (!read.includes(source)) return { pass: false, reasoning: \`names \${source} without having read it\` };
    return { pass: true, reasoning: \`cites \${source}, which it read\` };
  },
};

const hooks: EnvHooks<State> = {
  setup: () => ({ read: [] }),
  tools,
  finalize: ({ state }: FinalizeContext<State>) => ({ read_docs: state.read }),
  checks,
};

export default hooks;
`;

const README = `# __NAME__

A [rubricate](https://www.npmjs.com/package/rubricate) document-search environment: a model
answers questions with \`search\` and \`read\` tools over the documents in \`docs/\` and must cite
the document it used.

\`\`\`sh
npx rubricate env synth . --model openai:gpt-4.1-mini -n 200 --closed-book-probe   # draft checked tasks
npx rubricate env filter . --model openai:gpt-4.1-mini -k 8 --keep 0.1..0.9       # keep the useful ones
npx rubricate env check .                                                          # before env push
\`\`\`

- \`docs/\`: a copy of the documents; \`search-index.json\`: their chunks and BM25 index, built once
  by \`env init\`. After changing the documents, scaffold again (the index must match them).
- \`tasks.jsonl\`: one task a line (\`question\`, \`source\` document, reference \`answer\`). The
  \`starter\` task and \`tests.yaml\` keep \`env check\` meaningful before any task is synthesised.
- \`rubric.yaml\`: correct (judge), cites-document (code: exactly the task's document, which was read),
  invents-facts (judge, a penalty); \`hooks.ts\`: the tools and the citation check.
`;
