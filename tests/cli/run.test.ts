/**
 * `mode: batch` in a judge file is carried out by `score` alone: every other command asks the
 * judge live, and a user who set it expecting the batch price must be told before paying.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgeResponder, startOpenAIServer } from "../../src/testing/index.js";
import { runCli, tempDir, writeJsonl } from "../helpers/cli.js";

let server: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  server = await startOpenAIServer({ respond: judgeResponder((_, view) => view.sample.includes("Paris")) });
});
afterAll(() => server.close());

function files(mode: string) {
  const dir = tempDir();
  const rubric = join(dir, "rubric.yaml");
  writeFileSync(rubric, "id: r\ninputs: [response]\ncriteria:\n  - { id: paris, question: Does it name Paris?, points: 1 }\n");
  const judge = join(dir, "judge.yaml");
  writeFileSync(judge, `id: my-judge\nprovider: openai-compatible\nmodel: m\nbase_url: ${server.url}\napi_key_env: RUBRICATE_TEST_KEY\nmode: ${mode}\n`);
  const input = writeJsonl(dir, "rows.jsonl", [{ prompt: "Capital of France?", response: "Paris." }, { prompt: "Capital of France?", response: "Lyon." }]);
  return { dir, rubric, judge, input };
}
const env = { env: { RUBRICATE_TEST_KEY: "sk-test" } };

describe("a batch judge in a command that asks live", () => {
  it("distill --rescore warns before it pays the live price, and names the way to the batch price", async () => {
    const { dir, rubric, judge, input } = files("batch");
    const out = join(dir, "kept.jsonl");
    const result = await runCli(["distill", input, "--rubric", rubric, "--judge", judge, "--rescore", "--no-cache", "-o", out, "-q"], env);
    expect(result.stderr).toContain("warning: judge my-judge has mode: batch, which only `rubricate score` carries out; distill asks it live, at the live price (for the batch price, run `rubricate score … --batch` over the same samples first");
    expect(result.code).toBe(0);
    expect(readFileSync(out, "utf8").trim().split("\n")).toHaveLength(2);
  });

  it("says nothing for a live judge", async () => {
    const { dir, rubric, judge, input } = files("batched");
    const result = await runCli(["distill", input, "--rubric", rubric, "--judge", judge, "--rescore", "--no-cache", "-o", join(dir, "kept.jsonl"), "-q"], env);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });
});
