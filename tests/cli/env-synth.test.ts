/**
 * docs/doc-environments.md, run: its ```sh blocks (env init → env synth → env filter → env check) against the
 * local OpenAI wire-format server, which plays the drafting model, the closed-book probe, the policy
 * and the judge. Then what the page promises: a rerun pays nothing, pass rates are in the records,
 * removed tasks are kept aside.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { judgeResponder, viewRequest } from "../../src/testing/servers/judge-responder.js";
import type { Reply, TestServer } from "../../src/testing/servers/common.js";
import { cliEntry, ROOT, tempDir } from "../helpers/cli.js";
import { runCliInProcess } from "../helpers/cli-in-process.js";
import { readmeCommands } from "../helpers/readme-commands.js";
import { sampleFields, type WireMessage } from "../env/world.js";

const PAGE = readFileSync(join(ROOT, "docs", "doc-environments.md"), "utf8");
const commands = readmeCommands(PAGE);

/** The handbook: one fact per document, and how the scripted policy fares on the task drafted from it. */
const HANDBOOK = {
  "vacation.md": { text: "# Vacation\n\nFull-time employees get 25 days of paid vacation per calendar year.", question: "How many vacation days do full-time employees get?", answer: "25 days of paid vacation per calendar year", policy: "always" },
  "meals.md": { text: "# Travel\n\nThe daily meal allowance on business trips is 60 euros.", question: "What is the daily meal allowance on business trips?", answer: "60 euros", policy: "never" },
  "laptop.md": { text: "# Security\n\nA lost laptop must be reported within 1 hour.", question: "How fast must a lost laptop be reported?", answer: "within 1 hour", policy: "half" },
  "api.md": { text: "# API\n\nThe fleet API allows 600 requests per minute per key.", question: "How many requests per minute does the fleet API allow?", answer: "600 requests per minute", policy: "half" },
  "kitchen.md": { text: "# Office\n\nThe kitchen is cleaned every Friday.", question: "When are the windows cleaned?", answer: "every Tuesday", policy: "always" },
} as const;
type Doc = keyof typeof HANDBOOK;

let server: TestServer<unknown>;
let scratch: string;
const policyCalls = new Map<string, number>();
const judge = judgeResponder((q, view) => {
  const f = sampleFields(view.sample);
  if (q.id === "passages-state-answer") return f.passages.includes(f.answer);
  // The scripted policy only states what it read.
  if (q.id === "invents-facts") return false;
  return f.response.includes(f.answer);
});

