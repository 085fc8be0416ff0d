/**
 * `rubricate env init --template doc-search --docs <folder>`: the scaffold over a folder of
 * Markdown, HTML and PDF passes its own `env check --strict`, its shipped index answers a query,
 * a scripted eval plays it (searching and citing earns 1, guessing earns 0), and bad input is
 * refused before anything is written.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadIndex, search } from "../../src/corpus/search.js";
import { runEval } from "../../src/env/eval.js";
import { failedCriteria } from "../../src/env/stats.js";
import { loadEnvironment } from "../../src/env/load.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { ROOT, runCli, tempDir } from "../helpers/cli.js";
import { runCliInProcess } from "../helpers/cli-in-process.js";
import { connect, sampleFields, startWorld, toolResults, type WireMessage } from "../env/world.js";

let cwd: string;
const pkg = () => join(cwd, "handbook-env");

beforeAll(async () => {
  cwd = tempDir("rubricate-init-docs-");
  const docs = join(cwd, "handbook");
  mkdirSync(join(docs, "travel"), { recursive: true });
  writeFileSync(join(docs, "vacation.md"), "# Vacation\n\nFull-time employees get 25 days of paid vacation per calendar year.\n");
  writeFileSync(join(docs, "travel", "meals.html"), "<html><head><title>Meals on trips</title></head><body><p>The daily meal allowance on business trips is 60 euros.</p></body></html>");
  cpSync(join(ROOT, "examples/company-docs/docs/reports/safety-report-2025.pdf"), join(docs, "safety-report-2025.pdf"));
  writeFileSync(join(docs, "logo.png"), "not a document");
  // A real process for the scaffold (its exit code and clean stderr); the commands below run in this one.
  const r = await runCli(["env", "init", "--template", "doc-search", "--docs", "handbook"], { cwd });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("next: cd handbook-env && npx rubricate env check .");
}, 120_000);
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("rubricate env init --template doc-search", () => {
  it("names the package after the documents folder, copies the documents (not other files) and ships them with the index", () => {
    const manifest = JSON.parse(readFileSync(join(pkg(), "package.json"), "utf8")) as { name: string; files: string[] };
    expect(manifest.name).toBe("handbook-env");
    expect(manifest.files).toEqual(expect.arrayContaining(["search-index.json", "docs", "hooks.ts", "tests.yaml"]));
    expect(readdirSync(join(pkg(), "docs"), { recursive: true, encoding: "utf8" }).sort()).toEqual(["safety-report-2025.pdf", "travel", "travel/meals.html", "vacation.md"]);
    expect(readFileSync(join(pkg(), "docs", "vacation.md"), "utf8")).toBe(readFileSync(join(cwd, "handbook", "vacation.md"), "utf8"));
  });

  it("writes the hooks.ts that examples/company-docs ships (the example is this template's output, and must not drift from it)", () => {
    expect(readFileSync(join(ROOT, "examples/company-docs/hooks.ts"), "utf8")).toBe(readFileSync(join(pkg(), "hooks.ts"), "utf8"));
  });

  it("the shipped index holds every format and answers a query with the right chunk id", async () => {
    const index = await loadIndex(join(pkg(), "search-index.json"));
    expect(new Set(index.chunks.map((c) => c.doc))).toEqual(new Set(["safety-report-2025.pdf", "travel/meals.html", "vacation.md"]));
    expect(search(index, "meal allowance business trip", 3)[0].id).toBe("travel/meals.html#0");
    expect(search(index, "paid vacation days", 3)[0].id).toBe("vacation.md#0");
  });

  it("passes its own `env check --strict`: its three scripted tests (search-read-cite, cite unread, cite everything read) run through the tools", async () => {
    const r = await runCliInProcess(["env", "check", "handbook-env", "--strict"], { cwd });
    expect(r.stdout.trim().split("\n").filter((l) => l.startsWith("warn") || l.startsWith("FAIL"))).toEqual([]);
    expect(r.stdout.split("\n").filter((l) => l.includes(" test "))).toHaveLength(3);
    expect(r.stdout).toMatch(/env check: ok\n$/);
    expect(r.code).toBe(0);
  }, 120_000);

  it("its scripted tests write their task out: they still run once `env filter` has moved the starter task out of tasks.jsonl", async () => {
    const copy = join(cwd, "filtered-env");
    cpSync(pkg(), copy, { recursive: true });
    writeFileSync(join(copy, "tasks.jsonl"), `${JSON.stringify({ id: "meals", inputs: { question: "What is the daily meal allowance?", source: "travel/meals.html" }, answer: "60 euros" })}\n`);
    const r = await runCliInProcess(["env", "check", "filtered-env", "--strict"], { cwd });
    expect(r.stdout.split("\n").filter((l) => l.includes(" test "))).toEqual([
      expect.stringMatching(/^ok +test search, read and cite/),
      expect.stringMatching(/^ok +test citing a document never read/),
      expect.stringMatching(/^ok +test citing every document read/),
    ]);
    expect(r.stdout).toMatch(/env check: ok\n$/);
  }, 120_000);

  it("a scripted eval: searching, reading the top passage and citing it earns 1; citing a document never read earns 0", async () => {
    const env = await loadEnvironment(join(pkg(), "env.yaml"));
    // The starter task, and two a synth run would append: the rubric grades them all alike.
    env.tasks.push(
      { id: "meals", inputs: { question: "What is the daily meal allowance on business trips?", source: "travel/meals.html" }, answer: "60 euros" },
      { id: "vacation", inputs: { question: "How many paid vacation days do full-time employees get?", source: "vacation.md" }, answer: "25 days" },
    );
    const researcher = (messages: WireMessage[]) => {
      const question = messages.find((m) => m.role === "user")?.content ?? "";
      const tools = messages.filter((m) => m.role === "tool");
      const turn = messages.filter((m) => m.role === "assistant").length;
      if (tools.length === 0) return { toolCalls: [{ id: `call_${turn}`, name: "search", arguments: { query: question } }] };
      const hits = JSON.parse(tools[0].content ?? "[]") as { id: string; doc: string; snippet: string }[];
      if (tools.length === 1) return { toolCalls: [{ id: `call_${turn}`, name: "read", arguments: { id: hits[0].id } }] };
      return `${hits[0].snippet} (source: ${hits[0].doc})`;
    };
    const guesser = () => "It is 30, I believe (source: vacation.md).";
    const server: TestServer<unknown> = await startWorld({ researcher, guesser }, (q, view) => {
      const f = sampleFields(view.sample);
      // correct: the response holds the reference answer's first word (its figure, or the document path).
      if (q.id === "correct") return f.response.includes(/^[^ ]+/.exec(f.answer)![0]);
      return (f.response.match(/\d+/g) ?? []).some((n) => !toolResults(f.transcript).includes(n));
    });
    try {
      const { engine, judge, policies } = connect(server.url, ["researcher", "guesser"]);
      const { records } = await runEval(env, { policies, engine, judge, rollouts: 1 });
      engine.close();
      const by = (model: string) => records.filter((r) => r.model.includes(model)).map((r) => [r.task, r.reward, failedCriteria(r)]);
      expect(by("researcher").sort()).toEqual([
        ["meals", 1, []],
        ["starter", 1, []],
        ["vacation", 1, []],
      ]);
      for (const [, reward, failed] of by("guesser")) {
        expect(reward).toBe(0);
        expect(failed).toContain("cites-document");
      }
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe("rubricate env init: bad input", () => {
  const init = (args: string[]) => runCliInProcess(["env", "init", ...args], { cwd });

  it("a missing folder, a folder without documents, an unknown template, doc-search without --docs: a clear error and nothing written", async () => {
    mkdirSync(join(cwd, "pictures"));
    writeFileSync(join(cwd, "pictures", "a.png"), "png");
    const cases: [string[], RegExp][] = [
      [["--template", "doc-search", "--docs", "nowhere", "a-env"], /nowhere: no such folder of documents/],
      [["--template", "doc-search", "--docs", "pictures", "b-env"], /pictures: no documents \(readable: .*\.md.*\.pdf/],
      [["--template", "wiki", "c-env"], /--template wiki: no such template \(templates: basic, doc-search\)/],
      [["--template", "doc-search", "d-env"], /--template doc-search needs --docs <folder>/],
      [["--docs", "handbook", "e-env"], /--docs is for --template doc-search/],
    ];
    for (const [args, message] of cases) {
      const r = await init(args);
      expect(r.stderr, args.join(" ")).toMatch(message);
      expect(r.code, args.join(" ")).not.toBe(0);
    }
    for (const dir of ["a-env", "b-env", "c-env", "d-env", "e-env"]) expect(existsSync(join(cwd, dir)), dir).toBe(false);
  }, 120_000);

  it("refuses a package folder that already has files, and leaves it as it was", async () => {
    const before = readFileSync(join(pkg(), "tasks.jsonl"), "utf8");
    const r = await init(["--template", "doc-search", "--docs", "handbook"]);
    expect(r.stderr).toMatch(/already has files/);
    expect(readFileSync(join(pkg(), "tasks.jsonl"), "utf8")).toBe(before);
  }, 60_000);
});
