import { needsBubblewrap, needsPython } from "../sandbox/helpers.js";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkEnvPackage, type CheckLine } from "../../src/hub/check.js";
import { initEnvPackage, packageNameOf } from "../../src/hub/init.js";
import { ENV_KEYWORD } from "../../src/hub/publish.js";
import { defaultEvalOut } from "../../src/hub/suite.js";
import { loadScriptedTests, runScriptedTest } from "../../src/hub/scripted.js";
import { loadEnvironment } from "../../src/env/load.js";
import { ROOT, runCli, tempDir } from "../helpers/cli.js";
import { runCliInProcess } from "../helpers/cli-in-process.js";

const failures = (lines: CheckLine[]) => lines.filter((l) => l.status === "fail").map((l) => `${l.what}: ${l.detail}`);

let work: string;
beforeAll(() => {
  work = tempDir("rubricate-init-");
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const bwrap = needsBubblewrap();
const python = needsPython();

describe("rubricate env init", () => {
  it("scaffolds a package whose hooks import from rubricate (a peer dependency), and it passes env check as written", async () => {
    const dir = join(work, "times");
    const files = initEnvPackage("@acme/times-env", { dir });
    expect(files.map((f) => f.slice(dir.length + 1)).sort()).toEqual([".gitignore", "README.md", "env.yaml", "hooks.ts", "package.json", "rubric.yaml", "tasks.jsonl", "tests.yaml"]);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
    const rubricateVersion = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
    expect(pkg).toMatchObject({ name: "@acme/times-env", version: "0.1.0", rubricate: "env.yaml", peerDependencies: { rubricate: `>=${rubricateVersion}` }, scripts: { test: "rubricate env check ." } });
    expect(pkg.dependencies).toBeUndefined();
    const hooks = readFileSync(join(dir, "hooks.ts"), "utf8");
    expect(hooks).toContain('from "rubricate"');
    expect(hooks).not.toMatch(/\.\.\/src|from "\.\.\//);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("npx rubricate eval @acme/times-env");

    const lines = await checkEnvPackage(dir);
    expect(failures(lines)).toEqual([]);
    expect(lines.filter((l) => l.what.startsWith("test ")).map((l) => l.status)).toEqual(["ok", "ok"]);
    expect(lines.find((l) => l.what === "npm pack")?.detail).toBe("7 file(s) would be published");
  });

  it("refuses a folder with files and a name npm would refuse", () => {
    const dir = join(work, "taken");
    initEnvPackage("taken-env", { dir });
    expect(() => initEnvPackage("taken-env", { dir })).toThrow(/already has files/);
    expect(() => initEnvPackage("ok-env@1.0.0", { dir: join(work, "y") })).toThrow(/not a package name/);
    expect(() => initEnvPackage("@acme/ok-env@1.0.0", { dir: join(work, "y") })).toThrow(/not a package name/);
    expect(() => initEnvPackage("!!!", { dir: join(work, "z") })).toThrow(/not a package name/);
  });

  it("derives a valid npm name from a title: `env init \"Times Env\"` makes times-env (npm refused it before)", async () => {
    expect(packageNameOf("Times Env")).toBe("times-env");
    expect(packageNameOf("@Acme/My  Env!")).toBe("@acme/my-env");
    expect(packageNameOf("@acme/times-env")).toBe("@acme/times-env");
    const cwd = tempDir("rubricate-init-title-");
    const r = await runCli(["env", "init", "Times Env"], { cwd });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("package name: times-env");
    expect(r.stdout).toContain("next: cd times-env && npx rubricate env check .");
    expect(JSON.parse(readFileSync(join(cwd, "times-env", "package.json"), "utf8"))).toMatchObject({ name: "times-env" });
  });

  it("a fresh scaffold passes its own `env check --strict` (its judge question has examples), ignores .rubricate/ in git, and its README names true paths", async () => {
    const cwd = tempDir("rubricate-init-strict-");
    initEnvPackage("@acme/times-env", { dir: join(cwd, "times") });
    const r = await runCliInProcess(["env", "check", "times", "--strict"], { cwd });
    expect(r.stdout.trim().split("\n").filter((l) => l.startsWith("warn") || l.startsWith("FAIL"))).toEqual([]);
    expect(r.stdout).toMatch(/env check: ok\n$/);
    expect(r.code).toBe(0);
    expect(readFileSync(join(cwd, "times", ".gitignore"), "utf8").split("\n")).toContain(".rubricate/");
    const readme = readFileSync(join(cwd, "times", "README.md"), "utf8");
    // The rollouts path is where eval writes by default; distill --env takes the package name as eval does.
    expect(readme).toContain(`distill ${defaultEvalOut("@acme/times-env@0.1.0", ["openai:gpt-4.1-mini"])}`);
    expect(readme).toContain("distill --env @acme/times-env ");
    expect(readme).not.toContain("node_modules/");
  });

  it("marks the rubricate peer optional, so `npm install` of the environment never fetches rubricate from the environment's registry", () => {
    const dir = join(work, "peer");
    initEnvPackage("@acme/peer-env", { dir });
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
    expect(pkg.peerDependenciesMeta).toEqual({ rubricate: { optional: true } });
    expect(pkg.keywords).toEqual([ENV_KEYWORD]);
  });
});

describe("rubricate env check", () => {
  it("names each problem: a scripted test that fails, a file npm pack would not ship, a missing peer dependency", async () => {
    const dir = join(work, "broken");
    initEnvPackage("broken-env", { dir });
    writeFileSync(join(dir, "tests.yaml"), readFileSync(join(dir, "tests.yaml"), "utf8").replace("expect: { passed: true, reward: 1 }", "expect: { passed: true, reward: 0.5 }"));
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { files: string[]; peerDependencies?: unknown };
    pkg.files = pkg.files.filter((f) => f !== "hooks.ts");
    delete pkg.peerDependencies;
    writeFileSync(join(dir, "package.json"), JSON.stringify(pkg, null, 2));
    const lines = await checkEnvPackage(dir);
    expect(failures(lines)).toEqual([
      "npm pack: the package would not ship hooks.ts: add them to \"files\" in package.json",
      "test uses the tool and answers right: reward 1, expected 0.5",
    ]);
    expect(lines.find((l) => l.what === "peerDependencies")?.status).toBe("warn");
  });

  it("a package without a `rubricate` field, and an environment that does not load, fail with the loader's message", async () => {
    const dir = join(work, "nofield");
    initEnvPackage("nofield-env", { dir });
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
    delete pkg.rubricate;
    writeFileSync(join(dir, "package.json"), JSON.stringify(pkg));
    expect(failures(await checkEnvPackage(dir))).toEqual(['package.json: nofield-env@0.1.0 is not a rubricate environment: its package.json has no "rubricate" field (its author adds "rubricate": "env.yaml", the environment file)']);

    const bad = join(work, "badenv");
    initEnvPackage("badenv-env", { dir: bad });
    writeFileSync(join(bad, "env.yaml"), readFileSync(join(bad, "env.yaml"), "utf8").replace("max_turns: 4", "max_turns: many"));
    const [f] = failures(await checkEnvPackage(bad));
    expect(f).toMatch(/^environment: .*env\.yaml:\d+:\d+: .*max_turns/);
  });

  it("a package.json that is not JSON is named once, by file:line:col (\"…/package.json: …/package.json is not valid JSON\", then \"at position 2\" before)", async () => {
    const dir = join(work, "badjson");
    initEnvPackage("badjson-env", { dir });
    writeFileSync(join(dir, "package.json"), "{ bad");
    expect(failures(await checkEnvPackage(dir))).toEqual([`package.json: ${join(dir, "package.json")}:1:3: invalid JSON: Expected property name or '}'`]);
  });

  it("the unsandboxed examples pass their own checks", async () => {
    const checked = await Promise.all(["wordle", "doc-search", "support-desk", "company-docs"].map(async (ex) => [ex, await checkEnvPackage(join(ROOT, "examples", ex))] as const));
    for (const [ex, lines] of checked) {
      expect(failures(lines), ex).toEqual([]);
      expect(lines.filter((l) => l.what.startsWith("test ")).length, ex).toBeGreaterThanOrEqual(2);
    }
  });

  bwrap.describe("the sandboxed examples", () => {
    // rlm-docqa keeps its document in a python3 REPL inside the sandbox.
    python.describe("with python3", () => {
      it("ctf and rlm-docqa pass their own checks (their scripted tests run in bubblewrap)", async () => {
          // Checked side by side: each waits on its own npm pack and sandboxes.
        const checked = await Promise.all(["ctf", "rlm-docqa"].map(async (ex) => [ex, await checkEnvPackage(join(ROOT, "examples", ex))] as const));
        for (const [ex, lines] of checked) {
          expect(failures(lines), ex).toEqual([]);
          expect(lines.filter((l) => l.what.startsWith("test ")).length, ex).toBeGreaterThanOrEqual(2);
        }
      }, 120_000);
    });
  });

  // In this process: the exit codes are the commands' own (a real process's is tests/cli's and the title test's above).
  it("the CLI: env init then env check exits 0; a failing check exits 1 and says which line failed", async () => {
    const init = await runCliInProcess(["env", "init", "@acme/cli-env", "--dir", join(work, "cli")]);
    expect(init.stderr).toBe("");
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(`created ${join(work, "cli", "package.json")}`);
    const good = await runCliInProcess(["env", "check", join(work, "cli")]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^ok {3}test uses the tool and answers right: reward 1$/m);
    expect(good.stdout.trim().split("\n").at(-1)).toBe("env check: ok");
    rmSync(join(work, "cli", "tasks.jsonl"));
    const bad = await runCliInProcess(["env", "check", join(work, "cli")]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^FAIL environment: .*tasks\.jsonl/m);
    expect(bad.stdout.trim().split("\n").at(-1)).toBe("env check: FAILED");
  });
});

describe("scripted tests", () => {
  it("an unanswered judge question is an error, never a no; an unknown task is named", async () => {
    const dir = join(work, "scripted");
    initEnvPackage("scripted-env", { dir });
    const env = await loadEnvironment(join(dir, "env.yaml"));
    const [first] = loadScriptedTests(join(dir, "tests.yaml"));
    const noJudge = await runScriptedTest(env, { ...first, judge: {} });
    expect(noJudge.ok).toBe(false);
    expect(noJudge.failures[0]).toMatch(/criterion one-sentence: NO_JUDGE: .*gives no judge answer for "one-sentence"/);
    expect(noJudge.record?.reward).toBeNull();
    expect(await runScriptedTest(env, { ...first, task: "99" })).toMatchObject({ ok: false, failures: ['no task "99" in the dataset'] });
    // The tool call really ran through the hooks: the product is in the transcript.
    const played = await runScriptedTest(env, first);
    expect(played.ok).toBe(true);
    expect(played.record?.toolCalls.map((c) => [c.name, c.result])).toEqual([["multiply", "84"]]);
  });

  it("a malformed tests file names file:line:col", () => {
    const file = join(work, "bad-tests.yaml");
    writeFileSync(file, "- name: x\n  task: 1\n  replies: []\n  expect: {}\n");
    expect(() => loadScriptedTests(file)).toThrow(/bad-tests\.yaml:3:\d+/);
    expect(existsSync(file)).toBe(true);
  });
});
