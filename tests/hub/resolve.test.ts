import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installFolderName } from "../../src/hub/install.js";
import { loadEnvironmentSpec, resolveEnvSpec } from "../../src/hub/resolve.js";
import { parseEnvSpec } from "../../src/hub/spec.js";
import { ROOT, tempDir } from "../helpers/cli.js";
import { needs, which } from "../helpers/system.js";

const WORDLE = join(ROOT, "examples", "wordle");
const wordleVersion = (JSON.parse(readFileSync(join(WORDLE, "package.json"), "utf8")) as { version: string }).version;

/** A copy of the wordle example as package `name@version` in `dir` (its run.test.ts left out). */
function wordleCopy(dir: string, name: string, version: string): string {
  cpSync(WORDLE, dir, { recursive: true, filter: (src) => !src.endsWith(".test.ts") });
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "package.json"), JSON.stringify({ ...pkg, name, version }, null, 2));
  return dir;
}

let work: string;
const saved = { registry: process.env.npm_config_registry, retries: process.env.npm_config_fetch_retries };
beforeAll(() => {
  work = tempDir("rubricate-resolve-");
  // No test here may reach a registry: any install attempt meets a closed port and fails at once.
  process.env.npm_config_registry = "http://127.0.0.1:9/";
  process.env.npm_config_fetch_retries = "0";
});
afterAll(() => {
  process.env.npm_config_registry = saved.registry;
  process.env.npm_config_fetch_retries = saved.retries;
  if (saved.registry === undefined) delete process.env.npm_config_registry;
  if (saved.retries === undefined) delete process.env.npm_config_fetch_retries;
  rmSync(work, { recursive: true, force: true });
});

describe("parseEnvSpec", () => {
  it("tells paths, registry packages and npm-fetchable specs apart, as npm does", () => {
    expect(parseEnvSpec("examples/wordle", ROOT)).toEqual({ kind: "path", path: WORDLE });
    expect(parseEnvSpec("./suite.yaml", "/x")).toEqual({ kind: "path", path: "/x/suite.yaml" });
    expect(parseEnvSpec("@acme/wordle-env", ROOT)).toEqual({ kind: "registry", raw: "@acme/wordle-env", name: "@acme/wordle-env", range: "" });
    expect(parseEnvSpec("@acme/wordle-env@1.1.0", ROOT)).toEqual({ kind: "registry", raw: "@acme/wordle-env@1.1.0", name: "@acme/wordle-env", range: "1.1.0", exact: "1.1.0" });
    expect(parseEnvSpec("wordle-env@^1.0.0", ROOT)).toMatchObject({ kind: "registry", name: "wordle-env", range: "^1.0.0" });
    expect(parseEnvSpec("wordle-env@beta", ROOT)).toMatchObject({ kind: "registry", range: "beta" });
    expect(parseEnvSpec("github:acme/wordle-env", ROOT)).toMatchObject({ kind: "fetch", via: "git" });
    expect(parseEnvSpec("git+https://example.com/acme/wordle-env.git#v1", ROOT)).toMatchObject({ kind: "fetch", via: "git" });
    expect(parseEnvSpec("acme/wordle-env", ROOT)).toMatchObject({ kind: "fetch", via: "git" });
    // A typo under a folder that exists stays a path (a clear FILE_NOT_FOUND, not a GitHub fetch).
    expect(parseEnvSpec("examples/wordel", ROOT)).toEqual({ kind: "path", path: join(ROOT, "examples", "wordel") });
    expect(parseEnvSpec("https://example.com/wordle-env-1.0.0.tgz", ROOT)).toMatchObject({ kind: "fetch", via: "remote" });
  });

  it("rejects an empty spec and one npm cannot parse", () => {
    expect(() => parseEnvSpec("  ")).toThrow(/empty environment spec/);
    expect(() => parseEnvSpec("Bad Name@1", ROOT)).toThrow(/neither a file nor a package spec/);
  });
});

