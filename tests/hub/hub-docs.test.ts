/**
 * SLOW (Verdaccio + npm): docs/hub.md run as written — every ```sh command, in order, from a
 * scratch project whose `npx rubricate` is this run's build — against a local Verdaccio 6.8.0 (a
 * private @acme scope), a real hub (`hub serve`'s app, results in SQLite) and a local OpenAI-format
 * server playing both the policy and the judge. Then what the walk-through should have left:
 * two published versions, results on the hub naming the registry's own integrity. And the E404 a
 * plain `npm install` of an environment hit on its `rubricate` peer, which the registry lacks.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ROOT } from "../helpers/cli.js";
import { serve } from "@hono/node-server";
import { createHubApp } from "../../src/site/app.js";
import { RegistryClient } from "../../src/site/registry.js";
import { ResultStore } from "../../src/site/store.js";
import type { HubResult } from "../../src/hub/results.js";
import { startVerdaccio, type Registry } from "../helpers/verdaccio.js";
import { LOCAL_NPX, readmeCommands } from "../helpers/readme-commands.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { judgeResponder, viewRequest } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";

const commands = readmeCommands(readFileSync(join(ROOT, "docs", "hub.md"), "utf8"));

interface WireMessage {
  role: string;
  content?: string;
}

/** The scaffold's policy: calls multiply with the two numbers asked about, then states the product; the judge says yes. */
function respond(body: Record<string, unknown>) {
  if (viewRequest(body).questions.length > 0) return judgeResponder(() => ({ verdict: true, reason: "one sentence" }))(body);
  const m = body.messages as WireMessage[];
  const [a, b] = (m.find((x) => x.role === "user")?.content ?? "").match(/\d+/g)!.map(Number);
  const result = m.find((x) => x.role === "tool")?.content;
  return result === undefined ? { toolCalls: [{ id: "call_1", name: "multiply", arguments: { a, b } }] } : `${a} times ${b} is ${result}.`;
}

