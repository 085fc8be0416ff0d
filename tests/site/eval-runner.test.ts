/**
 * The Evaluate runner's limits, without a queue: one eval per version at a time (a visitor cannot
 * queue the same paid work again and again), and a coordinator that fails is reported, not hidden.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadModelsFile, QueueEvalRunner } from "../../src/site/queue-evals.js";
import { ResultStore } from "../../src/site/store.js";

const work = mkdtempSync(join(tmpdir(), "rubricate-eval-runner-"));
writeFileSync(join(work, "models.yaml"), "models:\n  mini: openai:gpt-4.1-mini\ntasks: 2\n");
const store = new ResultStore(":memory:");
afterAll(() => {
  store.close();
  rmSync(work, { recursive: true, force: true });
});

/** A runner whose "coordinator" is a node one-liner (`script`) instead of `rubricate eval`. */
const runnerWith = (script: string) =>
  new QueueEvalRunner({ models: loadModelsFile(join(work, "models.yaml")), queue: "redis://127.0.0.1:1/0", store, cli: [process.execPath, "-e", script, "--"], workDir: join(work, "evals"), rubricateVersion: "0.1.0" });

const request = { env: "@acme/times-env", version: "1.0.0", integrity: "sha512-x", models: ["mini"], registry: "http://127.0.0.1:1/", user: "alice" };

describe("QueueEvalRunner", () => {
  it("refuses a second eval of a version while one is under way, and takes another version", async () => {
    const runner = runnerWith("setTimeout(() => {}, 3000)");
    const id = await runner.start(request);
    expect(runner.progress(id)).toMatchObject({ state: "running", done: 0, total: 2, models: ["mini"] });
    expect(runner.busy(request)).toContain(id);
    await expect(runner.start(request)).rejects.toMatchObject({ code: "EVAL_BUSY" });
    expect(runner.busy({ env: request.env, version: "1.1.0" })).toBeUndefined();
  });

  it("a coordinator that exits non-zero fails the eval with its last line, and frees the version", async () => {
    const runner = runnerWith('process.stderr.write("rubricate: PACKAGE_NOT_FOUND: no such version\\n"); process.exit(1)');
    const id = await runner.start(request);
    await expect.poll(() => runner.progress(id)?.state, { timeout: 10_000 }).toBe("failed");
    expect(runner.progress(id)?.error).toBe("the eval of mini ended with code 1: rubricate: PACKAGE_NOT_FOUND: no such version");
    expect(runner.busy(request)).toBeUndefined();
    expect(store.forEnv(request.env)).toEqual([]);
  });
});
