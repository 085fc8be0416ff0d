/**
 * `score --batch` runs in a heap-capped worker thread (src/cli/worker.ts): what the user sees of it
 * must be what a run in the process gives (results, exit codes, Ctrl-C), and a cap too small for a
 * run must cost a second attempt, never a second payment.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { asksForBatch, DEFAULT_BATCH_HEAP_MB, heapCaps, runInCappedWorker, setCliEntry } from "../../src/cli/worker.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startBatchServer, type BatchServer, type BatchServerOptions } from "../servers/batch-server.js";
import { runCli, spawnCli, tempDir, writeJsonl } from "../helpers/cli.js";

const servers: BatchServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const samples = Array.from({ length: 20 }, (_, i) => ({ id: i, response: i % 2 === 0 ? "Paris is the capital." : "London." }));
const rewards = samples.map((s) => (s.response.includes("Paris") ? 1 : 0));

async function setUp(options: { judgeExtra?: string; server?: Partial<BatchServerOptions> } = {}) {
  const s = await startBatchServer({ respond: judgeResponder((_, view) => view.sample.includes("Paris")), ...options.server });
  servers.push(s);
  const dir = tempDir();
  const input = writeJsonl(dir, "samples.jsonl", samples);
  const rubric = join(dir, "rubric.yaml");
  writeFileSync(rubric, "id: w\ninputs: [response]\ncriteria:\n  - { id: paris, question: Does it name Paris?, points: 1 }\n");
  const judge = join(dir, "judge.yaml");
  writeFileSync(judge, `provider: openai\nmodel: gpt-test\nbase_url: ${s.url}/v1\napi_key_env: RUBRICATE_TEST_KEY\n${options.judgeExtra ?? ""}`);
  const args = (...extra: string[]) => ["score", rubric, input, "--judge", judge, "--cache", join(dir, "cache.db"), "--poll-ms", "5", ...extra];
  const paidOnce = () => {
    const ids = s.jobs.flatMap((j) => j.items.map((i) => i.customId));
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    expect(s.calls["POST /v1/chat/completions"]).toBeUndefined();
  };
  return { s, dir, args, paidOnce };
}

/** A cap the run outgrows before its first result, whose next cap (four times it) has room to spare. */
const SMALL_CAP = "8";
const env = (extra: Record<string, string> = {}) => ({ env: { RUBRICATE_TEST_KEY: "sk-worker-test", ...extra } });
const rewardsOf = (text: string) => text.trim().split("\n").map((l) => (JSON.parse(l) as { reward: number }).reward);

describe("heap caps", () => {
  it("default to 128 MB, then four times that, then node's own limit", () => {
    expect(heapCaps({})).toEqual([DEFAULT_BATCH_HEAP_MB, DEFAULT_BATCH_HEAP_MB * 4, undefined]);
    expect(DEFAULT_BATCH_HEAP_MB).toBe(128);
    expect(heapCaps({ RUBRICATE_BATCH_HEAP_MB: "64" })).toEqual([64, 256, undefined]);
    expect(heapCaps({ RUBRICATE_BATCH_HEAP_MB: "off" })).toEqual([undefined]);
    expect(() => heapCaps({ RUBRICATE_BATCH_HEAP_MB: "lots" })).toThrow(/whole number of megabytes/);
    expect(() => heapCaps({ RUBRICATE_BATCH_HEAP_MB: "-3" })).toThrow(/RUBRICATE_BATCH_HEAP_MB/);
  });
});

describe("runInCappedWorker: a run that outgrows its cap", () => {
  const hungry = new URL("./fixtures/heap-hungry.mjs", import.meta.url).href;
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it("goes again under each larger cap in turn and ends with the exit code of the attempt that finished", async () => {
    vi.stubEnv("RUBRICATE_BATCH_HEAP_MB", "16");
    setCliEntry(hungry);
    const log: string[] = [];
    const spills = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`rubricate-deferred-${process.pid}-`));
    const argv = process.argv;
    process.argv = [argv[0], argv[1], "--spill"];
    try {
      // 16 MB and 64 MB are under the stand-in's threshold; node's default limit is over it.
      expect(await runInCappedWorker("test run", (line) => log.push(line))).toBe(5);
    } finally {
      process.argv = argv;
    }
    // Each dead attempt's spill folder was removed; the one that finished is its own to clean.
    expect(spills()).toHaveLength(1);
    rmSync(join(tmpdir(), spills()[0]), { recursive: true });
    expect(log).toEqual([
      expect.stringContaining("the test run ran out of its 16 MB heap; going on with 64 MB"),
      expect.stringContaining("the test run ran out of its 64 MB heap; going on with node's default heap"),
    ]);
  });

  it("is not repeated once it wrote to stdout (the lines would be written twice): it fails and says how to go on", async () => {
    vi.stubEnv("RUBRICATE_BATCH_HEAP_MB", "16");
    setCliEntry(hungry);
    const argv = process.argv;
    process.argv = [argv[0], argv[1], "--write-first"];
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const log: string[] = [];
    try {
      expect(await runInCappedWorker("test run", (line) => log.push(line))).toBe(1);
    } finally {
      process.argv = argv;
    }
    expect(log).toEqual([]);
    expect(stdout.mock.calls.map(([chunk]) => String(chunk)).join("")).toBe("a result line\n");
    expect(stderr.mock.calls.map(([chunk]) => String(chunk)).join("")).toMatch(/ran out of its 16 MB heap; every answer it collected is in the cache: run it again with -o <file> \(or with RUBRICATE_BATCH_HEAP_MB=64\)/);
  });
});

