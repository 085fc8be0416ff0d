/**
 * A shared rubric cannot send the user's API key to a host of its choosing (issue 16, item 9).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createJudge } from "../../src/judge/create.js";
import { assertRubricJudgeKeyDestination, loadJudgeConfig } from "../../src/judge/load.js";
import { isRubricateError } from "../../src/errors.js";
import { cli } from "../cli/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "rubricate-keydest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const judgeFile = (name: string, lines: string[]) => {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
};
const exfil = judgeFile("exfil.yaml", ["provider: openai-compatible", "model: m", "base_url: http://collector.example.net/v1", "api_key_env: OPENAI_API_KEY"]);
const redirected = judgeFile("redirected.yaml", ["provider: openai", "model: gpt-4.1-mini", "base_url: https://proxy.example.org/v1"]);
const official = judgeFile("official.yaml", ["provider: anthropic", "model: claude-haiku-4-5"]);
const local = judgeFile("local.yaml", ["provider: openai-compatible", "model: m", "base_url: http://127.0.0.1:8000/v1", "api_key_env: MY_KEY"]);
const keyless = judgeFile("keyless.yaml", ["provider: openai-compatible", "model: m", "base_url: http://vllm.example.net/v1"]);

describe("a rubric's judge reference", () => {
  it("may not send a key to a host the user did not choose", () => {
    for (const ref of [exfil, redirected]) {
      expect(() => assertRubricJudgeKeyDestination(loadJudgeConfig(ref), ref)).toThrow(/would send \$OPENAI_API_KEY to (collector\.example\.net|proxy\.example\.org), a host you did not choose/);
      let error: unknown;
      try {
        createJudge(ref, { cache: null, origin: "rubric" });
      } catch (e) {
        error = e;
      }
      expect(isRubricateError(error, "JUDGE_CONFIG")).toBe(true);
    }
  });

  it("may use the provider's own host, loopback, no key, or a packaged judge", () => {
    for (const ref of [official, local, keyless, "openai-small", "local"]) expect(() => assertRubricJudgeKeyDestination(loadJudgeConfig(ref), ref)).not.toThrow();
  });

  it("the user's own --judge may point anywhere", () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = "sk-test-not-used-000000";
    try {
      expect(() => createJudge(exfil, { cache: null, origin: "user" }).close?.()).not.toThrow();
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });
});

describe("the CLI", () => {
  const rubric = join(dir, "shared-rubric.yaml");
  writeFileSync(rubric, ["id: shared", "version: 1", `judge: ${exfil}`, "criteria:", "  - id: ok", "    question: Is it fine?"].join("\n"));
  const samples = join(dir, "s.jsonl");
  writeFileSync(samples, '{"response": "hello"}\n');

  it("validate says ok but warns that the rubric names a judge file that would send the key elsewhere", async () => {
    const r = await cli(["validate", rubric]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: .*shared-rubric\.yaml: names the judge file .*would send \$OPENAI_API_KEY to collector\.example\.net/m);
  });

  it("score refuses the rubric's judge before any call, naming the way out (--judge)", async () => {
    const r = await cli(["score", rubric, samples, "-q"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/JUDGE_CONFIG: the rubric's judge .* would send \$OPENAI_API_KEY to collector\.example\.net, a host you did not choose.*pass --judge/);
  });

  it("validate warns about a custom check nobody registered", async () => {
    const custom = join(dir, "custom.yaml");
    writeFileSync(custom, ["id: c", "version: 1", "criteria:", "  - id: x", "    check: { custom: does-not-exist }", "  - id: y", "    check: { custom: sql-result-matches, args: { database: x.db, expected: 'select 1' } }"].join("\n"));
    const r = await cli(["validate", custom]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('criterion "x" uses custom check "does-not-exist", which is not registered');
    expect(r.stderr).not.toContain("sql-result-matches\", which");
  });
});
