import { afterAll, beforeAll, expect, it } from "vitest";
import { runEval } from "rubricate/env";
import { loadEnvironment } from "rubricate/env";
import { createPolicy } from "rubricate/env";
import type { Environment } from "rubricate/env";
import type { TestServer } from "rubricate/testing";
import { connect, startWorld, type WireMessage } from "../../tests/env/world.js";
import { needsBubblewrap, needsPython } from "../../tests/sandbox/helpers.js";

const bwrap = needsBubblewrap();
const python = needsPython();

const turnOf = (m: WireMessage[]) => m.filter((x) => x.role === "assistant").length;
const py = (turn: number, code: string) => ({ toolCalls: [{ id: `py${turn}`, name: "python", arguments: JSON.stringify({ code }) }] });
const submit = (turn: number, answer: string) => ({ toolCalls: [{ id: `s${turn}`, name: "submit", arguments: JSON.stringify({ answer }) }] });
const placeOf = (m: WireMessage[]) => /access code of the ([a-z ]+)\?/.exec(m.find((x) => x.role === "user")?.content ?? "")?.[1] ?? "";
const lastTool = (m: WireMessage[]) => [...m].reverse().find((x) => x.role === "tool")?.content ?? "";

/** An RLM: measures the context, cuts the excerpt around the place, asks the sub-model about it, submits. */
function rlm(m: WireMessage[]) {
  const t = turnOf(m);
  const place = placeOf(m);
  if (t === 0) return py(t, `print(len(context))\ni = context.find(${JSON.stringify(`access code of the ${place} is`)})\nexcerpt = context[max(0, i - 300):i + 300]\nprint(i, len(excerpt))`);
  if (t === 1) return py(t, `answer = llm_query(${JSON.stringify(`Excerpt:\n`)} + excerpt + ${JSON.stringify(`\n\nWhat is the access code of the ${place}? Reply with the four digits only.`)})\nprint(answer)`);
  return submit(t, /stdout:\n(\d{4})/.exec(lastTool(m))?.[1] ?? "none");
}

/** Hands the whole document to the sub-model, then spends the budget in a loop: both refused. */
function greedy(m: WireMessage[]) {
  const t = turnOf(m);
  if (t === 0) return py(t, "print(llm_query(context))");
  if (t === 1) return py(t, "answers = [llm_query('x') for _ in range(20)]");
  return submit(t, "0000");
}

/** An RLM that hands a 400 kB slice to a sub-RLM (rlm_query) instead of cutting the excerpt itself. */
function recursive(m: WireMessage[]) {
  const t = turnOf(m);
  const place = placeOf(m);
  if (t === 0) return py(t, `i = context.find(${JSON.stringify(`access code of the ${place} is`)})\npart = context[max(0, i - 200000):i + 200000]\nprint(len(part))`);
  if (t === 1) return py(t, `print(rlm_query(${JSON.stringify(`What is the access code of the ${place}? Reply with the four digits only.`)}, part))`);
  return submit(t, /stdout:\n(\d{4})/.exec(lastTool(m))?.[1] ?? "none");
}

/**
 * The sub-model. Called with the python tool (a sub-RLM), it searches its own REPL's context
 * first and answers from what it printed; called plainly (llm_query), it reads the code out of
 * the excerpt in its prompt.
 */
function sub(m: WireMessage[], body: Record<string, unknown>) {
  const prompt = m.find((x) => x.role === "user")?.content ?? "";
  if (Array.isArray(body.tools)) {
    const place = /access code of the ([a-z ]+)\?/.exec(prompt)?.[1];
    const seen = [...m].reverse().find((x) => x.role === "tool")?.content;
    if (seen === undefined) return py(0, `j = context.find(${JSON.stringify(`access code of the ${place} is`)})\nprint(len(context), context[j:j + 60])`);
    return /is (\d{4})\./.exec(seen ?? "")?.[1] ?? "unknown";
  }
  const place = /What is the access code of the ([a-z ]+)\?/.exec(prompt)?.[1];
  return new RegExp(`access code of the ${place} is (\\d{4})`).exec(prompt)?.[1] ?? "unknown";
}