describe("docs/hub.md [slow: Verdaccio + npm]", () => {
  let work: string;
  let scratch: string;
  let registry: Registry;
  let hub: { url: string; close(): Promise<void> };
  let store: ResultStore;
  let openai: TestServer<unknown>;
  let token: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "rubricate-hub-docs-"));
    registry = await startVerdaccio(join(work, "registry"), { users: { alice: "alice-pass-1" }, privateScope: "@acme" });
    token = await registry.login("alice", "alice-pass-1");
    store = new ResultStore(join(work, "hub.db"));
    const app = createHubApp({ registries: new RegistryClient({ registries: [registry.url] }), store });
    const server = await new Promise<ReturnType<typeof serve>>((done) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => done(s));
    });
    hub = { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => new Promise((done) => server.close(() => done())) };
    openai = (await startOpenAIServer({ respond, recordBodies: false })) as TestServer<unknown>;
    // The user's ~/.npmrc of docs/hub.md §1: the scope's registry and a token line naming a variable.
    writeFileSync(join(work, "user.npmrc"), `@acme:registry=${registry.url}\n${registry.authKey}:_authToken=\${NPM_TOKEN}\n`);
    // A project with rubricate installed: `npx rubricate` is this run's build.
    scratch = join(work, "project");
    mkdirSync(join(scratch, "node_modules", ".bin"), { recursive: true });
    writeFileSync(join(scratch, "package.json"), `${JSON.stringify({ name: "hub-docs-project", private: true }, null, 2)}\n`);
    symlinkSync(ROOT, join(scratch, "node_modules", "rubricate"));
    symlinkSync(join(inject("rubricateDist"), "cli", "main.js"), join(scratch, "node_modules", ".bin", "rubricate"));
    env = {
      CI: "",
      NO_COLOR: "1",
      npm_config_userconfig: join(work, "user.npmrc"),
      npm_config_cache: join(work, "npm-cache"),
      npm_config_update_notifier: "false",
      npm_config_fetch_retries: "0",
      NPM_TOKEN: token,
      ACME_REGISTRY: registry.url,
      RUBRICATE_HUB: hub.url,
      // The hub takes results from users its registry knows: the same npm token.
      RUBRICATE_HUB_TOKEN: token,
      OPENAI_BASE_URL: openai.url,
      OPENAI_API_KEY: "sk-hub-docs-test-0000000000",
    };
  }, 120_000);

  afterAll(async () => {
    await registry?.stop();
    await hub?.close();
    store?.close();
    await openai?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** A command as bash runs it in `cwd`; `npx rubricate` runs the project's bin without npm's start (LOCAL_NPX) unless `realNpx`. */
  const run = (command: string, cwd = scratch, { realNpx = false } = {}): Promise<{ code: number | null; output: string }> =>
    new Promise((done) => {
      const child = spawn("bash", ["-o", "pipefail", "-c", realNpx ? command : `${LOCAL_NPX}\n${command}`], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (d) => (output = (output + d).slice(-6000)));
      child.stderr.on("data", (d) => (output = (output + d).slice(-6000)));
      child.on("close", (code) => done({ code, output }));
    });

  it("has the walk-through's commands: init, check, push, list, search, info, eval --push, hub push", () => {
    const text = commands.map((c) => c.text).join("\n");
    for (const step of ["env init", "env check", "env push", "--bump patch", "env list", "env search", "env info", "--push", "--step", "hub push"]) expect(text).toContain(step);
  });

  it("npx resolves `rubricate` in the project to the node_modules/.bin file the walk-through runs", async () => {
    const r = await run("npx -c 'command -v rubricate'", scratch, { realNpx: true });
    expect(r.code, r.output).toBe(0);
    expect(r.output.trim()).toBe(join(scratch, "node_modules", ".bin", "rubricate"));
  });

  for (const c of commands) {
    it(`line ${c.line}: ${c.text.slice(0, 100)}`, async () => {
      const r = await run(c.text);
      expect(r.code, `docs/hub.md line ${c.line} exited ${r.code}:\n${r.output}`).toBe(0);
    }, 240_000);
  }

  it("left two versions in the registry and, on the hub, results naming the registry's integrity of the version they measured", async () => {
    const doc = (await (await fetch(`${registry.url}@acme%2ftimes-env`, { headers: { authorization: `Bearer ${token}` } })).json()) as { versions: Record<string, { dist: { integrity: string } }> };
    expect(Object.keys(doc.versions).sort()).toEqual(["0.1.0", "0.1.1"]);
    // What the hub's API serves for that version (the page's leaderboard reads the same).
    const api = await fetch(`${hub.url}/api/envs/@acme/times-env/0.1.1/results`, { headers: { authorization: `Bearer ${token}` } });
    expect(api.status).toBe(200);
    const { results, leaderboard } = (await api.json()) as { results: { result: HubResult }[]; leaderboard: { model: string }[] };
    expect(new Set(results.map((r) => r.result.model))).toEqual(new Set(["openai:gpt-4.1-mini", "openai:gpt-4.1"]));
    expect(new Set(leaderboard.map((r) => r.model))).toEqual(new Set(["openai:gpt-4.1-mini", "openai:gpt-4.1"]));
    for (const { result } of results) {
      expect(result.env).toEqual({ name: "@acme/times-env", version: "0.1.1", integrity: doc.versions["0.1.1"].dist.integrity });
      expect(result.stats.tasks).toBe(4);
    }
    expect(results.filter((r) => r.result.step === 100 && r.result.series === "times-run-1").length).toBeGreaterThanOrEqual(1);
    // The hub reads task count and criteria from the version's own files (0.1.0 has no results to count from).
    const page = (await (await fetch(`${hub.url}/api/envs/@acme/times-env?version=0.1.0`, { headers: { authorization: `Bearer ${token}` } })).json()) as { tasks?: number; criteria: string[] };
    expect(page).toMatchObject({ tasks: 3, criteria: ["correct", "used-tool", "one-sentence"] });
    // No token in the hub's store: it passes the visitor's token to the registry and keeps none.
    expect(readFileSync(join(work, "hub.db")).includes(Buffer.from(token))).toBe(false);
    // env info of the first version, as --json wrote it: its own task count and the rubric's criteria.
    const info = JSON.parse(readFileSync(join(scratch, "info.json"), "utf8")) as { version: string; versions: string[]; tasks: number; criteria: { id: string }[]; install: string; readme: string };
    expect(info).toMatchObject({ version: "0.1.0", versions: ["0.1.0", "0.1.1"], tasks: 3, install: "npx rubricate eval @acme/times-env@0.1.0" });
    expect(info.criteria.map((c) => c.id)).toEqual(["correct", "used-tool", "one-sentence"]);
    expect(info.readme).toMatch(/^# @acme\/times-env/);
    // The evals installed 0.1.1 once, in a folder named by name@version, which the eval of @0.1.1 found again without npm
    // (a registry's http(s) tarball URL in the lockfile put a hash in the name, and each exact version was installed anew).
    expect(readdirSync(join(scratch, ".rubricate", "envs"))).toEqual(["@acme+times-env@0.1.1"]);
  });

  it("an unchanged republish is refused with the hint to bump, and the version in package.json stays", async () => {
    const r = await run("npx rubricate env push times-env --bump patch");
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/BAD_INPUT: @acme\/times-env: the packed files are the same as the published 0\.1\.1 .*--bump patch/);
    expect(JSON.parse(readFileSync(join(scratch, "times-env", "package.json"), "utf8"))).toMatchObject({ version: "0.1.1" });
  });

  it("a push without a token is one line saying how to log in", async () => {
    writeFileSync(join(scratch, "times-env", "README.md"), `${readFileSync(join(scratch, "times-env", "README.md"), "utf8")}\nMore.\n`);
    const r = await run("NPM_TOKEN= npx rubricate env push times-env --bump patch");
    expect(r.code).not.toBe(0);
    expect(r.output.trim().split("\n")).toHaveLength(1);
    expect(r.output).toMatch(/^rubricate: REGISTRY_AUTH: @acme\/times-env: http:\/\/127\.0\.0\.1:\d+\/ wants a login \(E401: .*\); run `npm login --registry http/);
  });

  it("`npm install` of the environment in a plain project works: the rubricate peer is optional, so npm does not ask the registry for it (E404 before)", async () => {
    const project = join(work, "plain");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), "{}\n");
    const ok = await run("npm install @acme/times-env@0.1.1 --ignore-scripts --no-audit --no-fund", project);
    expect(ok.code, ok.output).toBe(0);
    // The same package with its peer required, as the scaffold wrote it before: npm asks this registry for rubricate.
    const old = join(work, "old-peer");
    await run(`cp -r ${join(scratch, "times-env")} ${old}`);
    const pkg = JSON.parse(readFileSync(join(old, "package.json"), "utf8")) as Record<string, unknown>;
    delete pkg.peerDependenciesMeta;
    writeFileSync(join(old, "package.json"), JSON.stringify({ ...pkg, name: "@acme/old-peer-env", version: "0.1.0" }, null, 2));
    expect((await run("npm publish --ignore-scripts", old)).code).toBe(0);
    const failed = await run("npm install @acme/old-peer-env --ignore-scripts --no-audit --no-fund", project);
    expect(failed.code).not.toBe(0);
    expect(failed.output).toMatch(/E404[\s\S]*rubricate/);
  });
});
