import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicy } from "../../src/env/policy.js";
import type { Environment } from "../../src/env/types.js";
import { loadEnvironmentSpec } from "../../src/hub/resolve.js";
import { envLabels, isSuiteFile, loadSuite, runSuite, suiteMarkdown, suiteReportHtml, suiteRows } from "../../src/hub/suite.js";
import { nextGuess } from "../../examples/wordle/solver.js";
import { connect, sampleFields, startWorld, type WireMessage } from "../env/world.js";
import { ROOT, runCli, tempDir, writeJudgeFile } from "../helpers/cli.js";
import type { TestServer } from "../../src/testing/servers/common.js";

const guessFrom = (m: WireMessage[]) => `GUESS: ${nextGuess(m.filter((x) => x.role === "user").map((x) => x.content ?? ""))}`;

let work: string;
let server: TestServer<unknown>;
beforeAll(async () => {
  work = tempDir("rubricate-suite-");
  server = await startWorld(
    {
      solver: guessFrom,
      blunder: () => "GUESS: zzzzz",
      researcher: (m) => (m.some((x) => x.role === "tool") ? "Full-time employees get 25 days per calendar year (source: vacation-policy.md)." : { toolCalls: [{ id: "c1", name: "read", arguments: { doc: "vacation-policy.md" } }] }),
    },
    // The judge: doc-search's answer is correct when it gives the 25 days; no fact is invented; wordle's feedback is used.
    (q, view) => (q.id === "correct" ? sampleFields(view.sample).response.includes("25 days") : q.id !== "invents-facts"),
  );
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

const write = (name: string, text: string) => {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
};

describe("suite files", () => {
  it("reads models with aliases and environments with their own settings; relative paths are relative to the file", () => {
    const path = write(
      "nightly.yaml",
      ["suite: nightly", "models:", "  mini: openai:gpt-4.1-mini", "  haiku: anthropic:claude-haiku-4-5", "environments:", "  - ../envs/a.yaml", "  - env: '@acme/wordle-env@1.1.0'", "    tasks: 2", "    rollouts: 3", "tasks: 5", "rollouts: 2", ""].join("\n"),
    );
    expect(isSuiteFile(path)).toBe(true);
    expect(isSuiteFile(join(ROOT, "examples", "wordle", "env.yaml"))).toBe(false);
    const suite = loadSuite(path);
    expect(suite.models).toEqual([
      { alias: "mini", spec: "openai:gpt-4.1-mini" },
      { alias: "haiku", spec: "anthropic:claude-haiku-4-5" },
    ]);
    expect(suite.environments).toEqual([
      { spec: join(work, "..", "envs", "a.yaml"), tasks: 5, rollouts: 2, judge: undefined },
      { spec: "@acme/wordle-env@1.1.0", tasks: 2, rollouts: 3, judge: undefined },
    ]);
    // A list of models: each is its own alias.
    expect(loadSuite(write("list.yaml", "models: [openai:a, openai:b]\nenvironments: [x]\n")).models.map((m) => m.alias)).toEqual(["openai:a", "openai:b"]);
  });

  it("errors name file:line:col", () => {
    expect(() => loadSuite(write("bad.yaml", "suite: s\nmodels: {}\nenvironments:\n  - env: x\n    rollouts: 0\n"))).toThrow(/bad\.yaml:5:15: .*rollouts/);
    expect(() => loadSuite(write("nomodels.yaml", "environments: [x]\n"))).toThrow(/nomodels\.yaml:1:1: .*models/);
  });

  it("two environments get distinct labels even when they share an id", () => {
    const e = (id: string, pkg?: { name: string; version: string }) => ({ id, ...(pkg ? { package: pkg } : {}) }) as Pick<Environment, "id" | "package">;
    expect(envLabels([e("wordle", { name: "@a/w", version: "1.0.0" }), e("wordle", { name: "@a/w", version: "1.1.0" }), e("x"), e("x")])).toEqual(["@a/w@1.0.0", "@a/w@1.1.0", "x #1", "x #2"]);
    // Two sources of one version are named by their source, not "#1" and "#2"; numbers only when the sources match too.
    const same = { name: "@a/w", version: "1.0.0" };
    expect(envLabels([e("wordle", same), e("wordle", same), e("x")], ["@a/w@1.0.0", "git+file:///r/w.git", "x.yaml"])).toEqual(["@a/w@1.0.0 (@a/w@1.0.0)", "@a/w@1.0.0 (git+file:///r/w.git)", "x"]);
    expect(envLabels([e("x"), e("x")], ["a.yaml", "a.yaml"])).toEqual(["x (a.yaml) #1", "x (a.yaml) #2"]);
  });
});

describe("runSuite", () => {
  it("runs every environment × every model on one engine; one table with a row per pair, aliases as model names", async () => {
    const suite = loadSuite(
      write(
        "two.yaml",
        ["suite: two", "models:", `  good: openai-compatible:solver@${server.url}`, `  bad: openai-compatible:blunder@${server.url}`, "environments:", `  - ${join(ROOT, "examples", "wordle")}`, `  - env: ${join(ROOT, "examples", "doc-search")}`, "    tasks: 1", "tasks: 2", ""].join("\n"),
      ),
    );
    const envs = [];
    for (const e of suite.environments) envs.push(await loadEnvironmentSpec(e.spec));
    const { engine, judge } = connect(server.url, []);
    // doc-search is played by the "researcher" script under the same aliases, so both models answer there.
    const scripts: Record<string, Record<string, string>> = { wordle: { good: "solver", bad: "blunder" }, "doc-search": { good: "researcher", bad: "blunder" } };
    const { results, interrupted } = await runSuite(suite, {
      engine,
      envs,
      judgeFor: () => judge,
      outDir: join(work, "out"),
      policy: (_spec, alias, env) => createPolicy({ provider: "openai-compatible", model: scripts[env.id][alias], base_url: server.url, id: alias, max_retries: 1 }),
    });
    engine.close();
    expect(interrupted).toBe(false);
    expect(results.map((r) => [r.label, r.records.length])).toEqual([
      ["@rubricate/wordle-env@1.0.0", 4],
      ["@rubricate/doc-search-env@1.0.0", 2],
    ]);
    const rows = suiteRows(results, ["good", "bad"]);
    expect(rows.map((r) => [r.env, r.model, r.stats.tasks, r.stats.passRate])).toEqual([
      ["@rubricate/wordle-env@1.0.0", "good", 2, 1],
      ["@rubricate/wordle-env@1.0.0", "bad", 2, 0],
      ["@rubricate/doc-search-env@1.0.0", "good", 1, 1],
      ["@rubricate/doc-search-env@1.0.0", "bad", 1, 0],
    ]);
    // Each environment's rollouts in its own file, stamped with its package.
    const saved = readFileSync(join(work, "out", "@rubricate+wordle-env@1.0.0.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { envPackage: unknown; model: string });
    expect(saved).toHaveLength(4);
    expect(saved[0].envPackage).toEqual({ name: "@rubricate/wordle-env", version: "1.0.0" });
    expect(new Set(saved.map((r) => r.model))).toEqual(new Set(["good", "bad"]));

    const md = suiteMarkdown(suite, results);
    expect(md).toMatch(/^\| @rubricate\/wordle-env@1\.0\.0 \| good \| 2 \| 2 \| 0 \| [\d.]+ \[[\d.]+, [\d.]+\] \| 100\.0% \|/m);
    expect(md).toMatch(/^\| @rubricate\/doc-search-env@1\.0\.0 \| bad \| 1 \| 1 \| 0 \| 0\.000 \[0\.000, 0\.000\] \| 0\.0% \|/m);
    expect(md).toContain(`models: good = openai-compatible:solver@${server.url}, bad = openai-compatible:blunder@${server.url}`);
    expect(md).toContain("- @rubricate/wordle-env@1.0.0 (local folder)");
    const html = suiteReportHtml(suite, results);
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect((html.match(/<tr>/g) ?? []).length).toBeGreaterThanOrEqual(5);
  });

  it("the CLI: `rubricate eval suite.yaml` prints one combined table, refuses --model, and refuses to overwrite results", async () => {
    const judgeFile = writeJudgeFile(work, server.url);
    const path = write("cli.yaml", ["suite: cli", "models:", `  good: openai-compatible:solver@${server.url}`, "environments:", `  - ${join(ROOT, "examples", "wordle")}`, "tasks: 1", `judge: ${judgeFile}`, ""].join("\n"));
    const out = join(work, "cli-out");
    const env = { RUBRICATE_TEST_KEY: "sk-test-suite", OPENAI_API_KEY: "sk-test-suite" };
    const r = await runCli(["eval", path, "--out", out, "--no-cache", "-q"], { env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^## Suite: cli$/m);
    expect(r.stdout).toMatch(/^\| @rubricate\/wordle-env@1\.0\.0 \| good \| 1 \| 1 \| 0 \| 1\.000 \[1\.000, 1\.000\] \| 100\.0% \|/m);
    expect(existsSync(join(out, "@rubricate+wordle-env@1.0.0.jsonl"))).toBe(true);
    const again = await runCli(["eval", path, "--out", out, "--no-cache", "-q"], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists: pass --resume/);
    const withModel = await runCli(["eval", path, "-m", "openai:x", "-q"], { env });
    expect(withModel.code).toBe(2);
    expect(withModel.stderr).toMatch(/is a suite: it names its models under models:; drop --model/);
  });

  it("an environment whose grid is past what one eval holds is refused before the first environment plays (a later one failing after the earlier ones were paid)", async () => {
    const judgeFile = writeJudgeFile(work, server.url);
    const path = write("huge.yaml", ["suite: huge", "models:", `  good: openai-compatible:solver@${server.url}`, "environments:", `  - ${join(ROOT, "examples", "wordle")}`, `  - { env: ${join(ROOT, "examples", "wordle", "env.yaml")}, rollouts: 300000 }`, "tasks: 1", `judge: ${judgeFile}`, ""].join("\n"));
    const before = server.stats.requests;
    const r = await runCli(["eval", path, "--out", join(work, "huge-out"), "--no-cache", "-q"], { env: { RUBRICATE_TEST_KEY: "sk-test-suite" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`rubricate: BAD_INPUT: ${path}: environment ${join(ROOT, "examples", "wordle", "env.yaml")}: 1 task(s) × 300000 rollout(s) × 1 model(s) is 300,000 rollouts, more than the 200,000 one eval holds (its grid and every record stay in memory); lower its tasks or rollouts\n`);
    expect(server.stats.requests).toBe(before);
    expect(existsSync(join(work, "huge-out"))).toBe(false);
  });
});
