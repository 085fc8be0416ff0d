/**
 * The example's whole path with a scripted model: `env synth` drafts tasks from the package's own
 * shipped index over the 214 documents (no `--docs`), checks each one, and appends the kept ones;
 * the package still passes `env check`. The local OpenAI wire-format server plays the drafting
 * model and the judge; with a real key the same commands run against a real model (README).
 */
import { cpSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadIndex } from "rubricate/corpus";
import { judgeResponder, startOpenAIServer, viewRequest, type Reply, type TestServer } from "rubricate/testing";
import { ROOT, runCli, tempDir } from "../../tests/helpers/cli.js";
import { sampleFields } from "../../tests/env/world.js";

const HERE = import.meta.dirname;

/** Judge: a claim is supported when it is written in what was shown or answered. */
const judge = judgeResponder((q, view) => {
  const f = sampleFields(view.sample);
  if (q.id === "passages-state-answer") return f.passages.includes(f.answer);
  return f.response.includes(f.answer);
});

/** The drafting model: a task about the first sentence of the first passage it is shown. */
function draft(user: string): string {
  const [, id, text] = /^\[(\S+)\] \(from "[^"]*"\)\n([\s\S]*?)(?:\n\n\[|$)/m.exec(user)!;
  const sentence = text.replace(/^#+ .*\n+/gm, "").split(/(?<=[.!?])\s/)[0].trim().replace(/"/g, "'");
  return `question: "Which statement opens passage ${id}?"\nanswer: "${sentence}"\nchunks: [${id}]\ncriteria:\n  - id: states-it\n    question: "Does the response say that ${sentence.replace(/[.!?]$/, "")}?"\n    importance: essential\n`;
}

function respond(body: Record<string, unknown>): Reply {
  if (viewRequest(body).questions.length > 0) return judge(body) as string;
  const messages = body.messages as { role: string; content: string }[];
  return draft(messages.find((m) => m.role === "user")?.content ?? "");
}

let server: TestServer<unknown>;
let pkg: string;
const env = () => ({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-company-docs-0000000000", CI: "" });

beforeAll(async () => {
  server = (await startOpenAIServer({ respond })) as TestServer<unknown>;
  pkg = join(tempDir("rubricate-company-docs-"), "company-docs");
  cpSync(HERE, pkg, { recursive: true, filter: (src) => !src.includes("node_modules") && !src.includes(".rubricate") });
  // Installed as a user would have it: the hooks import `rubricate/corpus` from the package's peer.
  mkdirSync(join(pkg, "node_modules"), { recursive: true });
  symlinkSync(ROOT, join(pkg, "node_modules", "rubricate"));
});
afterAll(() => server?.close());

describe("examples/company-docs: env synth over the shipped index", () => {
  it("drafts, checks and appends tasks citing chunks of the shipped index, spread over documents, and the package still passes env check", async () => {
    const before = readFileSync(join(pkg, "tasks.jsonl"), "utf8").split("\n").filter(Boolean).length;
    const r = await runCli(["env", "synth", pkg, "-m", "openai:gpt-4.1-mini", "-n", "8", "--seed", "3", "--cache", join(pkg, ".rubricate", "cache.db"), "-q"], { cwd: pkg, env: env() });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/env synth: 8 task\(s\) kept/);
    const lines = readFileSync(join(pkg, "tasks.jsonl"), "utf8").split("\n").filter(Boolean);
    const added = lines.slice(before).map((l) => JSON.parse(l) as { inputs: { question: string }; answer: string; meta: { synth: { chunks: string[] } } });
    expect(added).toHaveLength(8);
    const index = await loadIndex(join(pkg, "search-index.json"));
    const chunks = new Map(index.chunks.map((c) => [c.id, c]));
    for (const t of added) {
      // Every cited chunk is one the package's `read` tool serves.
      for (const id of t.meta.synth.chunks) expect(chunks.has(id), id).toBe(true);
    }
    // Spread over the corpus: the drafts come from different documents, in both languages.
    const docs = new Set(added.map((t) => chunks.get(t.meta.synth.chunks[0])!.doc));
    expect(docs.size).toBeGreaterThanOrEqual(6);
    expect(new Set(added.map((t) => chunks.get(t.meta.synth.chunks[0])!.lang)).size).toBe(2);
    const check = await runCli(["env", "check", pkg], { cwd: pkg, env: env() });
    expect(check.code, check.stdout + check.stderr).toBe(0);
  }, 300_000);
});
