/**
 * Calls and input tokens per sample for a 10-question rubric, batched vs single, with provider
 * prefix caching counted or not. The Anthropic server simulates `cache_control` prefix reads
 * (rubricate marks the shared rubric+sample prefix); the OpenAI server caches only at message
 * boundaries, which for rubricate's prompt is the system prompt.
 */
import { score } from "../src/score/score.js";
import { createJudge } from "../src/judge/create.js";
import { startAnthropicServer } from "../src/testing/servers/anthropic-server.js";
import { startOpenAIServer } from "../src/testing/servers/openai-server.js";
import { judgeResponder } from "../src/testing/servers/judge-responder.js";
import { round, samples, tenQuestions, type BenchContext, type BenchResult } from "./lib/common.js";

interface Row {
  provider: string;
  mode: string;
  callsPerSample: number;
  inputPerSample: number;
  cachedPerSample: number;
  uncachedPerSample: number;
  outputPerSample: number;
}

const KEY_ENV = "RUBRICATE_BENCH_KEY";

/** Runs the tokens benchmark. */
export async function tokens(ctx: BenchContext): Promise<BenchResult<Row>> {
  process.env[KEY_ENV] ??= "bench-not-a-secret";
  const rubric = tenQuestions();
  const n = ctx.quick ? 20 : 100;
  const rows: Row[] = [];
  for (const provider of ["anthropic", "openai-compatible"] as const) {
    for (const mode of ["batched", "single"] as const) {
      const respond = judgeResponder((q) => ["q1", "q3", "q5"].includes(q.id));
      const server = provider === "anthropic" ? await startAnthropicServer({ respond, recordBodies: false }) : await startOpenAIServer({ respond, recordBodies: false });
      const judge = createJudge({ provider, base_url: server.url, model: "bench-judge", mode, api_key_env: KEY_ENV, max_concurrency: 8 }, { cache: null });
      // ~4,000-character responses: the shared prefix passes the 1,024-token minimum of both providers' caches.
      const results = await score(rubric, samples(n, 4000), { judge, concurrency: 4 });
      if (results.some((r) => r.errors.length > 0)) throw new Error(`tokens ${provider}/${mode}: errors`);
      const u = judge.engine.stats().usage;
      rows.push({
        provider: provider === "anthropic" ? "anthropic" : "openai",
        mode,
        callsPerSample: round(u.calls / n, 2),
        inputPerSample: Math.round(u.inputTokens / n),
        cachedPerSample: Math.round(u.cachedInputTokens / n),
        uncachedPerSample: Math.round((u.inputTokens - u.cachedInputTokens) / n),
        outputPerSample: Math.round(u.outputTokens / n),
      });
      judge.close?.();
      await server.close();
    }
  }
  const batched = rows.filter((r) => r.mode === "batched");
  const worst = Math.max(...batched.map((r) => r.callsPerSample));
  return {
    title: `Calls and tokens per sample, 10-question rubric (${n} samples of ~4,000 characters)`,
    rows,
    columns: [
      { label: "server", value: "provider" },
      { label: "mode", value: "mode" },
      { label: "calls/sample", value: "callsPerSample", numeric: true },
      { label: "input tokens/sample", value: "inputPerSample", numeric: true },
      { label: "of which prefix-cached", value: "cachedPerSample", numeric: true },
      { label: "uncached input/sample", value: "uncachedPerSample", numeric: true },
      { label: "output tokens/sample", value: "outputPerSample", numeric: true },
    ],
    notes: [
      "input tokens = without prefix caching counted; uncached input = with it (cached tokens bill at 10% on Anthropic, 50% on OpenAI).",
      "Tokens are the servers' rough counts (4 characters a token).",
      `target: batched ≤ 1.2 calls/sample — ${worst <= 1.2 ? "met" : "NOT met"} (${worst}).`,
    ],
  };
}