describe("resolveEnvSpec", () => {
  it("a package folder, or its environment file, carries the package's name and version", async () => {
    const byFolder = await resolveEnvSpec(WORDLE);
    expect(byFolder).toEqual({ file: join(WORDLE, "env.yaml"), package: { name: "@rubricate/wordle-env", version: wordleVersion }, from: "path" });
    expect(await resolveEnvSpec(join(WORDLE, "env.yaml"))).toEqual(byFolder);
    // A YAML file outside any package: no package, and the YAML's own version is what rollouts carry.
    const loose = join(work, "loose");
    mkdirSync(loose);
    writeFileSync(join(loose, "tiny.yaml"), 'id: tiny\nversion: 7\ndataset: [{ inputs: { prompt: hi } }]\nrubric: { id: r, criteria: [{ id: c, check: { contains: x } }] }\n');
    const env = await loadEnvironmentSpec(join(loose, "tiny.yaml"));
    expect(env.version).toBe(7);
    expect(env.package).toBeUndefined();
  });

  it("loadEnvironmentSpec stamps the package on the environment; its version replaces the YAML's", async () => {
    const env = await loadEnvironmentSpec("examples/wordle", { cwd: ROOT });
    expect(env.package).toEqual({ name: "@rubricate/wordle-env", version: wordleVersion });
    expect(env.version).toBe(wordleVersion);
    expect(env.id).toBe("wordle");
  });

  it("finds a package the project installed, with the integrity from its lockfile", async () => {
    const project = join(work, "project");
    wordleCopy(join(project, "node_modules", "@acme", "wordle-env"), "@acme/wordle-env", "2.3.4");
    const integrity = "sha512-" + "A".repeat(86) + "==";
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "p", private: true, devDependencies: { "@acme/wordle-env": "2.3.4" } }));
    writeFileSync(join(project, "package-lock.json"), JSON.stringify({ lockfileVersion: 3, packages: { "node_modules/@acme/wordle-env": { version: "2.3.4", integrity } } }));
    const sub = join(project, "evals");
    mkdirSync(sub);
    for (const spec of ["@acme/wordle-env", "@acme/wordle-env@2.3.4", "@acme/wordle-env@^2"]) {
      const r = await resolveEnvSpec(spec, { cwd: sub });
      expect(r.from).toBe("project");
      expect(r.package).toEqual({ name: "@acme/wordle-env", version: "2.3.4", integrity });
      expect(r.file).toBe(join(project, "node_modules", "@acme", "wordle-env", "env.yaml"));
    }
    // A version the project does not have goes to npm (here a closed port): the project is not used instead.
    await expect(resolveEnvSpec("@acme/wordle-env@3.0.0", { cwd: sub, envsDir: join(work, "envs-a") })).rejects.toMatchObject({ code: "REGISTRY_DOWN" });
    expect(readdirSync(join(work, "envs-a"))).toEqual([]);
  });

  it("a project lockfile that is not JSON (a merge's conflict markers) is named file:line:col in one notice; npm's hidden lockfile still gives the integrity", async () => {
    const project = join(work, "conflicted");
    wordleCopy(join(project, "node_modules", "@acme", "wordle-env"), "@acme/wordle-env", "2.3.4");
    const lockfile = join(project, "package-lock.json");
    writeFileSync(lockfile, '{\n  "lockfileVersion": 3,\n<<<<<<< HEAD\n  "packages": {}\n=======\n  "packages": {}\n>>>>>>> theirs\n}\n');
    const notices: string[] = [];
    const bare = await resolveEnvSpec("@acme/wordle-env", { cwd: project, onNotice: (line) => notices.push(line) });
    expect(bare.package).toEqual({ name: "@acme/wordle-env", version: "2.3.4" });
    expect(notices).toHaveLength(1);
    expect(notices[0].startsWith(`warning: ${lockfile}:3:1: not JSON (`)).toBe(true);
    expect(notices[0]).toMatch(/\); @acme\/wordle-env's integrity is not recorded in the rollouts$/);

    const integrity = "sha512-" + "B".repeat(86) + "==";
    writeFileSync(join(project, "node_modules", ".package-lock.json"), JSON.stringify({ lockfileVersion: 3, packages: { "node_modules/@acme/wordle-env": { version: "2.3.4", integrity } } }));
    const hidden = await resolveEnvSpec("@acme/wordle-env", { cwd: project, onNotice: (line) => notices.push(line) });
    expect(hidden.package).toEqual({ name: "@acme/wordle-env", version: "2.3.4", integrity });
    expect(notices).toHaveLength(2);
  });

  it("an exact version already in the environments folder is used without npm", async () => {
    const envsDir = join(work, "envs-b");
    const root = join(envsDir, installFolderName("@acme/wordle-env", "1.2.3"));
    wordleCopy(join(root, "node_modules", "@acme", "wordle-env"), "@acme/wordle-env", "1.2.3");
    writeFileSync(join(root, "package-lock.json"), JSON.stringify({ packages: { "node_modules/@acme/wordle-env": { version: "1.2.3", integrity: "sha512-xyz", resolved: "http://r/x.tgz" } } }));
    const r = await resolveEnvSpec("@acme/wordle-env@1.2.3", { cwd: work, envsDir });
    expect(r).toMatchObject({ from: "installed", package: { name: "@acme/wordle-env", version: "1.2.3", integrity: "sha512-xyz", resolved: "http://r/x.tgz" } });
    const env = await loadEnvironmentSpec("@acme/wordle-env@1.2.3", { cwd: work, envsDir });
    expect(env.version).toBe("1.2.3");
    // A bare name or a range needs the registry; when it is down, the newest installed match is used, and said.
    const notices: string[] = [];
    const offline = await resolveEnvSpec("@acme/wordle-env@^1", { cwd: work, envsDir, onNotice: (l) => notices.push(l) });
    expect(offline.package?.version).toBe("1.2.3");
    expect(notices).toEqual([`installing @acme/wordle-env@^1 into ${envsDir}`, "the registry is unreachable; using the installed @acme/wordle-env@1.2.3"]);
    await expect(resolveEnvSpec("@acme/wordle-env@^2", { cwd: work, envsDir })).rejects.toMatchObject({ code: "REGISTRY_DOWN" });
    expect(readdirSync(envsDir)).toEqual([installFolderName("@acme/wordle-env", "1.2.3")]);
  });

  it("bad specs: a missing path, a folder that is no environment, a package.json without a `rubricate` field", async () => {
    await expect(resolveEnvSpec(join(work, "nope.yaml"))).rejects.toMatchObject({ code: "FILE_NOT_FOUND" });
    const empty = join(work, "empty");
    mkdirSync(empty);
    await expect(resolveEnvSpec(empty)).rejects.toThrow(/neither a package.json with a "rubricate" field nor an env.yaml/);
    const noField = join(work, "no-field");
    mkdirSync(noField);
    writeFileSync(join(noField, "package.json"), JSON.stringify({ name: "lib", version: "1.0.0" }));
    writeFileSync(join(noField, "env.yaml"), "id: x\n");
    // The env.yaml is used; only a package that claims to be an environment must have the field right.
    expect((await resolveEnvSpec(noField)).file).toBe(join(noField, "env.yaml"));
    writeFileSync(join(noField, "package.json"), JSON.stringify({ name: "lib", version: "1.0.0", rubricate: "missing.yaml" }));
    await expect(resolveEnvSpec(noField)).rejects.toMatchObject({ code: "PACKAGE_INVALID", message: expect.stringMatching(/lib@1.0.0: its "rubricate" field names missing.yaml/) });
  });
});

