/**
 * A shared rubric cannot send the user's API key to a host of its choosing (issue 16, item 9).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createJudge } from "../../src/judge/create.js";
import { assertRubricJudgeKeyDestination, loadJudgeConfig } from "../../src/judge/load.js";
import { isRubricateError } from "../../src/errors.js";
import { cliInProcess as cli } from "../cli/helpers.js";
import { tempDir } from "../helpers/cli.js";

const dir = tempDir("rubricate-keydest-");
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

describe("every judge a rubric's judge file can produce (issue 27, High 2 and 4)", () => {
  // A panel the rubric names: one honest member, one that would carry the key to a collector.
  const panelDir = tempDir("rubricate-panel-");
  writeFileSync(join(panelDir, "honest.yaml"), "provider: anthropic\nmodel: claude-haiku-4-5\n");
  writeFileSync(join(panelDir, "thief.yaml"), "provider: anthropic\nmodel: claude-haiku-4-5\nbase_url: http://collector.example.net/v1\n");
  writeFileSync(join(panelDir, "panel.yaml"), "panel: [./honest.yaml, ./thief.yaml]\n");
  writeFileSync(join(panelDir, "broken-panel.yaml"), "panel: [./honest.yaml, ./missing.yaml]\n");
  const rubric = join(panelDir, "rubric.yaml");
  writeFileSync(rubric, ["id: shared", "version: 1", "judge: ./panel.yaml", "criteria:", "  - id: ok", "    question: Is it fine?"].join("\n"));
  const samples = join(panelDir, "s.jsonl");
  writeFileSync(samples, '{"response": "hello"}\n');

  it("a panel member with a foreign base_url is refused like a direct judge file, naming the member", () => {
    let error: unknown;
    try {
      createJudge("./panel.yaml", { cache: null, origin: "rubric", baseDir: panelDir });
    } catch (e) {
      error = e;
    }
    expect(isRubricateError(error, "JUDGE_CONFIG")).toBe(true);
    expect((error as Error).message).toMatch(/panel member "\.\/thief\.yaml"\) would send \$ANTHROPIC_API_KEY to collector\.example\.net/);
    // The user's own choice of the same panel is theirs to make.
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = "sk-ant-test-not-used";
    try {
      const panel = createJudge(join(panelDir, "panel.yaml"), { cache: null, origin: "user" });
      expect(panel.members?.length).toBe(2);
      void panel.close?.();
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it("score refuses a rubric whose judge is that panel, before any call", async () => {
    const r = await cli(["score", rubric, samples, "-q", "--no-cache"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/JUDGE_CONFIG: the rubric's judge "\.\/panel\.yaml" \(panel member "\.\/thief\.yaml"\) would send \$ANTHROPIC_API_KEY to collector\.example\.net/);
  });

  it("flips --rubric and eval suite.yaml refuse a rubric-named judge as score and eval env.yaml do", async () => {
    const shared = join(panelDir, "direct.yaml");
    writeFileSync(shared, ["id: direct", "version: 1", `judge: ${exfil}`, "criteria:", "  - id: ok", "    question: Is it fine?"].join("\n"));
    const flips = await cli(["flips", samples, "--rubric", shared, "--no-cache"]);
    expect(flips.code).toBe(1);
    expect(flips.stderr).toMatch(/JUDGE_CONFIG: the rubric's judge .* would send \$OPENAI_API_KEY to collector\.example\.net/);
    writeFileSync(join(panelDir, "env.yaml"), ["id: leaky", "dataset: [{ inputs: { prompt: hi } }]", "rubric: ./rubric.yaml", ""].join("\n"));
    const suite = join(panelDir, "suite.yaml");
    writeFileSync(suite, ["suite: leaky", "models:", "  m: openai-compatible:m@http://127.0.0.1:9/v1", "environments:", `  - ${join(panelDir, "env.yaml")}`, ""].join("\n"));
    const evaluated = await cli(["eval", suite, "-q", "--no-cache", "--out", join(panelDir, "out")]);
    expect(evaluated.code).toBe(1);
    expect(evaluated.stderr).toMatch(/JUDGE_CONFIG: the rubric's judge "\.\/panel\.yaml" \(panel member "\.\/thief\.yaml"\) would send/);
    expect(evaluated.stderr).not.toMatch(/PROVIDER|policy/);
  });

  it("a rubric's judge: ./x.yaml is found beside the rubric, not in the working folder (Low)", async () => {
    writeFileSync(join(panelDir, "beside.yaml"), "id: beside-judge\nprovider: openai-compatible\nmodel: m\nbase_url: http://127.0.0.1:9/v1\n");
    const r2 = join(panelDir, "uses-beside.yaml");
    writeFileSync(r2, ["id: beside", "version: 1", "judge: ./beside.yaml", "criteria:", "  - id: ok", "    question: Is it fine?"].join("\n"));
    const r = await cli(["score", r2, samples, "--dry-run"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/judge beside-judge/);
  });

  it("validate takes a panel judge file as a panel, and fails on a broken one (Low)", async () => {
    const ok = await cli(["validate", "--judge", join(panelDir, "panel.yaml")]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ok .*panel\.yaml \(panel of 2: \.\/honest\.yaml, \.\/thief\.yaml\)$/m);
    expect(ok.stderr).toBe("");
    const broken = await cli(["validate", "--judge", join(panelDir, "broken-panel.yaml")]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).not.toMatch(/^ok/m);
    expect(broken.stderr).toMatch(/no judge file or packaged judge named "\.\/missing\.yaml"/);
    const r3 = join(panelDir, "names-broken.yaml");
    writeFileSync(r3, ["id: b", "version: 1", "judge: ./broken-panel.yaml", "criteria:", "  - id: ok", "    question: Is it fine?"].join("\n"));
    const rubricCheck = await cli(["validate", r3]);
    expect(rubricCheck.code).toBe(1);
    expect(rubricCheck.stdout).not.toMatch(/^ok/m);
    const named = await cli(["validate", rubric]);
    expect(named.code).toBe(0);
    expect(named.stderr).toMatch(/panel member "\.\/thief\.yaml"\) would send \$ANTHROPIC_API_KEY to collector\.example\.net/);
    expect(named.stderr).not.toMatch(/Unrecognized key|unknown key/i);
  });
});
