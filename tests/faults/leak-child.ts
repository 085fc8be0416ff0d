/**
 * Runs 10,000 `score()` calls (one sample each, a 10-question batched rubric), all sharing one
 * AbortSignal, and prints heap-after-GC and active-resource counts at checkpoints as JSON.
 * argv[2]: the judge server's URL (through the OpenAI SDK and HTTP), or "scripted" (a provider
 * with our per-call deadline and a timer, no HTTP: the engine, scheduler and judge alone).
 * Run with --expose-gc.
 */
import { getEventListeners } from "node:events";
import { score } from "../../src/score/score.js";
import { createJudge } from "../../src/judge/create.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import { withDeadline } from "../../src/providers/call.js";
import type { Provider } from "../../src/providers/types.js";

const url = process.argv[2];
const total = Number(process.argv[3] ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
const rubric = loadRubricSync("tests/fixtures/rubrics/ten-questions.yaml");
const scripted: Provider = {
  name: "openai-compatible",
  baseURL: "http://127.0.0.1:9/v1",
  complete: (request, options) =>
    withDeadline("scripted", [], options, async (scope) => {
      await new Promise((r) => setTimeout(r, 1));
      if (scope.signal.aborted) throw new Error("aborted");
      const ids = [...JSON.stringify(request.messages).matchAll(/- id: (q\d+)/g)].map((m) => m[1]);
      const text = JSON.stringify({ answers: ids.map((id) => ({ id, reason: "r", verdict: id === "q1" })) });
      return { text, finishReason: "stop", usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 0 } };
    }),
};
const config = { provider: "openai-compatible" as const, base_url: url === "scripted" ? scripted.baseURL : url, model: "leak-judge", max_concurrency: 16, timeout_ms: 10_000 };
const judge = createJudge(config, { cache: null, ...(url === "scripted" ? { provider: scripted } : {}) });
const controller = new AbortController();

const resources = () => {
  const counts: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) counts[r] = (counts[r] ?? 0) + 1;
  return counts;
};
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 50));
    gc();
  }
};
const checkpoints: { calls: number; heap: number; resources: Record<string, number>; listeners: number }[] = [];
let calls = 0;
const batch = 50;
while (calls < total) {
  await Promise.all(
    Array.from({ length: batch }, async (_, k) => {
      const i = calls + k;
      const [r] = await score(rubric, [{ id: i, question: "Where?", response: `Sample #${i}: Paris.` }], { judge, signal: controller.signal });
      if (r.errors.length > 0) throw new Error(JSON.stringify(r.errors));
    }),
  );
  calls += batch;
  if (calls % 1000 === 0) {
    await settle();
    checkpoints.push({ calls, heap: process.memoryUsage().heapUsed, resources: resources(), listeners: getEventListeners(controller.signal, "abort").length });
  }
}
process.stdout.write(JSON.stringify({ checkpoints, paid: judge.engine.stats().usage.calls }));
judge.close?.();
