/**
 * SLOW (a minute): environments as packages, end to end, against a real registry. Verdaccio 6.8.0
 * (a devDependency) runs on loopback with htpasswd auth and no uplinks; the wordle example is
 * published into it with `npm publish` (1.0.0, then 1.1.0, and a private copy). A clean temporary
 * project with rubricate installed from the run's packed build (the install tests/package.test.ts
 * checks) and an .npmrc naming the registry runs `npx rubricate eval <package>` (the installed bin
 * npx runs) against a local OpenAI-format server: nothing reaches any other host.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextGuess } from "../../examples/wordle/solver.js";
import type { RolloutRecord } from "../../src/env/types.js";
import { ROOT, writeJudgeFile } from "../helpers/cli.js";
import { startVerdaccio, type Registry } from "../helpers/verdaccio.js";
import { packDirs, publishTarball } from "../helpers/npm-seed.js";
import { installBuilt } from "../helpers/pack.js";
import { defaultEvalOut } from "../../src/hub/package.js";
import type { Reply, TestServer } from "../../src/testing/servers/common.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";
const KEY = "sk-test-REGISTRY-0123456789";
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; files: string[] };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** npm's cache for this file's runs: a temp folder, so a run neither reads nor grows the user's. */
let npmCache: string | undefined;

/** Runs a command without blocking this process (the policy server lives here). */
function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, npm_config_update_notifier: "false", npm_config_fetch_retries: "0", ...(npmCache ? { npm_config_cache: npmCache } : {}), NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

