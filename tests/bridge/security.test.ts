/**
 * What `serve` refuses (issue 16, items 6, 7 and 11): clients naming files or server code,
 * requests a web page can make, and clients that hold sockets without finishing a request.
 */
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRewardServer, type RewardServer, type RewardServerOptions } from "../../src/bridge/server.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import { ROOT, tempDir } from "../helpers/cli.js";

const rubric = loadRubricSync(join(ROOT, "tests/bridge/fixtures/checks.yaml"));
const good = { question: "Capital of France?", answer: "Paris", response: "Paris." };
const running: RewardServer[] = [];
const sockets: Socket[] = [];

async function start(options: Partial<RewardServerOptions> = {}) {
  const srv = createRewardServer({ rubric, ...options });
  running.push(srv);
  const url = new URL(await srv.listen(0));
  return { srv, url, port: Number(url.port) };
}

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/** A raw HTTP request (node:http, so Host, Origin and Content-Type are exactly what we say). */
function send(port: number, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: options.method ?? "POST", headers: { host: `127.0.0.1:${port}`, "content-type": "application/json", ...options.headers } }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, headers: res.headers }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

const raw = (port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => resolve(s));
    s.resume(); // read what the server sends, so its close is seen
    s.on("error", () => undefined);
    s.once("error", reject);
    sockets.push(s);
  });
const closedWithin = (s: Socket, ms: number) =>
  new Promise<boolean>((resolve) => {
    if (s.destroyed || s.readableEnded) return resolve(true);
    const t = setTimeout(() => resolve(false), ms);
    s.once("close", () => (clearTimeout(t), resolve(true)));
  });

describe("clients may not name files or server code (item 6)", () => {
  it("a sample's custom check (sql-result-matches over a server file) is refused before anything runs", async () => {
    const dir = tempDir();
    const secretDb = join(dir, "secret.sql");
    writeFileSync(secretDb, "CREATE TABLE secret (v TEXT); INSERT INTO secret VALUES ('s3cret-row');");
    const { srv, port } = await start();
    const probe = { ...good, response: "SELECT v FROM secret", criteria: [{ id: "leak", check: { custom: "sql-result-matches", args: { database: secretDb, reference: "SELECT 's3cret-row'" } } }] };
    const res = await send(port, "/v1/score", { body: JSON.stringify({ samples: [probe] }) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "SAMPLE_CHECK_REFUSED", field: "samples.0.criteria.0.check" });
    expect(JSON.stringify(res.body)).not.toContain("s3cret");
    expect(srv.stats().samples.scored).toBe(0);
  });

  it("client-added judge questions are off by default and on with the operator's flag; pure checks are allowed", async () => {
    const { port } = await start();
    const asking = { ...good, criteria: [{ id: "costly", question: "Is this worth an extra paid call?" }] };
    const refused = await send(port, "/v1/score", { body: JSON.stringify({ samples: [asking] }) });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "SAMPLE_QUESTIONS_REFUSED" });
    expect(refused.body.error.message).toMatch(/--allow-sample-questions/);
    const pure = { ...good, criteria: [{ id: "has-period", check: { regex: "\\.$" }, points: 1 }] };
    const ok = await send(port, "/v1/score", { body: JSON.stringify({ samples: [pure] }) });
    expect(ok.status).toBe(200);
    expect(ok.body.results[0].verdicts.map((v: { id: string }) => v.id)).toContain("has-period");
    const open = await start({ sampleCriteria: "questions" });
    const allowed = await send(open.port, "/v1/score", { body: JSON.stringify({ samples: [asking] }) });
    expect(allowed.status).toBe(200); // accepted; this server has no judge, so the question is that sample's error, not a refusal
    expect(allowed.body.errors[0]).toMatch(/NO_JUDGE/);
  });
});

