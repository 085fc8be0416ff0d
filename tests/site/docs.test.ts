/**
 * docs/hub-serve.md stays true: its ```sh blocks run, in order, as one script (they share $HUB and
 * the hub in the background) against a local Verdaccio publishing @acme/times-env@0.1.0, with
 * `rubricate` on the PATH as this checkout's CLI.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cliEntry, ROOT, tempDir } from "../helpers/cli.js";
import { startVerdaccio, type Registry } from "../helpers/verdaccio.js";
import { readmeCommands } from "../helpers/readme-commands.js";
import { publishEnv } from "./fixtures.js";

const PAGE = readFileSync(join(ROOT, "docs", "hub-serve.md"), "utf8");

const freePort = () =>
  new Promise<number>((done) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });

let work: string;
let registry: Registry;
let token: string;

beforeAll(async () => {
  work = tempDir("rubricate-hub-docs-");
  registry = await startVerdaccio(join(work, "registry"), { users: { alice: "alice-pass-1" }, privateScope: "@private" });
  token = await registry.login("alice", "alice-pass-1");
  await publishEnv(registry.url, token, join(work, "pub"), { name: "@acme/times-env", version: "0.1.0", description: "Multiplication with a tool", keywords: ["rubricate-env"], rubricate: "env.yaml" });
  const bin = join(work, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "rubricate"), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${cliEntry().map((a) => JSON.stringify(a)).join(" ")} "$@"\n`);
  chmodSync(join(bin, "rubricate"), 0o755);
}, 120_000);

afterAll(async () => {
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

it("docs/hub-serve.md: every ```sh command runs (start, search, push, read the leaderboard, stop)", async () => {
  const commands = readmeCommands(PAGE);
  expect(commands.map((c) => c.text)).toContain('kill "$HUB_PID"');
  const project = join(work, "project");
  mkdirSync(project);
  const script = ["set -euo pipefail", ...commands.map((c) => c.text)].join("\n");
  const port = await freePort();
  const { code, output } = await new Promise<{ code: number | null; output: string }>((done) => {
    const child = spawn("bash", ["-c", script], {
      cwd: project,
      env: { ...process.env, PATH: `${join(work, "bin")}:${process.env.PATH}`, REGISTRY: registry.url, NPM_TOKEN: token, HUB_PORT: String(port), npm_config_cache: join(work, "npm-cache"), npm_config_update_notifier: "false" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("close", (c) => (clearTimeout(timer), done({ code: c, output: out })));
  });
  expect(code, output).toBe(0);
  // The search found the environment; the push was stored and shows on the leaderboard.
  expect(output).toContain('{"envs":[{"name":"@acme/times-env"');
  expect(output).toMatch(/\{"id":1,"url":"\/envs\/@acme\/times-env\?version=0\.1\.0"\}/);
  expect(output).toMatch(/"leaderboard":\[\{"model":"openai:gpt-4\.1-mini","reward":\{"n":4,"mean":0\.75/);
  expect(readFileSync(join(project, "hub.log"), "utf8")).toContain(`hub listening on http://127.0.0.1:${port}/`);
}, 180_000);
