/**
 * SLOW (half a minute): packs the run's one build (tests/setup/build.ts) with `npm pack`, installs
 * the tarball into an empty folder offline (each once per content: tests/helpers/pack.ts), and
 * uses it the ways a user would: require(), import(), a subpath, the `rubricate` bin.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { rubricJsonSchema } from "../src/rubric/json-schema.js";
import { judgeResponder } from "../src/testing/servers/judge-responder.js";
import { startBatchServer } from "./servers/batch-server.js";
import { installBuilt, packBuilt } from "./helpers/pack.js";
import { BUNDLED } from "../scripts/bundled.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; version: string; files: string[]; exports: Record<string, unknown>; dependencies: Record<string, string> };

/** The packages esbuild bundled into built files, read off its comment before each bundled module (`// node_modules/<package>/…`). */
const bundledIn = (texts: string[]) => new Set(texts.flatMap((text) => [...text.matchAll(/^\/\/ node_modules\/((?:@[^/\n]+\/)?[^/\n]+)\//gm)].map((m) => m[1])));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command without blocking this process, so two can run at once. */
function runAsync(cmd: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", fail);
    child.on("close", (status) => done({ status, stdout, stderr }));
  });
}

describe("package [slow: npm pack + offline install]", () => {
  let work: string;
  let app: string;
  let tarball: string;

  /** `npm run lint:package`'s check of the tarball, started as soon as it is packed: it needs no install, so it runs while npm installs. */
  let lint: Promise<Run>;
  /** tsc over a CommonJS TypeScript consumer of the installed package. */
  let typecheck: Promise<Run>;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "rubricate-pack-"));
    tarball = await packBuilt(work);
    lint = runAsync(process.execPath, [join(ROOT, "scripts", "lint-package.mjs"), tarball], ROOT);
    lint.catch(() => {}); // awaited by its test, which reports a failure; not an unhandled rejection meanwhile
    // The tarball installed into an empty project (offline, scripts skipped: the native
    // better-sqlite3 build takes minutes and no import here needs it); one install per content,
    // shared with tests/hub/registry.test.ts.
    app = join(work, "app");
    await installBuilt(app);
    // Before the types were split per condition, `require` got the ESM .d.ts and tsc said TS1479.
    // node16, not nodenext: TypeScript 5.8+ lets nodenext require() ESM, which hides the error.
    // Started here and awaited by its test: tsc checks while the tests below run the package.
    const dir = mkdtempSync(join(app, "cjs-ts-"));
    writeFileSync(join(dir, "consumer.cts"), 'import { parseRubric, type Rubric } from "rubricate";\nimport { score } from "rubricate/score";\nconst rubric: Rubric = parseRubric("id: a");\nexport const run = () => score(rubric, []);\n');
    typecheck = runAsync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "--strict", "--skipLibCheck", "--module", "node16", "--moduleResolution", "node16", "--target", "es2022", "--types", "node", "--typeRoots", join(ROOT, "node_modules", "@types"), join(dir, "consumer.cts")], app);
    typecheck.catch(() => {});
  }, 600_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const node = (args: string[]) => spawnSync(process.execPath, args, { cwd: app, encoding: "utf8" });
  /** The installed package's dist/. */
  const installedDist = () => join(app, "node_modules", pkg.name, "dist");
  /** The text of every file under the installed dist/ whose path matches `pattern`. */
  const distTexts = (pattern: RegExp) =>
    (readdirSync(installedDist(), { recursive: true }) as string[]).filter((f) => pattern.test(f)).map((f) => readFileSync(join(installedDist(), f), "utf8"));

  it("the tarball holds the build, the schema and the rubrics, and not the sources or tests", () => {
    const installed = join(app, "node_modules", pkg.name);
    expect(existsSync(join(installed, "dist/index.js"))).toBe(true);
    expect(existsSync(join(installed, "dist/index.cjs"))).toBe(true);
    expect(existsSync(join(installed, "dist/index.d.ts"))).toBe(true);
    expect(existsSync(join(installed, "src"))).toBe(false);
    expect(existsSync(join(installed, "tests"))).toBe(false);
    const packedRubrics = readdirSync(join(ROOT, "rubrics")).filter((f) => f.endsWith(".yaml")).sort();
    expect(packedRubrics.length).toBeGreaterThan(0);
    expect(readdirSync(join(installed, "rubrics")).filter((f) => f.endsWith(".yaml")).sort()).toEqual(packedRubrics);
    expect(JSON.parse(readFileSync(join(installed, "schema/rubric.schema.json"), "utf8"))).toEqual(rubricJsonSchema());
  });

  it("publint and arethetypeswrong find nothing in the packed tarball (npm run lint:package)", async () => {
    // The same tarball the install above used: a CommonJS TypeScript consumer must get .d.cts types.
    const linted = await lint;
    expect(linted.stdout + linted.stderr).toContain("publint: no problems");
    expect(linted.stderr).toBe("");
    expect(linted.status).toBe(0);
  });

  it("the tarball has no source maps, and has the licence and the changelog", () => {
    const list = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
    expect(list.length).toBeGreaterThan(50);
    expect(list.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(list).toEqual(expect.arrayContaining(["package/LICENSE", "package/CHANGELOG.md", "package/dist/index.d.cts"]));
  });

  it("carries the licence of every package bundled into dist/, and no folder of the build machine", () => {
    const notices = readFileSync(join(installedDist(), "THIRD_PARTY_NOTICES.md"), "utf8");
    const built = distTexts(/\.c?js$/);
    // Read off the installed chunks here, not by the script that wrote the notices.
    const bundled = bundledIn(built);
    expect([...bundled]).toEqual(expect.arrayContaining(["zod", "yaml", "openai", "@anthropic-ai/sdk", "commander"]));
    for (const name of bundled) {
      const dir = join(ROOT, "node_modules", name);
      const { version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string };
      expect(notices, name).toContain(`## ${name} ${version}\n`);
      const licence = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
      if (licence) expect(notices, name).toContain(readFileSync(join(dir, licence), "utf8").trim());
    }
    expect(built.filter((text) => text.includes(ROOT.replace(/\/$/, "")))).toEqual([]);
  });

  it("its dependencies are what dist/ loads: none is bundled into it unless its .d.ts files import it (zod), they import only dependencies, and every bundled package is in scripts/bundled.ts", () => {
    const bundled = bundledIn(distTexts(/\.c?js$/));
    const typed = new Set(distTexts(/\.d\.c?ts$/).flatMap((t) => [...t.matchAll(/(?:from |import\()["']((?:@[^/"']+\/)?[^/"'.][^/"']*)/g)].map((m) => m[1])));
    const dependencies = Object.keys(pkg.dependencies);
    // A bundled dependency is ~50 MB (the provider SDKs) a user's install fetched and nothing loaded.
    expect(dependencies.filter((name) => bundled.has(name) && !typed.has(name))).toEqual([]);
    // What the .d.ts files import, a TypeScript consumer must have installed (the package itself, named in doc comments' examples, aside).
    expect([...typed].filter((name) => !name.startsWith("node:") && name !== pkg.name && !dependencies.includes(name))).toEqual([]);
    expect(typed.has("zod")).toBe(true);
    // tsup's own shim is not a package; everything else bundled is one the engines test checks.
    expect([...bundled].filter((name) => name !== "tsup" && !BUNDLED.includes(name))).toEqual([]);
    // Every module of the installed build loads without the packages it bundles (the provider
    // SDKs' chunks among them): none of them is in this project's node_modules any more.
    for (const name of ["openai", "@anthropic-ai/sdk", "yaml", "commander"]) expect(existsSync(join(app, "node_modules", name)), name).toBe(false);
    const modules = readdirSync(installedDist()).filter((f) => f.endsWith(".js")).map((f) => join(installedDist(), f));
    expect(modules.filter((f) => /(?:anthropic|openai)-sdk-/.test(f))).toHaveLength(2);
    const loaded = node(["--input-type=module", "-e", `for (const file of ${JSON.stringify(modules)}) await import(file);`]);
    expect(loaded.stderr).toBe("");
    expect(loaded.status).toBe(0);
  });

  it("every file the exports map names exists", () => {
    const installed = join(app, "node_modules", pkg.name);
    // Conditions nest (`import: { types, default }`): every leaf is a file.
    const leaves = (t: unknown): string[] => (typeof t === "string" ? [t] : Object.values(t as Record<string, unknown>).flatMap(leaves));
    const targets = Object.values(pkg.exports).flatMap(leaves);
    expect(targets.length).toBeGreaterThan(5);
    expect(targets.filter((t) => t.endsWith(".d.cts")).length).toBeGreaterThan(5);
    for (const t of targets) expect(existsSync(join(installed, t)), t).toBe(true);
  });

  it("require('rubricate') works (CommonJS) and parses a rubric", () => {
    const r = node(["-e", "const r = require('rubricate'); const x = r.parseRubric('id: a\\ncriteria:\\n  - id: c\\n    check: { contains: x }\\n'); console.log(x.id, typeof r.RubricateError, typeof r.scoreSample)"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("a function function\n");
  });

  it("import('rubricate') works (ESM) and scores a sample", () => {
    const code = "const r = await import('rubricate'); const rubric = r.parseRubric('id: a\\ncriteria:\\n  - id: c\\n    check: { contains: x }\\n'); const res = await r.scoreSample(rubric, { response: 'xyz' }); console.log(res.reward)";
    const r = node(["--input-type=module", "-e", code]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("1\n");
  });

  it("the rubricate/rubric subpath works from both module systems", () => {
    const cjs = node(["-e", "console.log(typeof require('rubricate/rubric').loadRubricSync)"]);
    expect(cjs.stdout).toBe("function\n");
    const esm = node(["--input-type=module", "-e", "const m = await import('rubricate/rubric'); console.log(typeof m.loadRubric, typeof m.rubricJsonSchema)"]);
    expect(esm.stdout).toBe("function function\n");
    const json = node(["-e", "console.log(require('rubricate/schema/rubric.schema.json').title)"]);
    expect(json.stdout).toBe("rubricate rubric\n");
  });

  it("a RubricateError thrown by the CommonJS build is recognised by the ESM build, and the other way round", () => {
    const code = [
      "import { createRequire } from 'node:module';",
      "const cjs = createRequire(import.meta.url)('rubricate');",
      "const esm = await import('rubricate');",
      "const fromCjs = (() => { try { cjs.parseRubric('id: [', { filename: 'a.yaml' }); } catch (e) { return e; } })();",
      "const fromEsm = (() => { try { esm.parseRubric('id: [', { filename: 'b.yaml' }); } catch (e) { return e; } })();",
      "console.log(cjs.RubricateError === esm.RubricateError, fromCjs instanceof esm.RubricateError, fromEsm instanceof cjs.RubricateError, esm.RubricateError.isInstance(fromCjs), esm.isRubricateError(fromCjs, 'YAML_SYNTAX'), new Error('x') instanceof esm.RubricateError)",
    ].join("\n");
    const r = node(["--input-type=module", "-e", code]);
    expect(r.stderr).toBe("");
    // Two distinct classes (two builds), each recognising the other's errors; a plain Error is not one.
    expect(r.stdout).toBe("false true true true true false\n");
  });

  // The built CLI of this checkout (its node_modules has better-sqlite3 built):
  // the ways the built files differ from the sources under tsx.
  const builtCli = (args: string[], cwd: string, env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [join(inject("rubricateDist"), "cli", "main.js"), ...args], { cwd, env: { ...process.env, ...env } });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });

  it("the built CLI runs score --batch in a heap-capped worker, and a cap too small costs a second attempt, not a second payment", async () => {
    const server = await startBatchServer({ respond: judgeResponder((_, view) => view.sample.includes("yes")) });
    try {
      const dir = mkdtempSync(join(tmpdir(), "rubricate-built-batch-"));
      writeFileSync(join(dir, "samples.jsonl"), ["yes, one", "no", "yes, two"].map((r) => JSON.stringify({ response: r })).join("\n"));
      writeFileSync(join(dir, "rubric.yaml"), "id: b\ninputs: [response]\ncriteria:\n  - { id: yes, question: Does it say yes?, points: 1 }\n");
      writeFileSync(join(dir, "judge.yaml"), `provider: openai\nmodel: gpt-test\nbase_url: ${server.url}/v1\napi_key_env: RUBRICATE_TEST_KEY\n`);
      const result = await builtCli(["score", "rubric.yaml", "samples.jsonl", "--judge", "judge.yaml", "--batch", "--poll-ms", "5"], dir, { RUBRICATE_TEST_KEY: "sk-test", RUBRICATE_BATCH_HEAP_MB: "4" });
      expect(result.stderr).toContain("ran out of its 4 MB heap; going on with 16 MB");
      expect(result.code).toBe(0);
      expect(result.stdout.trim().split("\n").map((l) => JSON.parse(l).reward)).toEqual([1, 0, 1]);
      const ids = server.jobs.flatMap((j) => j.items.map((i) => i.customId));
      expect(new Set(ids).size).toBe(3);
      expect(ids).toHaveLength(3);
      rmSync(dir, { recursive: true, force: true });
    } finally {
      await server.close();
    }
  });

  it("the built CLI loads a TypeScript checks module from a folder that is not an ES module package", async () => {
    // No package.json here: Node would load checks.ts as CommonJS JavaScript and fail on its types.
    const dir = mkdtempSync(join(tmpdir(), "rubricate-built-checks-"));
    writeFileSync(join(dir, "checks.ts"), "const long = (text: string): boolean => text.length > 3;\nexport const checks = { long };\n");
    writeFileSync(join(dir, "rubric.yaml"), "id: c\ninputs: [response]\ncriteria:\n  - { id: long, check: { custom: long }, points: 1 }\n");
    writeFileSync(join(dir, "samples.jsonl"), `${JSON.stringify({ response: "ok" })}\n${JSON.stringify({ response: "long enough" })}\n`);
    const result = await builtCli(["score", "rubric.yaml", "samples.jsonl", "--checks", "checks.ts", "--no-cache", "-q"], dir);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim().split("\n").map((l) => JSON.parse(l).reward)).toEqual([0, 1]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("the rubricate bin prints its version and validates the packaged rubrics", () => {
    const bin = join(app, "node_modules", ".bin", process.platform === "win32" ? "rubricate.cmd" : "rubricate");
    const version = spawnSync(bin, ["--version"], { cwd: app, encoding: "utf8" });
    expect(version.status).toBe(0);
    expect(version.stdout).toBe(`${pkg.version}\n`);
    const rubrics = readdirSync(join(app, "node_modules", pkg.name, "rubrics")).filter((f) => f.endsWith(".yaml")).map((f) => join("node_modules", pkg.name, "rubrics", f));
    const validate = spawnSync(bin, ["validate", "-q", ...rubrics], { cwd: app, encoding: "utf8" });
    expect(validate.stderr).toBe("");
    expect(validate.status).toBe(0);
  });

  it("a CommonJS TypeScript consumer typechecks against the installed package (no TS1479)", async () => {
    const checked = await typecheck;
    expect(checked.stdout + checked.stderr).toBe("");
    expect(checked.status).toBe(0);
  });
});
