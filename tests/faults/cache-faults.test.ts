import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { asUnprivileged, cacheRows, checkResults, integrity, makeJob, readResults, startRun, truth } from "./harness.js";

const servers: TestServer<unknown>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function judgeServer() {
  const server = await startOpenAIServer({ respond: judgeResponder((q, view) => truth(Number(/Sample #(\d+)/.exec(view.sample)![1]), q.id)), recordBodies: false });
  servers.push(server as TestServer<unknown>);
  return server;
}

/** A first run (as us) that pays for and caches the job's first `count` samples. */
async function cacheFirst(job: ReturnType<typeof makeJob>, server: Awaited<ReturnType<typeof judgeServer>>, count: number): Promise<void> {
  const seedSamples = job.samples.replace(".jsonl", "-first.jsonl");
  writeFileSync(seedSamples, readFileSync(job.samples, "utf8").split("\n").slice(0, count).join("\n") + "\n");
  const first = await startRun(job.args.map((a) => (a === job.samples ? seedSamples : a))).done;
  expect(first.code, first.stderr).toBe(0);
  expect(server.stats.requests).toBe(count);
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => i);
const DISK_FULL = fileURLToPath(new URL("./disk-full.ts", import.meta.url));

describe("cache faults", () => {
  it("a read-only cache file: cached answers are reused, new ones kept in memory, the file untouched, exit 0", async () => {
    const server = await judgeServer();
    const n = 30;
    const job = makeJob(server.url, n);
    await cacheFirst(job, server, 20);
    chmodSync(job.cache, 0o444);
    const before = readFileSync(job.cache);

    const user = asUnprivileged();
    const run = await startRun(job.args, { user }).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/CACHE.*read-only/);
    // Only the 10 new samples were paid for; the 20 cached were read from the file.
    expect(server.stats.requests).toBe(30);
    expect(readFileSync(job.cache).equals(before)).toBe(true);
    expect(cacheRows(job.cache)).toBe(20);
    expect(integrity(job.cache)).toBe("ok");
    const check = checkResults(readResults(job.out), ids(n));
    expect([check.invented, check.unnamed, check.scored]).toEqual([[], [], n]);
    console.log(`faults (read-only cache${user ? ", run as nobody" : ""}): ${n} samples, 20 from the read-only file, ${server.stats.requests - 20} paid, file unchanged, ${check.verdicts} verdicts checked, 0 invented, exit 0`);
  }, 60_000);

  it("a cache in a read-only folder (WAL needs -shm there): cached answers are still reused, and the run says so", async () => {
    const server = await judgeServer();
    const n = 30;
    const job = makeJob(server.url, n);
    await cacheFirst(job, server, 20);
    // The cache alone in a folder nobody may write; the results go elsewhere.
    const roDir = join(job.dir, "ro");
    mkdirSync(roDir);
    const cache = join(roDir, "cache.db");
    copyFileSync(job.cache, cache);
    chmodSync(cache, 0o444);
    chmodSync(roDir, 0o555);
    const before = readFileSync(cache);
    const user = asUnprivileged();
    try {
      const run = await startRun(job.args.map((a) => (a === job.cache ? cache : a)), { user }).done;
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/CACHE.*cannot write.*-shm.*reading a snapshot/);
      // 20 answers read from the file, only the 10 new samples paid (before: all 30 again).
      expect(server.stats.requests).toBe(30);
      expect(readFileSync(cache).equals(before)).toBe(true);
      const check = checkResults(readResults(job.out), ids(n));
      expect([check.invented, check.unnamed, check.scored]).toEqual([[], [], n]);
      console.log(`faults (cache in a read-only folder${user ? ", run as nobody" : ""}): ${n} samples, 20 from a snapshot of the file, ${server.stats.requests - 20} paid, file unchanged, 0 invented, exit 0`);
    } finally {
      chmodSync(roDir, 0o755);
    }
  }, 60_000);

  it("a full disk: the run finishes with every answer, the cache keeps what it could write, a re-run pays only the rest", async () => {
    const server = await judgeServer();
    const n = 30;
    const ok = 12;
    const job = makeJob(server.url, n, { max_concurrency: 4 });
    const run = await startRun(job.args, { preload: [DISK_FULL], env: { RUBRICATE_FAULT_WRITES_OK: String(ok) } }).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/CACHE.*(disk is full|SQLITE_FULL)/);
    // Reported once, not once per failed write.
    expect(run.stderr.match(/disk is full/g)).toHaveLength(1);
    expect(server.stats.requests).toBe(n);
    expect(cacheRows(job.cache)).toBe(ok);
    expect(integrity(job.cache)).toBe("ok");
    let check = checkResults(readResults(job.out), ids(n));
    expect([check.invented, check.unnamed, check.scored]).toEqual([[], [], n]);

    const again = await startRun(job.args).done;
    expect(again.code, again.stderr).toBe(0);
    expect(server.stats.requests).toBe(n + (n - ok));
    expect(cacheRows(job.cache)).toBe(n);
    check = checkResults(readResults(job.out), ids(n));
    expect([check.invented, check.unnamed, check.scored]).toEqual([[], [], n]);
    console.log(`faults (disk full after ${ok} writes): ${n} samples scored, ${n} paid, ${ok} stored, 1 warning; re-run paid ${n - ok} more, ${check.verdicts} verdicts checked, 0 invented, integrity ok`);
  }, 60_000);

  it("a corrupted cache file: exit 1 naming the file before any call, the file left as it was", async () => {
    const server = await judgeServer();
    const job = makeJob(server.url, 10);
    writeFileSync(job.cache, Buffer.concat([Buffer.from("this is not a database\n"), Buffer.alloc(8192, 0x5a)]));
    const before = readFileSync(job.cache);
    const run = await startRun(job.args).done;
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("CACHE");
    expect(run.stderr).toContain(job.cache);
    expect(server.stats.requests).toBe(0);
    expect(readFileSync(job.cache).equals(before)).toBe(true);
    console.log("faults (corrupted cache): exit 1 with a CACHE error naming the file, 0 requests, file unchanged");
  }, 60_000);

  it("a cache with a damaged page: unreadable answers are paid again, never invented", async () => {
    const server = await judgeServer();
    const n = 40;
    const job = makeJob(server.url, n);
    expect((await startRun(job.args).done).code).toBe(0);
    const damaged = join(job.dir, "damaged.db");
    copyFileSync(job.cache, damaged);
    const bytes = readFileSync(damaged);
    const pageSize = bytes.readUInt16BE(16) || 65536;
    // Overwrite the last page (table data) with noise; the header stays valid, so the file opens.
    bytes.fill(0xa5, bytes.length - pageSize);
    writeFileSync(damaged, bytes);
    const paid = server.stats.requests;
    const run = await startRun(job.args.map((a) => (a === job.cache ? damaged : a))).done;
    expect([0, 3]).toContain(run.code);
    expect(run.stderr).toContain("CACHE");
    const check = checkResults(readResults(job.out), ids(n));
    expect(check.invented).toEqual([]);
    expect(check.unnamed).toEqual([]);
    expect(run.code).toBe(check.errored > 0 ? 3 : 0);
    console.log(`faults (damaged page): ${n} samples, ${server.stats.requests - paid} paid again, ${check.scored} scored, ${check.errored} errored, ${check.verdicts} verdicts checked, 0 invented, exit ${run.code}`);
  }, 60_000);
});
