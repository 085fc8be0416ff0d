import { readFileSync } from "node:fs";
import * as z from "zod";
import { explainIssues } from "../config/issues.js";
import { joinIssues, parseYamlSource } from "../config/yaml-source.js";
import { createEngine } from "../engine/engine.js";
import { createPolicy } from "../env/policy.js";
import { rollout } from "../env/rollout.js";
import type { Environment, RolloutRecord } from "../env/types.js";
import { RubricateError } from "../errors.js";
import type { Judge, JudgeAnswer } from "../judge/types.js";
import { createScriptedProvider } from "../providers/index.js";
import type { CompletionResponse } from "../providers/types.js";
import { emptyUsage, type VerdictOrError } from "../types.js";

/** One reply of a scripted policy: text, or a call of one of the environment's tools. */
const ReplySchema = z.union([z.string(), z.strictObject({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()).default({}) })]);

/** A scripted test: a task, the policy's replies in order, the judge's answers, and what the rollout must score. */
export const ScriptedTestSchema = z.strictObject({
  name: z.string().min(1),
  task: z
    .union([z.string(), z.number()])
    .transform(String)
    .or(z.strictObject({ inputs: z.record(z.string(), z.unknown()), answer: z.unknown().optional(), criteria: z.array(z.unknown()).optional() }))
    .describe("A task id of the environment's dataset, or a task written out ({ inputs, answer }): a test that must not depend on which tasks `env filter` keeps"),
  replies: z.array(ReplySchema).min(1).describe("The policy's messages in order; { tool, args } calls a tool"),
  judge: z.record(z.string(), z.boolean()).default({}).describe("Answers to the rubric's judge questions, by criterion id (no LLM is called)"),
  expect: z.strictObject({
    reward: z.number().optional(),
    passed: z.boolean().optional(),
    criteria: z.record(z.string(), z.enum(["met", "unmet", "skipped"])).optional(),
    stop: z.string().optional(),
  }),
});
export type ScriptedTest = z.infer<typeof ScriptedTestSchema>;

const ScriptedTestsSchema = z.array(ScriptedTestSchema).min(1);

/** Reads a scripted tests file (a YAML list); errors name file:line:col. */
export function loadScriptedTests(path: string): ScriptedTest[] {
  const source = parseYamlSource(readFileSync(path, "utf8"), { filename: path });
  const parsed = ScriptedTestsSchema.safeParse(source.data);
  if (!parsed.success) {
    const issues = explainIssues(parsed.error, source.data, { schema: ScriptedTestsSchema }).map((i) => ({ message: i.message, location: source.locate(i.path, { key: i.key }) }));
    throw new RubricateError("SCHEMA", joinIssues(issues), { location: issues[0].location, issues });
  }
  return parsed.data;
}

/** The outcome of one scripted test: the rollout it produced and every expectation it missed. */
export interface ScriptedTestResult {
  name: string;
  ok: boolean;
  failures: string[];
  record?: RolloutRecord;
}

/**
 * Plays one scripted test through the real rollout loop (hooks, tools, stop rules, rubric) with a
 * scripted policy and a scripted judge: what `rubricate env check` runs before a publish.
 * @example const r = await runScriptedTest(env, { name: "solves", task: "1", replies: ["GUESS: crane"], judge: {}, expect: { passed: true } })
 */
export async function runScriptedTest(env: Environment, test: ScriptedTest): Promise<ScriptedTestResult> {
  const task = typeof test.task === "string" ? env.tasks.find((t) => t.id === test.task) : { id: `test:${test.name}`, ...test.task };
  if (!task) return { name: test.name, ok: false, failures: [`no task "${test.task}" in the dataset`] };
  const provider = createScriptedProvider((request): CompletionResponse => {
    const turn = request.messages.filter((m) => m.role === "assistant").length;
    const reply = test.replies[turn] ?? "";
    const usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
    if (typeof reply === "string") return { text: reply, finishReason: "stop", usage };
    return { text: "", toolCalls: [{ id: `call_${turn}`, name: reply.tool, arguments: JSON.stringify(reply.args) }], finishReason: "tool_calls", usage };
  });
  const policy = createPolicy({ provider: "openai-compatible", model: "scripted", base_url: "http://127.0.0.1:9/v1", id: `scripted:${test.name}`, max_retries: 0 }, { provider, defaults: env.policy });
  const engine = createEngine({ limits: { maxConcurrency: 1, maxRetries: 0, timeoutMs: 60_000 } });
  let record: RolloutRecord;
  try {
    record = await rollout(env, policy, task, { engine, judge: scriptedJudge(test) });
  } finally {
    engine.close();
  }
  const failures: string[] = [];
  const e = test.expect;
  if (record.error) failures.push(`the rollout failed: ${record.error.message}`);
  for (const err of record.errors) failures.push(`criterion ${err.criterion}: ${err.code}: ${err.message}`);
  if (e.reward !== undefined && (record.reward === null || Math.abs(record.reward - e.reward) > 1e-9)) failures.push(`reward ${record.reward}, expected ${e.reward}`);
  if (e.passed !== undefined && record.passed !== e.passed) failures.push(`passed ${record.passed}, expected ${e.passed}`);
  if (e.stop !== undefined && record.stopReason !== e.stop) failures.push(`stopped by ${record.stopReason}, expected ${e.stop}`);
  for (const [id, want] of Object.entries(e.criteria ?? {})) {
    const got = record.verdicts.find((v) => v.id === id);
    if (!got) failures.push(`criterion ${id}: not in the rubric`);
    else if (got.status !== want) failures.push(`criterion ${id}: ${got.status}, expected ${want}${got.reasoning ? ` (${got.reasoning})` : ""}`);
  }
  return { name: test.name, ok: failures.length === 0, failures, record };
}

/** A judge that answers from the test's `judge:` map and never guesses: an unanswered question is an error. */
function scriptedJudge(test: ScriptedTest): Judge {
  return {
    id: "scripted",
    async answer(request): Promise<JudgeAnswer> {
      const verdicts = new Map<string, VerdictOrError>();
      for (const q of request.questions) {
        const yes = test.judge[q.id];
        verdicts.set(q.id, yes === undefined ? new RubricateError("NO_JUDGE", `test "${test.name}" gives no judge answer for "${q.id}" (add it under judge:)`) : { pass: yes, source: "llm", reasoning: "scripted answer" });
      }
      return { verdicts, usage: emptyUsage() };
    },
    usage: emptyUsage,
  };
}