let server: TestServer<unknown>;
let env: Environment;
bwrap.describe("rlm-docqa example", () => {
  python.describe("with python3", () => {
    beforeAll(async () => {
      env = await loadEnvironment("examples/rlm-docqa/env.yaml");
      server = await startWorld({ rlm, greedy, recursive, sub }, () => true);
    });
    afterAll(() => server?.close());

    it("answers from a multi-megabyte document that never enters a prompt; llm_query goes through the host's engine", async () => {
      const { engine, judge, policies } = connect(server.url, ["rlm"]);
      const subModel = createPolicy({ provider: "openai-compatible", model: "sub", base_url: server.url, max_retries: 1, price: { input: 1, output: 1 } });
      const { records } = await runEval(env, { policies, engine, judge, models: { sub: subModel }, concurrency: 3 });
      expect(records).toHaveLength(3);
      for (const r of records) {
        expect(r.error).toBeUndefined();
        expect(r.stopReason).toBe("submitted");
        expect(r.reward).toBe(1);
        const size = Number(/stdout:\n(\d+)/.exec(r.toolCalls[0].result)?.[1]);
        expect(size).toBeGreaterThan(3 * 1024 * 1024 - 1);
        expect(r.usage.hooks).toMatchObject({ calls: 1, cacheHits: 0 });
      }
      const bodies = server.requests.map((q) => ({ model: (q.body as { model: string }).model, bytes: JSON.stringify(q.body).length }));
      // Neither the policy nor the sub-model ever received the document.
      expect(Math.max(...bodies.filter((b) => b.model === "rlm").map((b) => b.bytes))).toBeLessThan(16_000);
      expect(Math.max(...bodies.filter((b) => b.model === "sub").map((b) => b.bytes))).toBeLessThan(4_000);
      expect(bodies.filter((b) => b.model === "sub")).toHaveLength(3);
    });

    it("rlm_query starts a sub-RLM with a REPL of its own over a slice, within max_depth", async () => {
      const deep: Environment = { ...env, tasks: env.tasks.slice(0, 1), sandbox: { ...env.sandbox!, repl: { ...env.sandbox!.repl!, max_depth: 2 } } };
      const subModel = createPolicy({ provider: "openai-compatible", model: "sub", base_url: server.url, max_retries: 1 });
      const before = server.requests.length;
      const { engine, judge, policies } = connect(server.url, ["recursive"]);
      const [r] = (await runEval(deep, { policies, engine, judge, models: { sub: subModel } })).records;
      expect(r.error).toBeUndefined();
      expect(r.reward).toBe(1);
      // The sub-RLM's two turns: its python call saw a 400 kB context of its own, then it answered.
      const subCalls = server.requests.slice(before).filter((q) => (q.body as { model: string }).model === "sub");
      expect(subCalls).toHaveLength(2);
      expect(JSON.stringify(subCalls[1].body)).toMatch(/stdout:\\n400000 access code of the north warehouse is 4711\./);
      expect(Math.max(...subCalls.map((q) => JSON.stringify(q.body).length))).toBeLessThan(8_000);
      expect(r.usage.hooks?.calls).toBe(2);

      // At the default max_depth 1 the same call is refused inside the REPL.
      const { engine: e2, judge: j2, policies: p2 } = connect(server.url, ["recursive"]);
      const [shallow] = (await runEval({ ...env, tasks: env.tasks.slice(0, 1) }, { policies: p2, engine: e2, judge: j2, models: { sub: subModel } })).records;
      expect(shallow.toolCalls[1].result).toMatch(/error: RuntimeError: rlm_query at depth 1: its REPL's own calls would exceed max_depth 1; use llm_query/);
      expect(shallow.reward).toBe(0);
    });

    it("refuses a prompt over max_prompt_chars and calls past max_calls, inside the REPL", async () => {
      const { engine, judge, policies } = connect(server.url, ["greedy"]);
      const subModel = createPolicy({ provider: "openai-compatible", model: "sub", base_url: server.url, max_retries: 1 });
      const { records } = await runEval({ ...env, tasks: env.tasks.slice(1, 2) }, { policies, engine, judge, models: { sub: subModel } });
      const r = records[0];
      expect(r.toolCalls[0].result).toMatch(/error: RuntimeError: prompt of 3\d{6} characters; llm_query takes at most 20000/);
      expect(r.toolCalls[1].result).toMatch(/error: RuntimeError: llm_query budget spent: 8 calls per rollout/);
      expect(r.usage.hooks?.calls).toBe(8);
      expect(r.reward).toBe(0);
    });
  });
});
