import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, writeJudgeFile } from "../helpers/cli.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer, type TestServer } from "../../src/testing/servers/openai-server.js";
import { decide, jsonOf, RUBRIC, startServe, type LiveServer } from "./helpers.js";

const TOKEN = "a-token-of-some-length-42";
let judgeServer: TestServer<unknown>;
let serve: LiveServer;
let judgePath: string;
let dir: string;

const post = (path: string, body: string | Buffer, token: string | null = TOKEN) =>
  fetch(`${serve.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(token === null ? {} : { authorization: `Bearer ${token}` }) }, body });
const json = (value: unknown) => JSON.stringify(value);
const good = { question: "What is the capital of France?", answer: "Paris", response: "Paris, thank you." };

async function expectError(res: Response, status: number, code: string, field?: string) {
  const body = await jsonOf(res);
  expect(res.status).toBe(status);
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(10);
  if (field !== undefined) expect(body.error.field).toBe(field);
  return body.error as { code: string; message: string; field?: string };
}

beforeAll(async () => {
  judgeServer = (await startOpenAIServer({ respond: judgeResponder(decide) })) as TestServer<unknown>;
  dir = tempDir();
  judgePath = writeJudgeFile(dir, judgeServer.url);
  // The token comes from the environment here; --max-body 16 MiB and --max-samples 4096 (below the defaults, 128 MiB and 16,384, to keep the test small).
  serve = await startServe(["--rubric", RUBRIC, "--judge", judgePath, "--port", "0", "--cache", join(dir, "cache.db"), "--max-body", "16mb", "--max-samples", "4096"], { RUBRICATE_TOKEN: TOKEN });
});

afterAll(async () => {
  serve?.child.kill("SIGTERM");
  await serve?.exited;
  await judgeServer?.close();
});

describe("bad input gets a clear 4xx and the server keeps serving", () => {
  it("malformed JSON, empty bodies and non-object bodies are 400s", async () => {
    expect((await expectError(await post("/v1/score", '{"samples": [ {"response": "x"'), 400, "INVALID_JSON")).message).toMatch(/not valid JSON/);
    await expectError(await post("/get_reward", ""), 400, "INVALID_JSON");
    await expectError(await post("/v1/score", "[1, 2]"), 400, "INVALID_REQUEST");
  });

  it("wrong types are 400s naming the field", async () => {
    await expectError(await post("/v1/score", json({ samples: "all of them" })), 400, "INVALID_REQUEST", "samples");
    await expectError(await post("/v1/score", json({ samples: [good, 5] })), 400, "INVALID_REQUEST", "samples.1");
    await expectError(await post("/v1/score", json({ sample: good })), 400, "INVALID_REQUEST", "samples");
    await expectError(await post("/v1/score/one", json({ sample: [good] })), 400, "INVALID_REQUEST", "sample");
    await expectError(await post("/get_reward", json({ query: ["fine", 7] })), 400, "INVALID_REQUEST", "query.1");
    await expectError(await post("/get_reward", json({ query: ["a", "b"], prompts: ["a"] })), 400, "INVALID_REQUEST", "prompts");
    await expectError(await post("/get_reward", json({ query: ["a"], prompts: ["a"], labels: ["x", "y"] })), 400, "INVALID_REQUEST", "labels");
  });

  it("a sample missing an input is scored as no reward with the reason, not a request error", async () => {
    const res = await post("/v1/score", json({ samples: [{ response: "Paris" }, good] }));
    expect(res.status).toBe(200);
    const body = await jsonOf(res);
    expect(body.rewards[0]).toBeNull();
    expect(body.errors[0]).toMatch(/MISSING_INPUT.*question/);
    expect(body.rewards[1]).toBeGreaterThan(0);
  });

  it("an oversized body is a 413", async () => {
    const huge = json({ samples: [{ ...good, response: "x".repeat(17 * 1024 * 1024) }] });
    const error = await expectError(await post("/v1/score", huge), 413, "BODY_TOO_LARGE");
    expect(error.message).toMatch(/16777216 bytes/);
  });

  it("10,000 samples in one request is a 413 that says to split the batch", async () => {
    const samples = Array.from({ length: 10_000 }, (_, i) => ({ ...good, response: `Paris ${i}` }));
    const error = await expectError(await post("/v1/score", json({ samples })), 413, "TOO_MANY_SAMPLES");
    expect(error.message).toMatch(/10000 samples.*4096.*split/);
    await expectError(await post("/get_reward", json({ query: samples.map((s) => s.response) })), 413, "TOO_MANY_SAMPLES");
    // Nothing was scored or paid for.
    const stats = await fetch(`${serve.url}/v1/stats`, { headers: { authorization: `Bearer ${TOKEN}` } }).then(jsonOf);
    expect(stats.samples.scored).toBeLessThan(10);
  });

  it("a missing or wrong token is a 401; /healthz needs none", async () => {
    expect((await expectError(await post("/v1/score", json({ samples: [good] }), null), 401, "UNAUTHORIZED")).message).toMatch(/needs a token/);
    await expectError(await post("/v1/score", json({ samples: [good] }), "wrong"), 401, "UNAUTHORIZED");
    await expectError(await post("/get_reward", json({ query: ["x"] }), TOKEN.replace(/.$/, "3")), 401, "UNAUTHORIZED"); // same length, one character off
    await expectError(await fetch(`${serve.url}/v1/stats`), 401, "UNAUTHORIZED");
    const bad = await fetch(`${serve.url}/v1/stats`, { headers: { authorization: `Basic ${TOKEN}` } });
    expect(bad.headers.get("www-authenticate")).toMatch(/Bearer/);
    expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
  });

  it("unknown routes are 404s and wrong methods 405s", async () => {
    await expectError(await post("/v2/everything", json({})), 404, "NOT_FOUND");
    await expectError(await fetch(`${serve.url}/v1/score`, { headers: { authorization: `Bearer ${TOKEN}` } }), 405, "METHOD_NOT_ALLOWED");
  });

  it("after all of that the server still scores", async () => {
    const res = await post("/v1/score/one", json({ sample: good }));
    expect(res.status).toBe(200);
    expect((await jsonOf(res)).reward).toBeGreaterThan(0);
    const stats = await fetch(`${serve.url}/v1/stats`, { headers: { authorization: `Bearer ${TOKEN}` } }).then(jsonOf);
    expect(stats.errors.http).toMatchObject({ INVALID_JSON: 2, BODY_TOO_LARGE: 1, TOO_MANY_SAMPLES: 2, NOT_FOUND: 1, METHOD_NOT_ALLOWED: 1 });
    expect(stats.errors.http.UNAUTHORIZED).toBeGreaterThanOrEqual(5);
  });
});

describe("starting safely", () => {
  it("refuses a non-loopback host without a token: a usage error, exit 2 in one line (exit 1, a BAD_INPUT line, before)", async () => {
    const attempt = startServe(["--rubric", RUBRIC, "--judge", judgePath, "--port", "0", "--host", "0.0.0.0", "--cache", join(dir, "c2.db")], { RUBRICATE_TOKEN: "" });
    await expect(attempt).rejects.toThrow(/exited \(2\)[\s\S]*rubricate: --host 0\.0\.0\.0 makes the server reachable from other machines; refusing to start without a token/);
  });

  it("a request still scoring at --timeout-ms is a 504, and the server goes on", async () => {
    const slow = (await startOpenAIServer({ respond: judgeResponder(decide), latencyMs: 1500 })) as TestServer<unknown>;
    const d = tempDir();
    const live = await startServe(["--rubric", RUBRIC, "--judge", writeJudgeFile(d, slow.url), "--port", "0", "--cache", join(d, "cache.db"), "--timeout-ms", "300"]);
    try {
      const res = await fetch(`${live.url}/v1/score`, { method: "POST", headers: { "content-type": "application/json" }, body: json({ samples: [good] }) });
      const body = await jsonOf(res);
      expect(res.status).toBe(504);
      expect(body.error.code).toBe("TIMEOUT");
      expect(body.error.message).toMatch(/300 ms/);
      const health = await fetch(`${live.url}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      live.child.kill("SIGTERM");
      await live.exited;
      await slow.close();
    }
  });
});

describe("--no-sample-criteria", () => {
  it("refuses samples that bring their own judge questions, and still scores plain ones", async () => {
    const judge = (await startOpenAIServer({ respond: judgeResponder(decide) })) as TestServer<unknown>;
    const local = tempDir();
    const strict = await startServe(["--rubric", RUBRIC, "--judge", writeJudgeFile(local, judge.url), "--port", "0", "--no-cache", "--no-sample-criteria"], {});
    try {
      const extra = { ...good, criteria: [{ id: "costly", question: "Is this an expensive extra question?" }] };
      const refused = await fetch(`${strict.url}/v1/score`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ samples: [good, extra] }) });
      const body = await jsonOf(refused);
      expect(refused.status).toBe(400);
      expect(body.error).toMatchObject({ code: "SAMPLE_CRITERIA_REFUSED", field: "samples.1.criteria" });
      expect(judge.requests).toHaveLength(0);
      const ok = await fetch(`${strict.url}/v1/score`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ samples: [good] }) });
      expect(ok.status).toBe(200);
      expect((await jsonOf(ok)).rewards).toHaveLength(1);
    } finally {
      strict.child.kill("SIGTERM");
      await strict.exited;
      await judge.close();
    }
  });
});
