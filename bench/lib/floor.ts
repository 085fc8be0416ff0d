/**
 * The floor of the throughput benchmarks: the same chat-completion requests rubricate sends,
 * posted by a bare `node:http` keep-alive client with no library around it (the bodies are built
 * before the clock starts; the client only sends them and parses each answer's JSON). Against the
 * fake judge on this machine it shows what the server, the loopback and Node's http leave of the
 * ideal, measured in the same run as the libraries: a ratio no library can beat by much.
 */
import { writeFileSync } from "node:fs";
import { bareClientRun } from "../floor-client.mjs";
import { createJudge } from "../../src/judge/create.js";
import { toOpenAIBody } from "../../src/providers/openai-wire.js";
import type { CompletionRequest, CompletionResponse, Provider } from "../../src/providers/types.js";
import type { Rubric } from "../../src/rubric/schema.js";
import { score } from "../../src/score/score.js";
import type { Sample } from "../../src/types.js";

export { bareClientRun };

/**
 * The exact request bodies rubricate's judge sends for `samples` in `mode` (as JSON text, one per
 * call), captured by scoring them against a provider that records each request and answers at once.
 */
export async function judgeBodies(rubric: Rubric, samples: Iterable<Sample>, mode: "single" | "batched"): Promise<string[]> {
  const bodies: string[] = [];
  const ids = rubric.criteria.map((c) => c.id);
  const recorder: Provider = {
    name: "openai-compatible",
    async complete(request: CompletionRequest): Promise<CompletionResponse> {
      bodies.push(JSON.stringify(toOpenAIBody(request, "openai-compatible")));
      const text = mode === "single" ? `{"verdict": true}` : JSON.stringify({ answers: ids.map((id) => ({ id, verdict: true })) });
      return { text, finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 } };
    },
  };
  const judge = createJudge({ provider: "openai-compatible", base_url: "http://127.0.0.1:9/v1", model: "bench-judge", mode }, { cache: null, provider: recorder });
  try {
    const results = await score(rubric, samples, { judge, concurrency: 64 });
    if (results.some((r) => r.errors.length > 0)) throw new Error(`capturing the judge's requests: ${results.find((r) => r.errors.length > 0)!.errors[0].message}`);
  } finally {
    await judge.close?.();
  }
  return bodies;
}

/** Writes bodies one per line (JSON text has no raw newline), for a floor run in a fresh process. */
export function writeBodies(file: string, bodies: readonly string[]): void {
  writeFileSync(file, bodies.join("\n") + "\n");
}