describe("asksForBatch: batch mode read from the command line before any command is loaded", () => {
  const dir = tempDir();
  writeFileSync(join(dir, "batch.yaml"), "provider: openai\nmodel: m\nmode: batch\n");
  writeFileSync(join(dir, "live.yaml"), "provider: openai\nmodel: m\nmode: batched\n");
  writeFileSync(join(dir, "names-batch.yaml"), "id: r\njudge: batch.yaml\ncriteria: []\n");
  writeFileSync(join(dir, "names-live.yaml"), "id: r\njudge: live.yaml\ncriteria: []\n");
  writeFileSync(join(dir, "samples.jsonl"), "mode: batch\n");

  it("sees --batch, a --judge file with mode: batch, and the judge file the rubric names", () => {
    expect(asksForBatch(["score", "r.yaml", "s.jsonl", "--batch"], dir)).toBe(true);
    expect(asksForBatch(["score", "r.yaml", "s.jsonl", "--judge", "batch.yaml"], dir)).toBe(true);
    expect(asksForBatch(["score", "r.yaml", "s.jsonl", "-j", "batch.yaml"], dir)).toBe(true);
    expect(asksForBatch(["score", "r.yaml", "s.jsonl", "--judge=batch.yaml"], dir)).toBe(true);
    expect(asksForBatch(["score", "names-batch.yaml", "s.jsonl"], dir)).toBe(true);
  });

  it("does not see it in live judges, missing files, packaged judge names or files that are not YAML", () => {
    expect(asksForBatch(["score", "names-live.yaml", "s.jsonl"], dir)).toBe(false);
    expect(asksForBatch(["score", "names-batch.yaml", "s.jsonl", "--judge", "live.yaml"], dir)).toBe(false);
    expect(asksForBatch(["score", "missing.yaml", "s.jsonl"], dir)).toBe(false);
    expect(asksForBatch(["score", "names-live.yaml", "s.jsonl", "--judge", "openai-small"], dir)).toBe(false);
    // An option's value before the rubric is not read as the rubric, even when it parses as YAML.
    expect(asksForBatch(["score", "samples.jsonl", "names-live.yaml", "s.jsonl"], dir)).toBe(false);
  });
});

