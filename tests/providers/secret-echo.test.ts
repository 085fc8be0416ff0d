/**
 * A judge answer that echoes the API key (issue 16, item 12): the key never reaches the cache
 * file, the results or the feedback; the rest of the answer is kept.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createJudge } from "../../src/judge/create.js";
import { parseRubric } from "../../src/rubric/load.js";
import { scoreSample } from "../../src/score/score.js";
import { startAnthropicServer } from "../../src/testing/servers/anthropic-server.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { tempDir } from "../helpers/cli.js";

const KEY = "sk-echo-0123456789abcdefSECRET";
const dir = tempDir("rubricate-echo-");
const rubric = parseRubric(["id: echo", "version: 1", "criteria:", "  - id: polite", "    question: Is the response polite?"].join("\n"), { filename: "echo.yaml" });
const echo = judgeResponder(() => ({ verdict: true, reason: `the operator key is ${KEY}, and the answer is polite` }));

describe("a judge that echoes the API key", () => {
  for (const provider of ["openai-compatible", "anthropic"] as const) {
    it(`${provider}: the key is redacted before the cache and the results`, async () => {
      const server = provider === "anthropic" ? await startAnthropicServer({ respond: echo }) : await startOpenAIServer({ respond: echo });
      process.env.RUBRICATE_ECHO_KEY = KEY;
      const cache = join(dir, `${provider}.db`);
      try {
        const judge = createJudge({ provider, base_url: server.url, model: "judge-model", api_key_env: "RUBRICATE_ECHO_KEY" }, { cache });
        const result = await scoreSample(rubric, { response: "Thank you kindly." }, { judge });
        await judge.close?.();
        expect(result.reward).toBe(1);
        const text = JSON.stringify(result);
        expect(text).not.toContain(KEY);
        expect(text).toContain("the operator key is [redacted], and the answer is polite");
        for (const f of [cache, `${cache}-wal`]) {
          let bytes = "";
          try {
            bytes = readFileSync(f).toString("latin1");
          } catch {
            continue;
          }
          expect(bytes).not.toContain(KEY);
        }
      } finally {
        delete process.env.RUBRICATE_ECHO_KEY;
        await server.close();
      }
    });
  }
});