const git = needs("git", () => which("git"), "apt-get install git");
git.describe("resolveEnvSpec with a git URL", () => {
  it("installs through npm into the environments folder (never the project), stamped with the commit", async () => {
    const repo = wordleCopy(join(work, "repo"), "@acme/git-wordle-env", "0.9.0");
    const gitRun = (args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" }).trim();
    gitRun(["init", "-q"]);
    gitRun(["add", "-A"]);
    gitRun(["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "env"]);
    const sha = gitRun(["rev-parse", "HEAD"]);
    const project = join(work, "git-project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), "{}\n");
    const notices: string[] = [];
    const env = await loadEnvironmentSpec(`git+file://${repo}`, { cwd: project, onNotice: (l) => notices.push(l) });
    expect(notices[0]).toMatch(/^installing git\+file:/);
    expect(env.package).toMatchObject({ name: "@acme/git-wordle-env", version: "0.9.0", resolved: `git+file://${repo}#${sha}` });
    expect(env.tasks.length).toBeGreaterThan(0);
    const envs = readdirSync(join(project, ".rubricate", "envs"));
    expect(envs).toHaveLength(1);
    expect(envs[0]).toMatch(/^@acme\+git-wordle-env@0\.9\.0\+[0-9a-f]{10}$/);
    expect(readFileSync(join(project, "package.json"), "utf8")).toBe("{}\n");
    expect(existsSync(join(project, "node_modules"))).toBe(false);
    // The peer dependency is the running rubricate, linked: not a second copy.
    expect(readFileSync(join(project, ".rubricate", "envs", envs[0], "node_modules", "rubricate", "package.json"), "utf8")).toBe(readFileSync(join(ROOT, "package.json"), "utf8"));
  });

  it("a bare repository, as a path or a file:// URL, says to write git+file://", async () => {
    const bare = join(work, "bare.git");
    execFileSync("git", ["init", "-q", "--bare", bare]);
    for (const spec of [bare, `file://${bare}`]) {
      const err = await resolveEnvSpec(spec, { cwd: work }).catch((e: Error) => e);
      expect(err).toMatchObject({ code: "FILE_NOT_FOUND" });
      expect((err as Error).message).toContain(`is a bare git repository, not a package folder: write git+file://${bare}`);
    }
  });

  it("a git URL that does not exist is a one-line error and leaves nothing behind", async () => {
    const project = join(work, "git-bad");
    mkdirSync(project);
    const err = await resolveEnvSpec(`git+file://${join(work, "no-repo")}`, { cwd: project }).catch((e: Error) => e);
    expect(err).toMatchObject({ code: "PACKAGE_NOT_FOUND" });
    expect((err as Error).message).not.toContain("\n");
    expect(readdirSync(join(project, ".rubricate", "envs"))).toEqual([]);
  });
});
