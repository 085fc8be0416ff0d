import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FORMAT_SCHEMAS } from "../../src/distill/formats.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { cpSync, writeFileSync } from "node:fs";
import { ROOT, runCli, tempDir } from "../helpers/cli.js";
import { readLines, runDistillCli } from "./helpers.js";

const servers: TestServer<unknown>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("examples/distill", () => {
  it("run.ts generates with the scripted teacher, filters, and exports valid SFT and DPO files", async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "examples/distill/run.ts"), dir], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise((done) => child.on("close", done));
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("SFT: 48 input rows → 7 rows kept");
    expect(stdout).toContain("DPO: 48 input rows → 8 pairs kept");
    expect(stdout).toContain("teacher calls so far: 48, the second pass was served by the cache");
    const sft = readLines(join(dir, "sft.openai.jsonl"));
    expect(sft).toHaveLength(7);
    for (const line of sft) {
      expect(FORMAT_SCHEMAS.openai.safeParse(line).success).toBe(true);
      expect(line.messages.at(-1).content).toMatch(/^The capital of .+ is .+\.$/);
    }
    const pairs = readLines(join(dir, "pairs.dpo.jsonl"));
    expect(pairs).toHaveLength(8);
    for (const line of pairs) {
      expect(FORMAT_SCHEMAS.dpo.safeParse(line).success).toBe(true);
      expect(line.metadata.margin).toBeGreaterThanOrEqual(0.5);
    }
  });

  it("rubricate distill --env --model generates from a teacher server, and a second run replays the cache", async () => {
    const seen = new Map<string, number>();
    const capitals: Record<string, string> = { France: "Paris", Germany: "Berlin", Italy: "Rome" };
    const server = await startOpenAIServer({
      respond: (body: Record<string, unknown>) => {
        const messages = body.messages as { role: string; content: string }[];
        const country = /capital of (.+)\?/.exec(messages.at(-1)!.content)?.[1] ?? "?";
        const n = seen.get(country) ?? 0;
        seen.set(country, n + 1);
        return n % 2 === 0 ? `The capital of ${country} is ${capitals[country]}.` : `I think it is ${country} City.`;
      },
    });
    servers.push(server as TestServer<unknown>);
    const dir = tempDir();
    const cache = join(dir, "cache.db");
    const args = (out: string) => ["distill", "--env", "examples/distill/env.yaml", "--model", `openai-compatible:teacher@${server.url}`, "--rollouts", "4", "--tasks", "3", "-c", "1", "--cache", cache, "--format", "dpo", "--with-metadata", "-o", join(dir, out)];
    const first = await runDistillCli(args("a.jsonl"));
    expect(first.code, first.stderr).toBe(0);
    expect(server.stats.requests).toBe(12);
    const pairs = readLines(join(dir, "a.jsonl"));
    expect(pairs).toHaveLength(3);
    for (const p of pairs) {
      expect(FORMAT_SCHEMAS.dpo.safeParse(p).success).toBe(true);
      expect(p.prompt[0]).toEqual({ role: "system", content: "Answer with the capital city in one short sentence." });
      expect(p.chosen[0].content).toMatch(/^The capital of (France|Germany|Italy) is (Paris|Berlin|Rome)\.$/);
      expect(p.rejected[0].content).toMatch(/^I think/);
      expect(p.metadata.margin).toBe(1); // the rejected misses the required criterion: reward 0
    }
    expect(first.stderr).toContain("12 input rows → 3 pairs kept");
    const second = await runDistillCli(args("b.jsonl"));
    expect(second.code, second.stderr).toBe(0);
    expect(server.stats.requests).toBe(12);
    expect(second.stderr).toContain("cache hits 12");
  });

  it("--env takes a package name as eval does (here one the project installed): it was only a path before, ENOENT", async () => {
    const server = await startOpenAIServer({ respond: (body: Record<string, unknown>) => `The capital of ${/capital of (.+)\?/.exec((body.messages as { content: string }[]).at(-1)!.content)?.[1]} is somewhere.` });
    servers.push(server as TestServer<unknown>);
    const project = tempDir();
    const pkgDir = join(project, "node_modules", "@acme", "capitals-env");
    cpSync(join(ROOT, "examples", "distill"), pkgDir, { recursive: true });
    writeFileSync(join(pkgDir, "package.json"), JSON.stringify({ name: "@acme/capitals-env", version: "2.0.0", rubricate: "env.yaml" }));
    const out = join(project, "sft.jsonl");
    const r = await runCli(["distill", "--env", "@acme/capitals-env", "--model", `openai-compatible:teacher@${server.url}`, "--rollouts", "1", "--tasks", "2", "--no-cache", "--format", "openai", "--with-metadata", "--min-reward", "0", "-o", out], { cwd: project });
    expect(r.code, r.stderr).toBe(0);
    expect(server.stats.requests).toBe(2);
    expect(readLines(out)).toHaveLength(2);
  });

  it("--env is exclusive with an input file and needs --model", async () => {
    const both = await runDistillCli(["distill", "x.jsonl", "--env", "examples/distill/env.yaml", "--model", "openai:x"]);
    expect(both.stderr).toContain("either an input file or --env");
    const noModel = await runDistillCli(["distill", "--env", "examples/distill/env.yaml"]);
    expect(noModel.stderr).toContain("--env needs --model");
  });
});