describe("score --batch in a heap-capped worker", () => {
  it("writes the same results to stdout and to -o as a run in the process, with the same exit code", async () => {
    const { args, dir, paidOnce } = await setUp();
    const toStdout = await runCli(args("--batch", "-q"), env());
    expect(toStdout.code).toBe(0);
    expect(rewardsOf(toStdout.stdout)).toEqual(rewards);
    paidOnce();
    const inProcess = await runCli(args("--batch", "-q", "-o", join(dir, "here.jsonl")), env({ RUBRICATE_BATCH_HEAP_MB: "off" }));
    expect(inProcess.code).toBe(0);
    expect(rewardsOf(readFileSync(join(dir, "here.jsonl"), "utf8"))).toEqual(rewards);
  });

  it("a cap too small for the run ends the worker, not the process: it goes again with a larger cap and pays nothing twice", async () => {
    const { args, paidOnce } = await setUp();
    // 8 MB is about half of what this run takes at its peak (16 MB runs out now and then, late
    // enough to have written a result): the first attempt dies early, the 32 MB one has room.
    const result = await runCli(args("--batch"), env({ RUBRICATE_BATCH_HEAP_MB: SMALL_CAP }));
    expect(result.stderr).toContain("batch: the batch run ran out of its 8 MB heap; going on with 32 MB");
    expect(result.code).toBe(0);
    expect(rewardsOf(result.stdout)).toEqual(rewards);
    paidOnce();
  });

  it("a heap limit the user set is kept: no worker, so no cap of ours", async () => {
    const { args, paidOnce } = await setUp();
    const result = await runCli(args("--batch"), env({ RUBRICATE_BATCH_HEAP_MB: "4", NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --max-old-space-size=512` }));
    expect(result.stderr).not.toContain("ran out of");
    expect(result.code).toBe(0);
    expect(rewardsOf(result.stdout)).toEqual(rewards);
    paidOnce();
  });

  it("batch mode a judge file asks for (mode: batch, no --batch flag) runs in the worker too", async () => {
    const { args, paidOnce } = await setUp({ judgeExtra: "mode: batch\n" });
    const result = await runCli(args(), env({ RUBRICATE_BATCH_HEAP_MB: SMALL_CAP }));
    expect(result.stderr).toContain("ran out of its 8 MB heap");
    expect(result.code).toBe(0);
    expect(rewardsOf(result.stdout)).toEqual(rewards);
    paidOnce();
  });

  it("batch mode from a judge inherited through extends (which the command line does not show) still runs in the worker", async () => {
    const { args, dir, paidOnce } = await setUp({ judgeExtra: "mode: batch\n" });
    const [, rubric, input, , judge, ...rest] = args();
    writeFileSync(join(dir, "base.yaml"), `id: base\njudge: ${judge}\ninputs: [response]\ncriteria:\n  - { id: paris, question: Does it name Paris?, points: 1 }\n`);
    writeFileSync(rubric, "id: child\nextends: base.yaml\ncriteria: []\n");
    const result = await runCli(["score", rubric, input, ...rest], env({ RUBRICATE_BATCH_HEAP_MB: SMALL_CAP }));
    expect(result.stderr).toContain("ran out of its 8 MB heap");
    expect(result.code).toBe(0);
    expect(rewardsOf(result.stdout)).toEqual(rewards);
    paidOnce();
  });

  it("Ctrl-C reaches the worker: the create in flight finishes, the run exits 130, and the next run collects the batch", async () => {
    const { s, args, dir } = await setUp({ server: { createDelayMs: 500 } });
    const out = join(dir, "out.jsonl");
    const child = spawnCli(args("--batch", "-o", out), env());
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
    // The provider has the batch (the create is still on its way back): now Ctrl-C.
    while (s.jobs.length < 1) await new Promise((r) => setTimeout(r, 5));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toContain("SIGINT: stopping");
    expect(s.jobs).toHaveLength(1);
    s.setOptions({ createDelayMs: 0 });
    const again = await runCli(args("--batch", "-o", out), env());
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("1 resumed");
    expect(rewardsOf(readFileSync(out, "utf8"))).toEqual(rewards);
    expect(s.jobs).toHaveLength(1);
  });

  it("SIGTERM ends a worker stuck before the run installed its own handling (a hanging --checks module), instead of going unheard", async () => {
    const { args, dir } = await setUp();
    const checks = join(dir, "stuck-checks.mjs");
    const loaded = join(dir, "checks-loading");
    // Says it is loading (in the worker), then keeps the event loop busy forever: nothing but a signal ends this run.
    writeFileSync(checks, `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(loaded)}, "");\nsetInterval(() => {}, 1000);\nawait new Promise(() => {});\nexport const checks = {};\n`);
    const child = spawnCli(args("--batch", "--checks", checks), env());
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
    while (!existsSync(loaded)) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGTERM");
    expect(await exited).toBe(130);
    expect(stderr).not.toContain("unexpected error");
  });

  it("--batch with a Redis cache is refused in one line with exit 2 (batch jobs are recorded in a local file), before anything is sent", async () => {
    const { s, args } = await setUp();
    const at = args().indexOf("--cache");
    const withRedis = args("--batch");
    withRedis[at + 1] = "redis://:secret@127.0.0.1:1/0";
    const result = await runCli(withRedis, env());
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/batch mode keeps its job records in a local cache file, not in Redis .*--cache <file>/);
    expect(result.stderr).not.toContain("secret");
    expect(s.calls).toEqual({});
  });

  it("a judge file's mode: batch with a Redis cache is refused the same way (the judge's Redis connection is closed, the run ends)", async () => {
    const { s, args } = await setUp({ judgeExtra: "mode: batch\n" });
    const at = args().indexOf("--cache");
    const withRedis = args();
    withRedis[at + 1] = "redis://127.0.0.1:1/0";
    const result = await runCli(withRedis, env());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/batch mode keeps its job records in a local cache file/);
    expect(s.calls).toEqual({});
  });
});