describe("a deeply nested sample (issue 27, Low)", () => {
  it("is a 400 naming the sample, not a judge outage", async () => {
    const { srv, port } = await start();
    const deep = `${"[".repeat(50_000)}${"]".repeat(50_000)}`;
    const res = await send(port, "/v1/score", { body: `{"samples":[${JSON.stringify(good)},{"question":"q","answer":"a","response":"r","extra":${deep}}]}` });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "SAMPLE_TOO_DEEP", field: "samples.1" });
    expect(srv.stats().samples.scored).toBe(0);
  });

  it("a /get_reward label that is no object is measured before it becomes JSON text: a 400 naming it (a 500 stack overflow before)", async () => {
    const { srv, port } = await start();
    const deep = `${"[".repeat(20_000)}"Paris"${"]".repeat(20_000)}`;
    const res = await send(port, "/get_reward", { body: `{"query":["q Paris","q Paris"],"prompts":["q","q"],"labels":["Paris",${deep}]}` });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "SAMPLE_TOO_DEEP", field: "labels.1" });
    expect(srv.stats().samples.scored).toBe(0);
  });
});

describe("a /get_reward label cannot set the sample's prototype", () => {
  it("its own __proto__ key is left out: an input it carries is missing, not inherited (the row was scored with it before)", async () => {
    const { port } = await start();
    const res = await send(port, "/get_reward", { body: '{"query":["q Paris"],"prompts":["q "],"labels":[{"__proto__":{"answer":"Paris"}}]}' });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([expect.stringMatching(/MISSING_INPUT.*"answer"/)]);
    expect(res.body.extra_logs.rubricate_error).toEqual([1]);
  });
});

/** Sends `text` as is over a new socket; resolves with all the server wrote before it closed. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => s.write(text));
    sockets.push(s);
    let answer = "";
    s.on("data", (d) => (answer += d));
    s.on("error", reject);
    s.on("close", () => resolve(answer));
  });
}

/** The status and JSON body of a raw HTTP answer. */
function parseAnswer(answer: string): { status: number; body: any } {
  const [head, body] = answer.split("\r\n\r\n");
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: JSON.parse(body) };
}

