import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEnvironment } from "../../src/env/load.js";
import { RubricateError } from "../../src/errors.js";
import { tempDir } from "../helpers/cli.js";

const RUBRIC = "rubric:\n  id: r\n  criteria:\n    - id: ok\n      check: { contains: yes }\n";

/** Writes files into a fresh folder and loads its env.yaml; returns the error it throws. */
async function loadError(files: Record<string, string>): Promise<RubricateError> {
  const dir = tempDir("rubricate-env-");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  try {
    await loadEnvironment(join(dir, "env.yaml"));
  } catch (e) {
    expect(e).toBeInstanceOf(RubricateError);
    return e as RubricateError;
  }
  throw new Error("expected the environment to be rejected");
}

describe("loadEnvironment", () => {
  it("loads the examples: tasks, harness defaults, rubric, hooks", async () => {
    const wordle = await loadEnvironment("examples/wordle/env.yaml");
    expect(wordle.tasks.map((t) => t.id)).toEqual(["w1", "w2", "w3", "w4", "w5", "w6"]);
    expect(wordle.tasks[0]).toEqual({ id: "w1", inputs: { rules: "standard" }, answer: "crane" });
    expect(wordle.harness.max_turns).toBe(8);
    expect(wordle.harness.stop.on_final_answer).toBe(true);
    expect(wordle.rubric.criteria.map((c) => c.id)).toEqual(["solved", "few-guesses", "valid-guesses", "used-feedback"]);
    expect(typeof wordle.hooks.envResponse).toBe("function");
    expect(wordle.policy).toEqual({ temperature: 0.7, max_tokens: 64 });
    const docs = await loadEnvironment("examples/doc-search/env.yaml");
    expect(docs.harness.tools.map((t) => t.name)).toEqual(["search", "read"]);
    expect(docs.rubric.source).toMatch(/doc-search\/rubric\.yaml$/);
    expect(docs.config).toEqual({ corpus: "./corpus" });
  });

  it("reads flat dataset lines as inputs and numbers tasks without ids", async () => {
    const dir = tempDir("rubricate-env-");
    writeFileSync(join(dir, "tasks.jsonl"), '{"prompt": "a", "answer": 1}\n\n{"prompt": "b", "topic": "x"}\n');
    writeFileSync(join(dir, "env.yaml"), `id: flat\ndataset: tasks.jsonl\n${RUBRIC}`);
    const env = await loadEnvironment(join(dir, "env.yaml"));
    expect(env.tasks).toEqual([
      { id: "1", inputs: { prompt: "a" }, answer: 1 },
      { id: "2", inputs: { prompt: "b", topic: "x" } },
    ]);
    expect(env.harness.prompt).toBe("{{prompt}}");
  });

  it("reads a task's meta (provenance, pass rate) beside its inputs, never as an input", async () => {
    const dir = tempDir("rubricate-env-");
    const meta = { synth: { chunks: ["a.md#0"] }, pass_rate: 0.5 };
    writeFileSync(join(dir, "tasks.jsonl"), `${JSON.stringify({ id: "s1", inputs: { prompt: "a" }, meta })}\n${JSON.stringify({ id: "s2", prompt: "b", meta })}\n`);
    writeFileSync(join(dir, "env.yaml"), `id: with-meta\ndataset: tasks.jsonl\n${RUBRIC}`);
    const env = await loadEnvironment(join(dir, "env.yaml"));
    expect(env.tasks).toEqual([
      { id: "s1", inputs: { prompt: "a" } },
      { id: "s2", inputs: { prompt: "b" } },
    ]);
  });

  it("names file:line:col for a misspelt key, with a suggestion", async () => {
    const e = await loadError({ "env.yaml": `id: x\ndataset: [{ inputs: { prompt: hi } }]\nharness:\n  max_turn: 3\n${RUBRIC}` });
    expect(e.code).toBe("SCHEMA");
    expect(e.message).toMatch(/env\.yaml:4:3: unknown key "max_turn" \(did you mean "max_turns"\?\)/);
  });

  it("locates errors inside an inline rubric at the environment file's own line", async () => {
    const e = await loadError({ "env.yaml": `id: x\ndataset: [{ inputs: { prompt: hi } }]\nrubric:\n  id: r\n  criteria:\n    - id: a\n      question: Is {{nope}} right?\n` });
    expect(e.message).toMatch(/env\.yaml:7:17: criterion "a" uses \{\{nope\}\}/);
  });

  it("a declared tool without an implementation points at its name; an undeclared implementation is named", async () => {
    const hooks = "export const tools = { extra: () => 1 };\n";
    const e = await loadError({
      "env.yaml": `id: x\ndataset: [{ inputs: { prompt: hi } }]\nhooks: ./hooks.mjs\nharness:\n  tools:\n    - name: search\n${RUBRIC}`,
      "hooks.mjs": hooks,
    });
    expect(e.message).toMatch(/env\.yaml:6:13: tool "search" is declared but not implemented: the hooks module \(\.\/hooks\.mjs\) exports no tools\.search/);
    expect(e.issues?.[1].message).toMatch(/hooks implement tool "extra", which harness.tools does not declare/);
  });

  it("a bad dataset line names the dataset file, line and column", async () => {
    const e = await loadError({ "env.yaml": `id: x\ndataset: tasks.jsonl\n${RUBRIC}`, "tasks.jsonl": '{"prompt": "ok"}\n{"prompt": "a" "b"}\n' });
    expect(e.code).toBe("BAD_INPUT");
    expect(e.message).toMatch(/tasks\.jsonl:2:16: invalid JSON: Expected ',' or '}' after property value$/);
  });

  it("a prompt variable a task lacks, a missing rubric file and a missing hooks file are located", async () => {
    const prompt = await loadError({ "env.yaml": `id: x\ndataset:\n  - { id: a, inputs: { question: q } }\nharness:\n  prompt: "Q: {{question}} ({{topic}})"\n${RUBRIC}` });
    expect(prompt.message).toMatch(/env\.yaml:5:11: harness\.prompt uses \{\{topic\}\}, which task "a" does not provide/);
    const rubric = await loadError({ "env.yaml": "id: x\ndataset: [{ inputs: { prompt: hi } }]\nrubric: nowhere.yaml\n" });
    expect(rubric.code).toBe("FILE_NOT_FOUND");
    expect(rubric.message).toMatch(/env\.yaml:3:9: rubric "nowhere\.yaml": no such file/);
    const hooks = await loadError({ "env.yaml": `id: x\ndataset: [{ inputs: { prompt: hi } }]\nhooks: ./gone.ts\n${RUBRIC}` });
    expect(hooks.message).toMatch(/env\.yaml:3:8: hooks "[^"]*gone\.ts": no such file/);
  });

  it("rejects a tool whose parameters are not a JSON Schema, and a hooks module exporting a non-function", async () => {
    const schema = await loadError({ "env.yaml": `id: x\ndataset: [{ inputs: { prompt: hi } }]\nharness:\n  tools:\n    - name: t\n      parameters: { type: 12 }\n${RUBRIC}` });
    expect(schema.message).toMatch(/env\.yaml:6:19: tool "t": invalid JSON Schema/);
    const hooks = await loadError({ "env.yaml": `id: x\ndataset: [{ inputs: { prompt: hi } }]\nhooks: ./h.mjs\n${RUBRIC}`, "h.mjs": "export const envResponse = 3;\n" });
    expect(hooks.message).toMatch(/`envResponse` must be a function/);
  });
});
