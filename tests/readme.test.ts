/**
 * The README walk-through, run as written (issue 16, item 4). The convention is stated at the top
 * of README.md: every ```sh block runs, line by line, in order, from a scratch folder that mirrors
 * the repository, with the built CLI and local wire-format servers standing in for OpenAI and
 * Anthropic; ```sh norun blocks are shown, not run. Each command must exit 0.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ROOT } from "./helpers/cli.js";
import { startAnthropicServer } from "../src/testing/servers/anthropic-server.js";
import type { TestServer } from "../src/testing/servers/common.js";
import { judgeResponder, viewRequest } from "../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../src/testing/servers/openai-server.js";
import { readmeCommands } from "./helpers/readme-commands.js";

/** Kept here too: other tests import the parser from this file. */
export { readmeCommands };

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const commands = readmeCommands(README);
/**
 * What the scratch folder mirrors: everything of the repository's but the walk-through's outputs.
 * Listed after the build, not at module load: on a fresh clone `dist/` only exists once beforeAll
 * has built it, and a list taken earlier would leave the README's `npx rubricate` without a CLI.
 */
export function mirroredNames(root: string): string[] {
  return readdirSync(root).filter((n) => ![".git", ".rubricate", "tests", "results.jsonl"].includes(n) && !n.endsWith(".html"));
}

let scratch: string;
let openai: TestServer<unknown>;
let anthropic: TestServer<unknown>;

/** Judges answer every question "no" (a probe's attacks then win nothing); other calls get a wordle guess. */
function respond(body: Record<string, unknown>) {
  const view = viewRequest(body);
  if (view.questions.length > 0) return judgeResponder(() => ({ verdict: false, reason: "the local judge says no" }))(body);
  return "GUESS: crane";
}

beforeAll(async () => {
  // The README's `npx rubricate` is the built CLI: this run's globalSetup built dist/ from these
  // sources (tests/setup/build.ts), once for every file that runs it.
  expect(existsSync(join(inject("rubricateDist"), "cli", "main.js"))).toBe(true);
  openai = (await startOpenAIServer({ respond, recordBodies: false })) as TestServer<unknown>;
  anthropic = (await startAnthropicServer({ respond, recordBodies: false })) as TestServer<unknown>;
  scratch = mkdtempSync(join(tmpdir(), "rubricate-readme-"));
  for (const name of mirroredNames(ROOT)) symlinkSync(join(ROOT, name), join(scratch, name));
}, 360_000);

afterAll(async () => {
  await openai?.close();
  await anthropic?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function run(command: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn("bash", ["-o", "pipefail", "-c", command], {
      cwd: scratch,
      env: {
        ...process.env,
        CI: "",
        OPENAI_BASE_URL: `${openai.url}`,
        ANTHROPIC_BASE_URL: anthropic.url.replace(/\/v1\/?$/, ""),
        OPENAI_API_KEY: "sk-readme-test-0000000000",
        ANTHROPIC_API_KEY: "sk-ant-readme-test-0000000000",
        npm_config_offline: "true",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output = (output + d).slice(-4000)));
    child.stderr.on("data", (d) => (output = (output + d).slice(-4000)));
    child.on("close", (code) => done({ code, output }));
  });
}

describe("README.md", () => {
  it("has commands to run, and refers to files that exist", () => {
    expect(commands.length).toBeGreaterThan(10);
    for (const c of commands) {
      for (const path of c.text.match(/\b(?:rubrics|examples|judges|datasets|probes)\/[\w./*-]+/g) ?? []) {
        if (path.includes("*")) continue;
        expect(existsSync(join(ROOT, path)), `README line ${c.line}: ${path}`).toBe(true);
      }
    }
  });

  it("the scratch folder holds the built CLI the README's `npx rubricate` runs", () => {
    expect(existsSync(join(scratch, "dist", "cli", "main.js"))).toBe(true);
    expect(mirroredNames(ROOT)).toContain("dist");
  });

  for (const c of commands) {
    it(`line ${c.line}: ${c.text.slice(0, 110)}`, async () => {
      const r = await run(c.text);
      expect(r.code, `README line ${c.line} exited ${r.code}:\n${r.output}`).toBe(0);
    }, 240_000);
  }

  it("the walk-through really called the local servers (judges and policies of both providers)", () => {
    expect(openai.stats.requests).toBeGreaterThan(0);
    expect(anthropic.stats.requests).toBeGreaterThan(0);
  });
});