/** Drafting model, closed-book probe, policy or judge, told apart by their prompts. */
function respond(body: Record<string, unknown>): Reply {
  if (viewRequest(body).questions.length > 0) return judge(body) as string;
  const messages = body.messages as { role: string; content: string }[];
  const system = messages.find((m) => m.role === "system")?.content ?? "";
  const user = messages.find((m) => m.role === "user")?.content ?? "";
  if (system.startsWith("You write one training task")) {
    const id = /^\[(\S+)\]/m.exec(user)![1];
    const doc = HANDBOOK[id.replace(/#\d+$/, "") as Doc];
    return `question: ${doc.question}\nanswer: ${doc.answer}\nchunks: [${id}]\ncriteria:\n  - id: states-fact\n    question: Does the response say ${doc.answer}?\n    importance: essential\n`;
  }
  if (system.startsWith("Answer the question in one or two sentences from what you know")) return "I do not know.";
  return policy(messages as WireMessage[]);
}

/**
 * The policy: searches the question, reads the top passage, then answers citing its document,
 * right or not as the handbook says (the scaffold's starter task, always right).
 */
function policy(messages: WireMessage[]): Reply {
  const question = messages.find((m) => m.role === "user")?.content ?? "";
  const tools = messages.filter((m) => m.role === "tool");
  const turn = messages.filter((m) => m.role === "assistant").length;
  if (tools.length === 0) return { toolCalls: [{ id: `call_${turn}`, name: "search", arguments: { query: question } }] };
  const hits = JSON.parse(tools[0].content ?? "[]") as { id: string; doc: string }[];
  if (tools.length === 1) return { toolCalls: [{ id: `call_${turn}`, name: "read", arguments: { id: hits[0].id } }] };
  const doc = Object.values(HANDBOOK).find((d) => d.question === question);
  const n = policyCalls.get(question) ?? 0;
  policyCalls.set(question, n + 1);
  const right = !doc || doc.policy === "always" || (doc.policy === "half" && n % 2 === 0);
  return right ? `It is ${doc?.answer ?? hits[0].doc} (source: ${hits[0].doc}).` : "I could not find that.";
}

function run(command: string): Promise<{ code: number | null; output: string }> {
  const entry = cliEntry().map((a) => JSON.stringify(a)).join(" ");
  const npx = `npx() { if [ "$1" = rubricate ]; then shift; node ${entry} "$@"; else command npx "$@"; fi; }`;
  return new Promise((done) => {
    const child = spawn("bash", ["-o", "pipefail", "-c", `${npx}\n${command}`], {
      cwd: scratch,
      env: { ...process.env, CI: "", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-docs-test-0000000000", npm_config_offline: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => done({ code, output }));
  });
}

const taskLines = (file: string) =>
  readFileSync(join(scratch, "handbook-env", file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; inputs: { question: string; source: string }; meta: { pass_rate?: number | null; filter?: Record<string, unknown>; synth: { chunks: string[] } } });

beforeAll(async () => {
  server = (await startOpenAIServer({ respond })) as TestServer<unknown>;
  scratch = tempDir("rubricate-doc-env-");
  mkdirSync(join(scratch, "handbook"));
  for (const [name, doc] of Object.entries(HANDBOOK)) writeFileSync(join(scratch, "handbook", name), doc.text);
});
afterAll(() => server?.close());

describe("docs/doc-environments.md", () => {
  it("runs env init, env synth, env filter and env check, in this order", () => {
    expect(commands.map((c) => c.text.split(" ").slice(1, 4).join(" "))).toEqual(["rubricate env init", "rubricate env synth", "rubricate env filter", "rubricate env check"]);
  });

  for (const c of commands) {
    it(`line ${c.line}: ${c.text}`, async () => {
      const r = await run(c.text);
      expect(r.code, `docs/doc-environments.md line ${c.line} exited ${r.code}:\n${r.output}`).toBe(0);
      if (c.text.includes("env synth")) {
        expect(r.output).toMatch(/env synth: 4 task\(s\) kept/);
        expect(r.output).toMatch(/ 1 +unsupported \(answer not in the cited passages\)/);
        expect(r.output).toMatch(/errors: 0/);
        // Appended after the scaffold's starter task (find the document titled "API").
        expect(taskLines("tasks.jsonl").map((t) => (t.id === "starter" ? "starter" : t.inputs.source))).toEqual(["starter", ...["api.md", "laptop.md", "meals.md", "vacation.md"].map(() => expect.any(String))]);
        expect(taskLines("tasks.jsonl").slice(1).map((t) => t.inputs.source).sort()).toEqual(["api.md", "laptop.md", "meals.md", "vacation.md"]);
      }
      if (c.text.includes("env filter")) {
        // Always right (rate 1) and never right (rate 0) give no signal; half right does.
        expect(taskLines("tasks.jsonl").map((t) => [t.inputs.source, t.meta.pass_rate])).toEqual(
          expect.arrayContaining([
            ["laptop.md", 0.5],
            ["api.md", 0.5],
          ]),
        );
        expect(taskLines("tasks.jsonl")).toHaveLength(2);
        // The starter task, which the policy always gets right, goes too; the scripted tests that play it still run (env check below).
        expect(taskLines("tasks.removed.jsonl").map((t) => [t.id === "starter" ? "starter" : t.inputs.source, t.meta.pass_rate]).sort()).toEqual([
          ["meals.md", 0],
          ["starter", 1],
          ["vacation.md", 1],
        ]);
        expect(taskLines("tasks.jsonl")[0].meta.filter).toEqual({ model: "openai:gpt-4.1-mini", rollouts: 8, passed: 4, scored: 8, errors: 0, pass_threshold: 0.7 });
        expect(r.output).toMatch(/kept 2, removed 3 \(pass rate outside 0\.1\.\.0\.9\)/);
        expect(r.output).toMatch(/^\[0\.5, 0\.6\) +2 #+ +2 #+/m);
      }
      if (c.text.includes("env check")) expect(r.output).toMatch(/env check: ok/);
    }, 240_000);
  }

  it("a rerun of synth and filter pays for nothing and changes nothing", async () => {
    const tasks = readFileSync(join(scratch, "handbook-env", "tasks.jsonl"), "utf8");
    const before = server.stats.requests;
    for (const c of commands.filter((x) => /env (synth|filter)/.test(x.text))) {
      const r = await run(c.text);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toMatch(/0 paid/);
      // The tasks filter removed count as there too: synth does not draft them back in.
      if (c.text.includes("env synth")) expect(r.output).toMatch(/env synth: 0 task\(s\) kept .*4 already there/);
    }
    expect(server.stats.requests).toBe(before);
    expect(readFileSync(join(scratch, "handbook-env", "tasks.jsonl"), "utf8")).toBe(tasks);
    expect(existsSync(join(scratch, ".rubricate", "synth", "handbook-answer.rejected.jsonl"))).toBe(true);
  }, 240_000);

  it("a band no task reaches leaves the tasks file as it was (exit 1); a band that is not one is a usage error", async () => {
    const tasks = readFileSync(join(scratch, "handbook-env", "tasks.jsonl"), "utf8");
    const none = await run("npx rubricate env filter handbook-env --model openai:gpt-4.1-mini -k 8 --keep 0.6..0.7");
    expect(none.code).toBe(1);
    expect(none.output).toMatch(/no task's pass rate lies in 0\.6\.\.0\.7: \S*tasks\.jsonl is left as it was/);
    expect(readFileSync(join(scratch, "handbook-env", "tasks.jsonl"), "utf8")).toBe(tasks);
    const bad = await run("npx rubricate env filter handbook-env --model openai:gpt-4.1-mini --keep 0.9..0.1");
    expect(bad.code).toBe(2);
    expect(bad.output).toMatch(/--keep "0\.9\.\.0\.1": expected min\.\.max/);
  }, 240_000);
});

describe("env synth without --docs", () => {
  it("drafts from the index a doc-search package ships (above); a package without one is told to pass --docs, and nothing is written", async () => {
    const cwd = tempDir("rubricate-synth-noindex-");
    // In this process: the page's commands above are the real processes.
    const init = await runCliInProcess(["env", "init", "@acme/times-env", "--dir", "times"], { cwd });
    expect(init.code).toBe(0);
    const before = readFileSync(join(cwd, "times", "tasks.jsonl"), "utf8");
    const r = await runCliInProcess(["env", "synth", "times", "--model", "openai:gpt-4.1-mini"], { cwd, env: { OPENAI_API_KEY: "sk-unused-0000000000", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" } });
    expect(r.stderr).toMatch(/env synth needs --docs <folder>: \S*env\.yaml ships no search index \(`config\.index`\)/);
    expect(r.code).toBe(1);
    expect(readFileSync(join(cwd, "times", "tasks.jsonl"), "utf8")).toBe(before);
  }, 120_000);
});