async function ok(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const r = await run(cmd, args, cwd, env);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.code}):\n${r.stderr}\n${r.stdout}`);
  return r;
}

interface WireMessage {
  role: string;
  content: string | null;
}

const guessFrom = (m: WireMessage[]) => `GUESS: ${nextGuess(m.filter((x) => x.role === "user").map((x) => x.content ?? ""))}`;
/** Plays `rubricate env init`'s scaffold: calls multiply with the two numbers asked about, then states the product. */
function multiplier(m: WireMessage[]) {
  const [a, b] = (m.find((x) => x.role === "user")?.content ?? "").match(/\d+/g)!.map(Number);
  const result = m.find((x) => x.role === "tool")?.content;
  return result === undefined ? { toolCalls: [{ id: "call_1", name: "multiply", arguments: { a, b } }] } : `${a} times ${b} is ${result}.`;
}
const jsonl = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as RolloutRecord);
/** What is left in an environments folder: finished installs and any staging folder a failure left behind. */
const envsIn = (app: string) => (existsSync(join(app, ".rubricate", "envs")) ? readdirSync(join(app, ".rubricate", "envs")).sort() : []);

describe("environments through a registry [slow: Verdaccio + npm installs]", () => {
  let work: string;
  let registry: Registry;
  let server: TestServer<unknown>;
  let token: string;
  let app: string;
  let judge: string;
  let model: string;
  const published: Record<string, string> = {};

  const testKeys = { OPENAI_API_KEY: KEY, RUBRICATE_TEST_KEY: KEY };
  /** `npx rubricate …` in the clean project: the first test checks that npx runs the installed tarball's bin. */
  const npxRubricate = (args: string[]) => run(NPX, ["--no-install", "rubricate", ...args], app, testKeys);
  /**
   * The installed bin npx runs (node_modules/.bin/rubricate) in the clean project, with the test
   * keys (and a registry token when given), without npm's start (1.1–1.6 s of CPU per run).
   */
  const rubricate = (args: string[], env: Record<string, string> = {}) =>
    run(join(app, "node_modules", ".bin", process.platform === "win32" ? "rubricate.cmd" : "rubricate"), args, app, { ...testKeys, ...env });

  /** The registry's own record of a published version's tarball hash. */
  const registryIntegrity = async (name: string, version: string, auth?: string) => {
    const res = await fetch(`${registry.url}${name.replace("/", "%2f")}`, { headers: auth ? { authorization: `Bearer ${auth}` } : {} });
    const doc = (await res.json()) as { versions: Record<string, { dist: { integrity: string } }> };
    return doc.versions[version].dist.integrity;
  };

  /** A copy of the wordle example named `name@version`, with `edit` applied to it; returns its folder and manifest. */
  const wordleCopy = (name: string, version: string, edit: (dir: string) => void = () => {}) => {
    const dir = join(work, "pub", `${name.replace("/", "+")}@${version}`);
    cpSync(join(ROOT, "examples", "wordle"), dir, { recursive: true });
    const manifest = { ...(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>), name, version };
    writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
    edit(dir);
    return { dir, manifest };
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "rubricate-registry-"));
    npmCache = join(work, "npm-cache");
    // Verdaccio boots in its own process, and the environments are published to it, while the
    // project installs (on a fresh clone the install waits for the run's pack, and the pack for the
    // type declarations: most of this hook).
    const starting = startVerdaccio(join(work, "registry"), { users: { alice: "alice-pass-1" }, privateScope: "@private" });
    // 1. A clean project with rubricate installed as a user gets it: the run's one build
    // (tests/setup/build.ts), packed and installed offline, once per content for this file and
    // tests/package.test.ts (tests/helpers/pack.ts). The environments come from the registry; their
    // `rubricate` peer is the running one, linked in, so the registry needs no copy of rubricate.
    app = join(work, "app");
    const installing = installBuilt(app, { name: "app", version: "1.0.0", private: true, dependencies: { rubricate: `^${pkg.version}` } });
    installing.catch(() => undefined); // awaited below: its failure fails this hook there, not as an unhandled rejection meanwhile

    // 2. The registry and a user.
    registry = await starting;
    token = await registry.login("alice", "alice-pass-1");
    writeFileSync(join(work, "publisher.npmrc"), `registry=${registry.url}\n${registry.authKey}:_authToken=\${NPM_TOKEN}\n`);

    // 3. Environments: wordle 1.0.0 with `npm publish`; then, packed with one `npm pack` and put with
    // the request npm's publish sends (npm's own publish is also exercised by the `env init` test),
    // 1.1.0 with its first two tasks only, a private copy, and a package that is no environment.
    const v1 = wordleCopy("@rubricate/wordle-env", "1.0.0");
    const v11 = wordleCopy("@rubricate/wordle-env", "1.1.0", (dir) => {
      const tasks = readFileSync(join(dir, "tasks.jsonl"), "utf8").split("\n").filter(Boolean);
      writeFileSync(join(dir, "tasks.jsonl"), `${tasks.slice(0, 2).join("\n")}\n`);
    });
    const privateCopy = wordleCopy("@private/wordle-env", "1.0.0");
    const plain = { dir: join(work, "pub", "plain-lib"), manifest: { name: "plain-lib", version: "1.0.0", main: "index.js" } };
    mkdirSync(plain.dir, { recursive: true });
    writeFileSync(join(plain.dir, "package.json"), JSON.stringify(plain.manifest));
    writeFileSync(join(plain.dir, "index.js"), "module.exports = 1;\n");
    const npmPublished = ok(NPM, ["publish", "--userconfig", join(work, "publisher.npmrc"), "--ignore-scripts"], v1.dir, { NPM_TOKEN: token });
    const others = [v11, privateCopy, plain];
    const tarballs = packDirs(others.map((p) => p.dir), join(work, "tgz"));
    // 1.1.0 after 1.0.0, so that 1.1.0 is `latest` as it would be published.
    await npmPublished;
    for (const [i, { manifest }] of others.entries()) await publishTarball(registry.url, token, tarballs[i], manifest);
    for (const { manifest } of [v1, v11, privateCopy]) published[`${manifest.name}@${manifest.version}`] = await registryIntegrity(manifest.name, manifest.version, token);

    // The installed project, and its .npmrc that names the registry.
    await installing;
    writeFileSync(join(app, ".npmrc"), `registry=${registry.url}\n`);

    // One local OpenAI-format server: the judge (writeJudgeFile's `judge-model`) says yes, the
    // `solver` model plays wordle and `times` the scaffold's multiplication.
    const judgeSaysYes = judgeResponder(() => true);
    const policies: Record<string, (m: WireMessage[]) => Reply> = { solver: guessFrom, times: multiplier };
    server = (await startOpenAIServer({
      respond: (body) => (body.model === "judge-model" ? judgeSaysYes(body) : (policies[String(body.model)]?.(body.messages as WireMessage[]) ?? { fault: "500" })),
    })) as TestServer<unknown>;
    judge = writeJudgeFile(work, server.url);
    model = `openai-compatible:solver@${server.url}`;
  }, 900_000);

  afterAll(async () => {
    await server?.close();
    await registry?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("npx rubricate runs from the installed tarball, through the bin the other tests run", async () => {
    const r = await npxRubricate(["--version"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`${pkg.version}\n`);
    const resolved = await run(NPX, ["--no-install", "-c", "command -v rubricate"], app);
    expect(resolved.stdout.trim(), resolved.stderr).toBe(join(app, "node_modules", ".bin", "rubricate"));
    expect(realpathSync(join(app, "node_modules", ".bin", "rubricate"))).toBe(realpathSync(join(app, "node_modules", "rubricate", "dist", "cli", "main.js")));
    expect(existsSync(join(app, "node_modules", "rubricate", "dist", "cli", "main.js"))).toBe(true);
    expect(existsSync(join(app, "node_modules", "rubricate", "src"))).toBe(false);
  }, 180_000);

  it("evaluates a package by name: installed into .rubricate/envs (not the project), .ts hooks run, name/version/integrity in every rollout and the summary", async () => {
    const before = readFileSync(join(app, "package.json"), "utf8");
    const r = await rubricate(["eval", "@rubricate/wordle-env", "-m", model, "--judge", judge, "--no-cache", "-n", "2", "--report", "report.html"]);
    expect(r.stderr).toContain("installing @rubricate/wordle-env");
    expect(r.code).toBe(0);
    // The latest version, from the registry, with the registry's own integrity hash.
    const integrity = published["@rubricate/wordle-env@1.1.0"];
    expect(integrity).toMatch(/^sha512-/);
    expect(r.stdout).toContain(`environment @rubricate/wordle-env@1.1.0 (integrity ${integrity})`);
    const records = jsonl(join(app, defaultEvalOut("@rubricate/wordle-env@1.1.0", [model])));
    expect(records).toHaveLength(2);
    for (const rec of records) {
      expect(rec.envPackage).toMatchObject({ name: "@rubricate/wordle-env", version: "1.1.0", integrity });
      expect(rec.envVersion).toBe("1.1.0");
      // The hooks (TypeScript, under node_modules) ran: the game was played and graded by their checks.
      expect(rec.reward).toBe(1);
      expect(rec.verdicts.find((v) => v.id === "solved")?.status).toBe("met");
    }
    expect(readFileSync(join(app, "report.html"), "utf8")).toContain(integrity);
    // Never into the user's project: package.json and node_modules untouched.
    expect(readFileSync(join(app, "package.json"), "utf8")).toBe(before);
    expect(existsSync(join(app, "node_modules", "@rubricate"))).toBe(false);
    expect(envsIn(app)).toEqual(["@rubricate+wordle-env@1.1.0"]);
  }, 180_000);

  it("a private scoped package is refused without a token (one line, nothing left behind) and works with one", async () => {
    const refused = await rubricate(["eval", "@private/wordle-env@1.0.0", "-m", model, "--judge", judge, "--no-cache", "-q"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(/^rubricate: REGISTRY_AUTH: @private\/wordle-env@1\.0\.0: the registry refused access .*_authToken/);
    expect(envsIn(app)).not.toContain("@private+wordle-env@1.0.0");
    expect(envsIn(app).filter((d) => d.startsWith(".staging"))).toEqual([]);

    // The token comes from the environment; .npmrc names only the variable.
    writeFileSync(join(app, ".npmrc"), `registry=${registry.url}\n${registry.authKey}:_authToken=\${NPM_TOKEN}\n`);
    try {
      const allowed = await rubricate(["eval", "@private/wordle-env@1.0.0", "-m", model, "--judge", judge, "--no-cache", "-q", "-n", "1"], { NPM_TOKEN: token });
      expect(allowed.stderr).toBe("");
      expect(allowed.code).toBe(0);
      const [rec] = jsonl(join(app, defaultEvalOut("@private/wordle-env@1.0.0", [model])));
      expect(rec.envPackage).toMatchObject({ name: "@private/wordle-env", version: "1.0.0", integrity: published["@private/wordle-env@1.0.0"] });
      // The token itself was written nowhere in the install.
      const install = join(app, ".rubricate", "envs", "@private+wordle-env@1.0.0");
      expect(existsSync(join(install, ".npmrc"))).toBe(false);
      for (const f of ["package.json", "package-lock.json"]) expect(readFileSync(join(install, f), "utf8")).not.toContain(token);
    } finally {
      writeFileSync(join(app, ".npmrc"), `registry=${registry.url}\n`);
    }
  }, 180_000);

  it("a suite evaluates 1.0.0 and 1.1.0 side by side: both versions in one table and one report", async () => {
    writeFileSync(
      join(app, "suite.yaml"),
      [
        "suite: versions",
        "models:",
        `  solver: ${model}`,
        "environments:",
        "  - '@rubricate/wordle-env@1.0.0'",
        "  - '@rubricate/wordle-env@1.1.0'",
        `judge: ${judge}`,
        "rollouts: 1",
        "",
      ].join("\n"),
    );
    const r = await rubricate(["eval", "suite.yaml", "--no-cache", "-q", "--report", "suite.html"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // 1.0.0 has all six tasks, 1.1.0 only two: each row is its own version's.
    expect(r.stdout).toMatch(/\| @rubricate\/wordle-env@1\.0\.0 \| solver \| 6 \| 6 \| 0 \| [\d.]+ \[[\d.]+, [\d.]+\] \| 100\.0% \|/);
    expect(r.stdout).toMatch(/\| @rubricate\/wordle-env@1\.1\.0 \| solver \| 2 \| 2 \| 0 \| [\d.]+ \[[\d.]+, [\d.]+\] \| 100\.0% \|/);
    expect(r.stdout).toContain(`@rubricate/wordle-env@1.0.0 (integrity ${published["@rubricate/wordle-env@1.0.0"]})`);
    expect(r.stdout).toContain(`@rubricate/wordle-env@1.1.0 (integrity ${published["@rubricate/wordle-env@1.1.0"]})`);
    expect(published["@rubricate/wordle-env@1.0.0"]).not.toBe(published["@rubricate/wordle-env@1.1.0"]);
    const html = readFileSync(join(app, "suite.html"), "utf8");
    expect(html).toContain("@rubricate/wordle-env@1.0.0");
    expect(html).toContain("@rubricate/wordle-env@1.1.0");
    const v1 = jsonl(join(app, ".rubricate", "evals", "versions", "@rubricate+wordle-env@1.0.0.jsonl"));
    const v11 = jsonl(join(app, ".rubricate", "evals", "versions", "@rubricate+wordle-env@1.1.0.jsonl"));
    expect(v1.map((x) => x.envVersion)).toEqual(Array(6).fill("1.0.0"));
    expect(v11.map((x) => x.envVersion)).toEqual(Array(2).fill("1.1.0"));
    expect(v1[0].model).toBe("solver");
  }, 180_000);

  it("bad input: an unknown package, a package without a `rubricate` field, a missing version, a registry that is down: one line each, nothing installed", async () => {
    const before = envsIn(app);
    const cases: [string[], RegExp, Record<string, string>?][] = [
      [["@rubricate/no-such-env"], /^rubricate: PACKAGE_NOT_FOUND: @rubricate\/no-such-env: no such package in the registry .*check the name/],
      [["plain-lib@1.0.0"], /^rubricate: PACKAGE_INVALID: plain-lib@1\.0\.0 is not a rubricate environment: its package\.json has no "rubricate" field/],
      [["@rubricate/wordle-env@9.9.9"], /^rubricate: PACKAGE_NOT_FOUND: @rubricate\/wordle-env@9\.9\.9: no such version .*npm view/],
      [["@rubricate/other-env"], /^rubricate: REGISTRY_DOWN: @rubricate\/other-env: cannot reach the registry .*ECONNREFUSED/, { npm_config_registry: "http://127.0.0.1:9/" }],
    ];
    // At once: each fails before installing anything, so none can hide another's leftovers.
    const runs = await Promise.all(cases.map(([spec, , env]) => rubricate(["eval", ...spec, "-m", model, "--no-cache", "-q"], env)));
    cases.forEach(([spec, message], i) => {
      expect(runs[i].code, spec[0]).toBe(1);
      expect(runs[i].stderr.trim().split("\n"), runs[i].stderr).toHaveLength(1);
      expect(runs[i].stderr).toMatch(message);
    });
    expect(envsIn(app)).toEqual(before);
  }, 180_000);

  it("env init in the project, checked, published, installed by name: hooks that import rubricate at run time share the running one", async () => {
    const init = await rubricate(["env", "init", "@rubricate/times-env", "--dir", "times"]);
    expect(init.code).toBe(0);
    const dir = join(app, "times");
    // The installed package's hooks import rubricate at run time (the peer, linked to the running
    // one): their check parses a rubric with it and recognises its error, so it passes only if
    // `import "rubricate"` resolves inside the installed package. No check is registered anywhere:
    // the environment's hooks.checks are what its rollouts score with.
    const peerCheck = [
      'import { parseRubric, RubricateError } from "rubricate";',
      "const peerWorks = () => { try { parseRubric(\"id: [\"); return false; } catch (e) { return RubricateError.isInstance(e) && e.code === \"YAML_SYNTAX\"; } };",
    ].join("\n");
    const hooksText = readFileSync(join(dir, "hooks.ts"), "utf8").replace("export const checks: Record<string, CheckFunction> = {", 'export const checks: Record<string, CheckFunction> = {\n  "peer-registered": () => peerWorks(),');
    writeFileSync(join(dir, "hooks.ts"), `${peerCheck}\n${hooksText}`);
    writeFileSync(join(dir, "rubric.yaml"), `${readFileSync(join(dir, "rubric.yaml"), "utf8")}  - id: peer\n    check: { custom: peer-registered }\n    points: 1\n`);
    const check = await rubricate(["env", "check", "times"]);
    expect(check.stdout.trim().split("\n").at(-1), check.stdout).toBe("env check: ok");
    writeFileSync(join(dir, ".npmrc"), `registry=${registry.url}\n${registry.authKey}:_authToken=\${NPM_TOKEN}\n`);
    await ok(NPM, ["publish", "--ignore-scripts"], dir, { NPM_TOKEN: token });
    rmSync(dir, { recursive: true });

    const r = await rubricate(["eval", "@rubricate/times-env@0.1.0", "-m", `openai-compatible:times@${server.url}`, "--judge", judge, "--no-cache", "-q"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const records = jsonl(join(app, defaultEvalOut("@rubricate/times-env@0.1.0", [`openai-compatible:times@${server.url}`])));
    expect(records).toHaveLength(3);
    for (const rec of records) {
      expect(rec.toolCalls.map((c) => c.name)).toEqual(["multiply"]);
      expect(rec.verdicts.map((v) => [v.id, v.status])).toEqual([
        ["correct", "met"],
        ["used-tool", "met"],
        ["one-sentence", "met"],
        ["peer", "met"],
      ]);
      expect(rec.reward).toBe(1);
    }
  }, 180_000);
});
