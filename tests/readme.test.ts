/**
 * The README walk-through, run as written (issue 16, item 4). The convention is stated at the top
 * of README.md: every ```sh block runs, line by line, in order, from a scratch folder that mirrors
 * the repository, with the built CLI and local wire-format servers standing in for OpenAI and
 * Anthropic; ```sh norun blocks are shown, not run. Each command must exit 0.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ROOT } from "./helpers/cli.js";
import { startAnthropicServer } from "../src/testing/servers/anthropic-server.js";
import type { TestServer } from "../src/testing/servers/common.js";
import { judgeResponder, viewRequest } from "../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../src/testing/servers/openai-server.js";
import { LOCAL_NPX, readmeCommands } from "./helpers/readme-commands.js";

/** Kept here too: other tests import the parser from this file. */
export { readmeCommands };

/**
 * The pages whose ```sh blocks run, in this order, in one scratch folder: the README, then the
 * docs pages its commands moved to (environments' `eval` writes the rollouts `distill` reads;
 * `calibrate` reads the README's `results.jsonl`). A docs page with commands of its own and a
 * test of its own is not listed here.
 */
export const WALKTHROUGH_PAGES = ["README.md", "docs/environments.md", "docs/distill.md", "docs/calibration.md"];
const pages = WALKTHROUGH_PAGES.map((page) => ({ page, commands: readmeCommands(readFileSync(join(ROOT, page), "utf8")) }));
const commands = pages.flatMap(({ page, commands }) => commands.map((c) => ({ ...c, page })));
/**
 * Commands another test runs as written and checks more closely than an exit status: the
 * walk-through leaves them to it instead of paying for them twice (the calibration example is a
 * bootstrap of ~13 s of CPU at its default 1,000 resamples; the distil example ~2.3 s). Each test file must name the command's script, see the first test.
 */
export const RUN_ELSEWHERE: Record<string, { script: string; test: string }> = {
  "npx tsx examples/calibration/run.ts": { script: "examples/calibration/run.ts", test: "examples/calibration/run.test.ts" },
  "npx tsx examples/distill/run.ts": { script: "examples/distill/run.ts", test: "tests/distill/example.test.ts" },
};
const runElsewhere = (text: string) => RUN_ELSEWHERE[text.replace(/\s+#.*$/, "").trim()];
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
  for (const name of mirroredNames(ROOT)) if (name !== "node_modules") symlinkSync(join(ROOT, name), join(scratch, name));
  linkNodeModules(join(ROOT, "node_modules"), join(scratch, "node_modules"), join(inject("rubricateDist"), "cli", "main.js"));
}, 360_000);

/**
 * The scratch folder's node_modules: the repository's packages and bins, linked, but `rubricate`
 * runs the build itself. The clone's own node_modules/.bin/rubricate is scripts/dev-bin.mjs, which
 * starts a second node and runs the sources through tsx whenever a file of src/ is newer than
 * dist/ (a checkout that touched them without changing them: 25 s of CPU for this file instead of 16).
 */
function linkNodeModules(from: string, to: string, cli: string): void {
  mkdirSync(join(to, ".bin"), { recursive: true });
  for (const name of readdirSync(from)) if (name !== ".bin") symlinkSync(join(from, name), join(to, name));
  for (const bin of readdirSync(join(from, ".bin"))) symlinkSync(bin === "rubricate" ? cli : realpathSync(join(from, ".bin", bin)), join(to, ".bin", bin));
}

afterAll(async () => {
  await openai?.close();
  await anthropic?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function run(command: string, { realNpx = false } = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn("bash", ["-o", "pipefail", "-c", realNpx ? command : `${LOCAL_NPX}\n${command}`], {
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
    // Every page the README's commands moved to still has commands of its own to run.
    for (const { page, commands: own } of pages) expect(own.length, `${page} has no \`\`\`sh block to run`).toBeGreaterThan(0);
    for (const c of commands) {
      for (const path of c.text.match(/\b(?:rubrics|examples|judges|datasets|probes)\/[\w./*-]+/g) ?? []) {
        if (path.includes("*")) continue;
        expect(existsSync(join(ROOT, path)), `${c.page} line ${c.line}: ${path}`).toBe(true);
      }
    }
    // A command left to another test is still on a page, and that test runs its script.
    for (const [text, { script, test }] of Object.entries(RUN_ELSEWHERE)) {
      expect(commands.some((c) => runElsewhere(c.text)), `${text} is on no page: drop it from RUN_ELSEWHERE`).toBe(true);
      expect(readFileSync(join(ROOT, test), "utf8"), `${test} no longer runs ${script}`).toContain(`"${script}"`);
      expect(text).toBe(`npx tsx ${script}`);
    }
  });

  it("npx resolves `rubricate` and `tsx` in the scratch folder to the node_modules/.bin files the walk-through runs", async () => {
    const r = await run('npx -c \'command -v rubricate; command -v tsx\'', { realNpx: true });
    expect(r.code, r.output).toBe(0);
    expect(r.output.trim().split("\n")).toEqual([join(scratch, "node_modules", ".bin", "rubricate"), join(scratch, "node_modules", ".bin", "tsx")]);
  });

  it("the scratch folder holds the built CLI the README's `npx rubricate` runs", () => {
    expect(existsSync(join(scratch, "dist", "cli", "main.js"))).toBe(true);
    expect(mirroredNames(ROOT)).toContain("dist");
    expect(realpathSync(join(scratch, "node_modules", ".bin", "rubricate"))).toBe(realpathSync(join(inject("rubricateDist"), "cli", "main.js")));
  });

  for (const c of commands.filter((c) => !runElsewhere(c.text))) {
    it(`${c.page} line ${c.line}: ${c.text.slice(0, 100)}`, async () => {
      const r = await run(c.text);
      expect(r.code, `${c.page} line ${c.line} exited ${r.code}:\n${r.output}`).toBe(0);
    }, 240_000);
  }

  it("the walk-through really called the local servers (judges and policies of both providers)", () => {
    expect(openai.stats.requests).toBeGreaterThan(0);
    expect(anthropic.stats.requests).toBeGreaterThan(0);
  });
});
