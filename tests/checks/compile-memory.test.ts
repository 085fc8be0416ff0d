/**
 * Compiled JSON Schemas stay bounded in memory. ajv keeps every validator an instance compiled (in
 * its scope, which `removeSchema` does not empty), so a long-running reward server receiving a new
 * client schema per request grew without end (~22 MB per 1,000 small schemas) until it ran out of
 * memory, though the cache held at most COMPILE_CACHE_LIMIT of them. Measured in a child process,
 * after the collection a heap snapshot makes (see the fixture).
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";

function heapAt(total: number, every: number): Promise<{ schemas: number; heapMb: number }[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", "tests/checks/fixtures/schema-memory-child.ts", String(total), String(every)], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

describe("compiled schemas: memory", () => {
  it("a stream of distinct schemas levels off instead of growing with every schema", async () => {
    const checkpoints = await heapAt(1600, 400);
    const at = (n: number) => checkpoints.find((c) => c.schemas === n)!.heapMb;
    // Unbounded, 1,200 more schemas kept ~26 MB more; bounded, ~3 MB (old ajv instances are collected).
    expect(at(1600) - at(400), JSON.stringify(checkpoints)).toBeLessThan(10);
  }, 60_000);
});