describe("a request the server cannot parse does not end it", () => {
  it("a request target that is no URL (//[, http://a:99999/x) is a JSON 400, and the next request is served (the process exited before)", async () => {
    const { port } = await start({ token: "s3cret" });
    for (const target of ["//[", "http://[", "//a:99999", "http://a:99999/x"]) {
      const answer = parseAnswer(await rawExchange(port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
      expect(answer.status, target).toBe(400);
      expect(answer.body.error, target).toMatchObject({ code: "INVALID_REQUEST" });
    }
    const scored = await send(port, "/v1/score", { headers: { authorization: "Bearer s3cret" }, body: JSON.stringify({ samples: [good] }) });
    expect(scored.status).toBe(200);
    expect(scored.body.rewards).toEqual([1]);
  });

  it("what node:http's parser refuses (not HTTP, headers past the limit, a request too slow) is answered with a JSON error body, not an empty one", async () => {
    const { port } = await start({ token: "s3cret", headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const cases: [string, string, number, string][] = [
      ["a request line that is not HTTP", "HELLO\r\n\r\n", 400, "INVALID_REQUEST"],
      ["a header without a colon", `GET /info HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nno colon here\r\n\r\n`, 400, "INVALID_REQUEST"],
      ["headers past node's 16 KB", `GET /info HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431, "INVALID_REQUEST"],
      ["a body that never finishes", `POST /v1/score HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer s3cret\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"samples": [`, 408, "TIMEOUT"],
    ];
    for (const [what, text, status, code] of cases) {
      const answer = parseAnswer(await rawExchange(port, text));
      expect(answer.status, what).toBe(status);
      expect(answer.body.error, what).toEqual({ code, message: expect.any(String) });
    }
    expect((await send(port, "/v1/score", { headers: { authorization: "Bearer s3cret" }, body: JSON.stringify({ samples: [good] }) })).status).toBe(200);
  });

  it("a throw outside the dispatch's own handling (here the embedder's dynamicRoutes) is a JSON 500 without a stack, logged, and the server goes on", async () => {
    const logged: string[] = [];
    const { port } = await start({
      log: (line) => logged.push(line),
      dynamicRoutes: (_method, path) => {
        if (path === "/boom") throw new Error("dynamic routes failed");
        return undefined;
      },
    });
    const failed = await send(port, "/boom", { method: "GET" });
    expect(failed.status).toBe(500);
    expect(failed.body.error).toEqual({ code: "INTERNAL", message: expect.any(String) });
    expect(JSON.stringify(failed.body)).not.toMatch(/dynamic routes failed|at .*\.ts/);
    expect(logged.join("\n")).toMatch(/dynamic routes failed/);
    expect((await send(port, "/v1/score", { body: JSON.stringify({ samples: [good] }) })).status).toBe(200);
  });
});

describe("browsers cannot use the loopback server (item 7)", () => {
  it("a text/plain POST (what a page can send without a preflight) is a 415 and scores nothing", async () => {
    const { srv, port } = await start();
    const res = await send(port, "/v1/score", { headers: { "content-type": "text/plain;charset=UTF-8" }, body: JSON.stringify({ samples: [good] }) });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect((await send(port, "/get_reward", { headers: { "content-type": "" }, body: JSON.stringify({ query: ["x"] }) })).status).toBe(415);
    expect(srv.stats().samples.scored).toBe(0);
  });

  it("a foreign Host (DNS rebinding) is refused; the bound address and localhost are accepted", async () => {
    const { port } = await start();
    const rebound = await send(port, "/healthz", { method: "GET", headers: { host: `attacker.example:${port}` } });
    expect(rebound.status).toBe(403);
    expect(rebound.body.error.code).toBe("HOST_REFUSED");
    expect((await send(port, "/v1/score", { headers: { host: `attacker.example:${port}` }, body: JSON.stringify({ samples: [good] }) })).status).toBe(403);
    expect((await send(port, "/healthz", { method: "GET", headers: { host: `localhost:${port}` } })).status).toBe(200);
    expect((await send(port, "/healthz", { method: "GET" })).status).toBe(200);
    const proxied = await start({ allowHosts: ["reward.internal:8000"] });
    expect((await send(proxied.port, "/healthz", { method: "GET", headers: { host: "reward.internal:8000" } })).status).toBe(200);
  });

  it("cross-origin requests are refused (Origin of another site, or Sec-Fetch-Site: cross-site)", async () => {
    const { srv, port } = await start();
    const res = await send(port, "/v1/score", { headers: { origin: "http://evil.example" }, body: JSON.stringify({ samples: [good] }) });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("CROSS_ORIGIN");
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    expect((await send(port, "/healthz", { method: "GET", headers: { "sec-fetch-site": "cross-site" } })).status).toBe(403);
    expect((await send(port, "/v1/score", { headers: { origin: "null" }, body: JSON.stringify({ samples: [good] }) })).status).toBe(403);
    expect(srv.stats().samples.scored).toBe(0);
    // A trainer's client sends no Origin: accepted.
    expect((await send(port, "/v1/score", { body: JSON.stringify({ samples: [good] }) })).status).toBe(200);
  });
});

describe("slow clients cannot hold the server (item 11)", () => {
  it("a client that never finishes its headers is cut off after the headers timeout", async () => {
    const { port } = await start({ headersTimeoutMs: 400 });
    const s = await raw(port);
    s.write(`POST /v1/score HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: 1`);
    expect(await closedWithin(s, 3000)).toBe(true);
  });

  it("a client that never finishes its body is cut off after the request timeout", async () => {
    const { port } = await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const s = await raw(port);
    s.write(`POST /v1/score HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"samples": [`);
    expect(await closedWithin(s, 4000)).toBe(true);
  });

  it("the headers are part of the request: a default timeout gives way to the other one given; both given and contradicting is BAD_INPUT (the request timeout raised past a lower one given, before)", () => {
    const made = (options: Partial<RewardServerOptions>) => {
      const srv = createRewardServer({ rubric, ...options });
      running.push(srv);
      return { headers: srv.server.headersTimeout, request: srv.server.requestTimeout };
    };
    expect(made({})).toEqual({ headers: 10_000, request: 120_000 });
    expect(made({ headersTimeoutMs: 200_000 })).toEqual({ headers: 200_000, request: 200_000 });
    // A whole request within 5 s has its headers within 5 s: the 10 s default of the headers gives way (the request timeout became 10 s before).
    expect(made({ requestTimeoutMs: 5_000 })).toEqual({ headers: 5_000, request: 5_000 });
    expect(() => createRewardServer({ rubric, headersTimeoutMs: 200_000, requestTimeoutMs: 100_000 })).toThrow(
      expect.objectContaining({ code: "BAD_INPUT", message: "headersTimeoutMs 200000 is above requestTimeoutMs 100000, which bounds it: lower headersTimeoutMs or raise requestTimeoutMs" }),
    );
  });

  it("without the token the answer is a 401 before any of the body is read, and the connection is closed", async () => {
    const { port } = await start({ token: "t0ken-for-the-test" });
    const s = await raw(port);
    let answer = "";
    s.on("data", (d) => (answer += d));
    s.write(`POST /v1/score HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n`);
    expect(await closedWithin(s, 3000)).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 401/);
    expect(answer).toMatch(/connection: close/i);
  });

  it("connections past the cap are closed at once", async () => {
    const { srv, port } = await start({ maxConnections: 5 });
    const opened = await Promise.all(Array.from({ length: 12 }, () => raw(port)));
    const closed = await Promise.all(opened.map((s) => closedWithin(s, 1500)));
    expect(closed.filter(Boolean).length).toBeGreaterThanOrEqual(7);
    expect(srv.server.maxConnections).toBe(5);
    expect((await send(port, "/healthz", { method: "GET" }).catch(() => ({ status: 0 }))).status).not.toBe(500);
  });
});

describe("sockets without the token cannot lock out those with it (issue 27, Medium 1)", () => {
  it("40 idle or trickling sockets leave a token holder's request served; they share a small budget of their own", async () => {
    const token = "t0ken-for-the-test";
    const { port } = await start({ token, maxConnections: 20 });
    const idle = await Promise.all(Array.from({ length: 40 }, () => raw(port)));
    for (const s of idle.slice(0, 10)) s.write(`POST /v1/score HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: 1`);
    // Past a second without the token, those over the budget (20 / 4 = 5) are closed.
    const closed = await Promise.all(idle.map((s) => closedWithin(s, 4000)));
    expect(closed.filter((c) => !c).length).toBeLessThanOrEqual(5);
    const served = await send(port, "/v1/score", { headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ samples: [good] }) });
    expect(served.status).toBe(200);
  });
});

describe("limits that fit a trainer's whole batch (issue 17, item 5)", () => {
  it("accepts an OpenRLHF 0.9 batch of 8,192 queries by default; past a limit the reason phrase names the flag", async () => {
    const { port } = await start();
    const n = 8192;
    const prompt = "Q: capital of France?\nA: ";
    const whole = await send(port, "/get_reward", { body: JSON.stringify({ query: Array.from({ length: n }, (_, i) => `${prompt}${i % 2 ? "Paris." : "Rome."}`), prompts: Array(n).fill(prompt), labels: Array(n).fill("Paris") }) });
    expect(whole.status).toBe(200);
    expect(whole.body.rewards).toHaveLength(n);
    const small = await start({ maxBodyBytes: 1024, maxSamples: 2 });
    const reasons: string[] = [];
    for (const body of [JSON.stringify({ samples: [{ ...good, response: "x".repeat(4096) }] }), JSON.stringify({ samples: [good, good, good] })]) {
      await new Promise<void>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port: small.port, path: "/v1/score", method: "POST", headers: { "content-type": "application/json" } }, (res) => {
          reasons.push(`${res.statusCode} ${res.statusMessage}`);
          res.resume().on("end", resolve);
        });
        req.on("error", reject);
        req.end(body);
      });
    }
    expect(reasons[0]).toMatch(/^413 .*--max-body/);
    expect(reasons[1]).toMatch(/^413 .*--max-samples/);
  });
});
