/**
 * Judge request size and prompt-cache reuse per mode, measured on the wire: a 12-question rubric
 * with worked examples (tests/fixtures/rubrics/twelve-questions.yaml) over distinct samples, on
 * the local OpenAI and Anthropic servers. "shared" is the part of a request (in the order a
 * provider's prompt cache reads it) that the same call for another sample repeats; the target is
 * ≥ 90% of the characters that are not the sample's own. Also the one-question call beside
 * autoevals 0.3.0's ClosedQA for the same question (its request measured once on the wire; the
 * figures are in BENCHMARKS.md, autoevals is not a dependency).
 */
import { join } from "node:path";
import { score } from "../src/score/score.js";
import { createJudge } from "../src/judge/create.js";
import type { JudgeConfigInput } from "../src/judge/config.js";
import { loadRubricSync, parseRubric } from "../src/rubric/load.js";
import type { Rubric } from "../src/rubric/schema.js";
import { startAnthropicServer } from "../src/testing/servers/anthropic-server.js";
import { startOpenAIServer } from "../src/testing/servers/openai-server.js";
import { judgeResponder, viewRequest } from "../src/testing/servers/judge-responder.js";
import { measurePromptShare, type PromptShare } from "../src/testing/prompt-share.js";
import type { Sample } from "../src/types.js";
import { ROOT, round, type BenchContext, type BenchResult } from "./lib/common.js";

const KEY_ENV = "RUBRICATE_BENCH_KEY";

/** The 12-question rubric with worked examples. */
export const twelveQuestions = (): Rubric => loadRubricSync(join(ROOT, "tests/fixtures/rubrics/twelve-questions.yaml"));

/** Distinct patient questions and answers of a few hundred characters. */
export function patientSamples(n: number): Sample[] {
  return Array.from({ length: n }, (_, i) => ({
    question: `I have had a mild headache for ${i + 1} days. What should I do?`,
    response: `For a headache that has lasted ${i + 1} days: drink water, rest in a dark room and take paracetamol if you need it. See a doctor if it lasts more than ${i + 3} days, or call emergency services at once if it is sudden and severe with a stiff neck. Case ${i}.`,
  }));
}

/** The question of the autoevals comparison, as its ClosedQA was measured (BENCHMARKS.md). */
export const AUTOEVALS_CASE = {
  input: "What should I do about a mild headache?",
  output: "Drink water, rest, and take paracetamol if needed. See a doctor if it lasts more than three days.",
  criteria: "Does the response tell the person when to see a doctor?",
};

/** Requests a judge sends for these samples, on a local server of `provider`, grouped by call (same questions, other samples). */
export async function wireRequests(rubric: Rubric, samples: Sample[], provider: "anthropic" | "openai", config: Partial<JudgeConfigInput>): Promise<{ body: Record<string, unknown>; sampleChars: number }[][]> {
  process.env[KEY_ENV] ??= "bench-not-a-secret";
  const respond = judgeResponder(() => true);
  const server = provider === "anthropic" ? await startAnthropicServer({ respond }) : await startOpenAIServer({ respond });
  try {
    const judge = createJudge({ provider: provider === "anthropic" ? "anthropic" : "openai-compatible", base_url: server.url, model: "bench-judge", api_key_env: KEY_ENV, ...config }, { cache: null });
    const results = await score(rubric, samples, { judge, concurrency: 1 });
    judge.close?.();
    if (results.some((r) => r.errors.length > 0)) throw new Error(`prompt bench ${provider}: judge errors`);
    const groups = new Map<string, { body: Record<string, unknown>; sampleChars: number }[]>();
    for (const r of server.requests) {
      const body = r.body as Record<string, unknown>;
      const view = viewRequest(body);
      const key = view.questions.map((q) => q.id).join(",");
      const own = samples.find((s) => view.sample.includes(String(s.response)));
      const sampleChars = own ? rubric.inputs.reduce((sum, name) => sum + String(own[name] ?? "").length, 0) : 0;
      groups.set(key, [...(groups.get(key) ?? []), { body, sampleChars }]);
    }
    return [...groups.values()];
  } finally {
    await server.close();
  }
}

interface Row {
  provider: string;
  mode: string;
  requestChars: number;
  nonSampleChars: number;
  sharedChars: number;
  share: number;
}

/** Runs the prompt benchmark. */
export async function prompt(ctx: BenchContext): Promise<BenchResult<Row>> {
  const rubric = twelveQuestions();
  const samples = patientSamples(ctx.quick ? 3 : 6);
  const rows: Row[] = [];
  for (const provider of ["openai", "anthropic"] as const) {
    for (const mode of ["batched", "single"] as const) {
      const m: PromptShare = measurePromptShare(await wireRequests(rubric, samples, provider, { mode }));
      rows.push({ provider, mode, requestChars: Math.round(m.requestChars), nonSampleChars: Math.round(m.nonSampleChars), sharedChars: Math.round(m.sharedChars), share: round(m.share * 100, 1) });
    }
  }
  const one = parseRubric(`id: closed-qa\ninputs: [input, output]\ncriteria:\n  - { id: meets, question: ${JSON.stringify(AUTOEVALS_CASE.criteria)} }\n`, { filename: "closed-qa.yaml" });
  const [single] = await wireRequests(one, [{ input: AUTOEVALS_CASE.input, output: AUTOEVALS_CASE.output, response: AUTOEVALS_CASE.output }], "openai", { mode: "single" });
  const oneChars = JSON.stringify(single[0].body).length;
  return {
    title: "Judge request characters and prompt-cache share across samples (12-question rubric with worked examples)",
    rows,
    columns: [
      { label: "server", value: "provider" },
      { label: "mode", value: "mode" },
      { label: "request chars", value: "requestChars", numeric: true },
      { label: "non-sample chars", value: "nonSampleChars", numeric: true },
      { label: "shared across samples", value: "sharedChars", numeric: true },
      { label: "shared %", value: "share", numeric: true },
    ],
    notes: [
      `one-question call (OpenAI wire, the default judge): ${oneChars} request characters; autoevals 0.3.0 ClosedQA for the same question: 1,357 (use_cot, its default) / 940 (no CoT).`,
      `target: shared ≥ 90% of non-sample characters — ${rows.every((r) => r.share >= 90) ? "met" : "NOT met"} (lowest ${Math.min(...rows.map((r) => r.share))}%).`,
    ],
    extra: { oneQuestionChars: oneChars },
  };
}
