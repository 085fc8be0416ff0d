import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { queueConnection } from "../../src/queue/connection.js";
import { chunkCacheUrl, chunkId, fingerprintOf, pathInside, portablePath, runKeyOf, workerCachePath, workerCacheUrl, type ScoreSpec } from "../../src/queue/score-job.js";
import { parseRubric } from "../../src/rubric/load.js";
import { tempDir } from "../helpers/cli.js";

describe("queueConnection", () => {
  it("reads host, port, database and credentials, and keeps the password out of its label", () => {
    const c = queueConnection("redis://worker:s3cret@10.0.0.5:6380/3");
    expect(c).toMatchObject({ host: "10.0.0.5", port: 6380, db: 3, username: "worker", password: "s3cret", maxRetriesPerRequest: null });
    expect(c.label).not.toContain("s3cret");
    expect(queueConnection("redis://localhost")).toMatchObject({ host: "localhost", port: 6379, db: 0 });
    expect(queueConnection("rediss://h:1/0").tls).toEqual({});
  });

  it("refuses what is not a redis URL, saying what it takes", () => {
    expect(() => queueConnection("10.0.0.5:6379")).toThrow(/--queue takes redis:\/\/host:port\/db/);
    expect(() => queueConnection("http://h/0")).toThrow(/redis:\/\//);
    expect(() => queueConnection("redis://h/x")).toThrow(/database .* is not a number/);
  });
});

describe("what a chunk may name", () => {
  const root = tempDir("rubricate-queue-paths-");
  it("a path inside the worker's folder resolves there; one outside is refused", () => {
    expect(pathInside(root, "rubrics/r.yaml", "rubric")).toBe(join(root, "rubrics/r.yaml"));
    expect(() => pathInside(root, "../etc/passwd", "rubric")).toThrow(/outside the worker's folder/);
    expect(() => pathInside(root, "/etc/passwd", "checks module")).toThrow(/outside the worker's folder/);
    expect(() => pathInside(root, "a/../../x", "judge file")).toThrow(/outside/);
  });

  it("the coordinator refuses files outside its folder: workers could not find them", () => {
    expect(portablePath(join(root, "r.yaml"), root)).toBe("r.yaml");
    expect(() => portablePath("/etc/hosts", root)).toThrow(/outside the working folder/);
  });
});

describe("fingerprints and ids", () => {
  const dir = tempDir("rubricate-queue-fp-");
  const rubric = (points: number, filename: string) => parseRubric(`id: r\ncriteria:\n  - { id: a, check: { contains: x }, points: ${points} }\n`, { filename });
  const spec = (fingerprint: string): ScoreSpec => ({ rubric: "r.yaml", origin: "rubric", cache: null, errors: "null", fingerprint });

  it("the same rubric read by another path has the same fingerprint; an edited one does not", () => {
    expect(fingerprintOf(rubric(1, "r.yaml"), undefined, undefined)).toBe(fingerprintOf(rubric(1, "/abs/elsewhere/r.yaml"), undefined, undefined));
    expect(fingerprintOf(rubric(2, "r.yaml"), undefined, undefined)).not.toBe(fingerprintOf(rubric(1, "r.yaml"), undefined, undefined));
  });

  it("the judge file's and checks file's content count", () => {
    writeFileSync(join(dir, "j.yaml"), "provider: openai-compatible\nbase_url: http://127.0.0.1:9/v1\nmodel: a\n");
    const before = fingerprintOf(rubric(1, "r.yaml"), join(dir, "j.yaml"), undefined);
    writeFileSync(join(dir, "j.yaml"), "provider: openai-compatible\nbase_url: http://127.0.0.1:9/v1\nmodel: b\n");
    expect(fingerprintOf(rubric(1, "r.yaml"), join(dir, "j.yaml"), undefined)).not.toBe(before);
  });

  it("a run's chunk ids are stable for the same run and input, and differ when either changes", () => {
    const key = runKeyOf(spec("f".repeat(64)), "/in.jsonl|100|1", 50);
    expect(runKeyOf(spec("f".repeat(64)), "/in.jsonl|100|1", 50)).toBe(key);
    expect(runKeyOf(spec("f".repeat(64)), "/in.jsonl|101|2", 50)).not.toBe(key);
    expect(runKeyOf(spec("f".repeat(64)), "/in.jsonl|100|1", 10)).not.toBe(key);
    expect(chunkId("score", "f".repeat(64), key, 3)).not.toContain(":"); // BullMQ refuses ids with ":"
    expect(chunkId("score", "f".repeat(64), key, 3)).not.toBe(chunkId("score", "f".repeat(64), key, 4));
  });
});

describe("the shared cache a chunk names", () => {
  it("leaves out the queue's own credentials (chunks are stored in Redis); a worker puts its own back", () => {
    const queue = "redis://:s3cret@10.0.0.5:6379/0";
    const carried = chunkCacheUrl(queue, queue)!;
    expect(carried).not.toContain("s3cret");
    expect(workerCacheUrl(carried, queue)).toBe(queue);
    // The queue's own database: the worker's --queue URL, whatever name it gives the server.
    expect(workerCacheUrl(carried, "redis://:s3cret@redis.internal:6379/0")).toBe("redis://:s3cret@redis.internal:6379/0");
    // Another database with the queue's credentials: those of the worker's --queue.
    const other = chunkCacheUrl("redis://:s3cret@10.0.0.5/3", queue)!;
    expect(other).not.toContain("s3cret");
    expect(workerCacheUrl(other, queue)).toBe("redis://:s3cret@10.0.0.5/3");
    // Another password stays (workers could not know it); no password, no cache, or a file, as given.
    expect(chunkCacheUrl("redis://:other@10.0.0.6:6379/0", queue)).toBe("redis://:other@10.0.0.6:6379/0");
    expect(chunkCacheUrl("redis://10.0.0.6:6379/0", queue)).toBe("redis://10.0.0.6:6379/0");
    expect(workerCacheUrl("redis://10.0.0.6:6379/0", queue)).toBe("redis://10.0.0.6:6379/0");
    expect(chunkCacheUrl(null, queue)).toBeNull();
    expect(workerCacheUrl(".rubricate/cache.db", queue)).toBe(".rubricate/cache.db");
  });
});

describe("a SQLite cache a chunk names", () => {
  it("opens only inside the worker's folder; a Redis URL or none passes as given", () => {
    const root = tempDir("rubricate-cache-path-");
    expect(workerCachePath("cache/answers.db", root)).toBe(join(root, "cache/answers.db"));
    expect(() => workerCachePath("../elsewhere/cache.db", root)).toThrow(/outside the worker's folder/);
    expect(() => workerCachePath("/tmp/cache.db", root)).toThrow(/outside the worker's folder/);
    expect(workerCachePath("redis://10.0.0.5:6379/1", root)).toBe("redis://10.0.0.5:6379/1");
    expect(workerCachePath(null, root)).toBeNull();
    // The coordinator sends its own by the path workers open, and refuses one outside its folder.
    expect(chunkCacheUrl("answers.db", "redis://10.0.0.5:6379/0")).toBe("answers.db");
    expect(() => chunkCacheUrl("../answers.db", "redis://10.0.0.5:6379/0")).toThrow(/outside the working folder/);
  });
});
