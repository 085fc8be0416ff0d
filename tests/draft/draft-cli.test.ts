import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { register } from "../../src/cli/commands/draft.js";
import { parseRubric } from "../../src/rubric/load.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { tempDir } from "../helpers/cli.js";

const DRAFT = `id: refund-reply
criteria:
  - id: states-refund-date
    question: Does the reply say on which date the refund will arrive?
    importance: essential
    answers: { G1: true, B1: false }
  - id: blames-customer
    question: Does the reply blame the customer for the delay?
    importance: pitfall
    answers: { G1: false, B1: true }
`;

const dir = tempDir("rubricate-draft-");
let server: TestServer<unknown>;
let judgeFile: string;
let replies: string[] = [];

beforeAll(async () => {
  server = (await startOpenAIServer({ respond: () => replies.shift() ?? DRAFT })) as TestServer<unknown>;
  judgeFile = join(dir, "drafter.yaml");
  writeFileSync(judgeFile, `provider: openai-compatible\nbase_url: ${server.url}\nmodel: drafter\nmax_retries: 0\n`);
  writeFileSync(join(dir, "notes.md"), "A refund reply must give the date; never blame the customer.");
  writeFileSync(
    join(dir, "labelled.jsonl"),
    [JSON.stringify({ response: "Your refund arrives on 3 May.", label: "good", why: "gives the date" }), JSON.stringify({ response: "You should have read the policy.", label: "bad", why: "blames" })].join("\n"),
  );
});
afterAll(async () => server.close());

async function draft(...args: string[]): Promise<{ code: number; err: string; out: string }> {
  let err = "";
  let out = "";
  vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
  vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
  process.exitCode = undefined;
  const program = new Command("rubricate").exitOverride();
  register(program);
  try {
    await program.parseAsync(["node", "rubricate", "draft", ...args]);
  } finally {
    vi.restoreAllMocks();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, err, out };
}

describe("rubricate draft (against a local OpenAI-compatible server)", () => {
  it("writes a rubric that validates, with the labelled responses as examples", async () => {
    const output = join(dir, "refund.yaml");
    const result = await draft("-j", judgeFile, "--notes", join(dir, "notes.md"), "--examples", join(dir, "labelled.jsonl"), "-o", output);
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/drafted 2 criteria in 1 call/);
    const rubric = parseRubric(readFileSync(output, "utf8"));
    expect(rubric.criteria.map((c) => c.points)).toEqual([5, -3]);
    expect(rubric.criteria[1].examples).toEqual([
      { response: "Your refund arrives on 3 May.", answer: false },
      { response: "You should have read the policy.", answer: true },
    ]);
  });

  it("rejects a draft that stays non-binary after one repair", async () => {
    const bad = "id: x\ncriteria:\n  - id: q\n    question: How polite is the reply?\n    importance: essential\n";
    replies = [bad, bad];
    await expect(draft("-j", judgeFile, "--notes", join(dir, "notes.md"))).rejects.toMatchObject({ code: "SCHEMA", message: expect.stringMatching(/rejected after 1 repair/) });
  });

  it("a labelled examples line that is not JSON is named file:line:col; one that is JSON but no object is a BAD_INPUT line, not a TypeError", async () => {
    const examples = join(dir, "broken-examples.jsonl");
    writeFileSync(examples, `${JSON.stringify({ response: "ok", label: "good" })}\n{"response": "x", "label": good}\n`);
    await expect(draft("-j", judgeFile, "--examples", examples)).rejects.toMatchObject({ code: "BAD_INPUT", message: `${examples}:2:28: invalid JSON: Unexpected token 'g', ..." "label": good}" is not valid JSON` });
    writeFileSync(examples, "null\n");
    await expect(draft("-j", judgeFile, "--examples", examples)).rejects.toMatchObject({ code: "BAD_INPUT", message: `${examples}:1: each line needs "response" (a string) and "label": "good" or "bad"` });
  });

  it("--per-sample writes each row with its own criteria", async () => {
    const data = join(dir, "data.jsonl");
    writeFileSync(data, [JSON.stringify({ id: 1, prompt: "Where is my refund?" }), JSON.stringify({ id: 2, prompt: "Refund for order 7?" })].join("\n"));
    const output = join(dir, "data.criteria.jsonl");
    replies = [];
    const result = await draft("-j", judgeFile, "--per-sample", data, "-o", output);
    expect(result.code).toBe(0);
    const rows = readFileSync(output, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(rows.map((r) => r.id)).toEqual([1, 2]);
    expect(rows[0].criteria.map((c: { id: string }) => c.id)).toEqual(["states-refund-date", "blames-customer"]);
  });
});
