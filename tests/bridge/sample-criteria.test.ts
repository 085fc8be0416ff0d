/**
 * What a client may add as criteria (issue 27, High 1 and 3, Medium 11): the same rule for a
 * sample's `criteria` (/v1/score, /get_reward) and a session or rollout task's (`serve --env`):
 * pure checks only, linear-time regexes only, questions only when the operator allowed them.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRewardServer, type RewardServer } from "../../src/bridge/server.js";
import { CLIENT_CRITERIA_LIMITS, PURE_CHECK_KINDS, refusedSampleCriterion } from "../../src/bridge/sample-criteria.js";
import { schemaCompileCount } from "../../src/checks/compile.js";
import { re2CompileCount } from "../../src/checks/regex.js";
import { sessionRoutes } from "../../src/bridge/sessions.js";
import { createEngine } from "../../src/engine/engine.js";
import { loadEnvironment } from "../../src/env/load.js";
import { createSessionManager, type SessionManager } from "../../src/env/sessions.js";
import type { Environment } from "../../src/env/types.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import { score } from "../../src/score/score.js";
import { tempDir } from "../helpers/cli.js";
import { loopTurnsDuring } from "../helpers/event-loop.js";

const dir = tempDir();
// A server file a client would like to read, and a FIFO that would freeze a synchronous read.
const secret = join(dir, "secret.sql");
writeFileSync(secret, "CREATE TABLE secret (v TEXT); INSERT INTO secret VALUES ('s3cret-row');");
const fifo = join(dir, "pipe.db");
execFileSync("mkfifo", [fifo]);
const leak = (database: string) => ({ id: "leak", check: { custom: "sql-result-matches", args: { database, reference: "SELECT 's3cret-row'" } } });

const envFile = join(dir, "env.yaml");
writeFileSync(
  envFile,
  [
    "id: echo-env",
    "dataset: [{ id: t1, inputs: { prompt: hello } }]",
    "harness: { prompt: '{{prompt}}', max_turns: 2 }",
    "rubric:",
    "  id: echo",
    "  inputs: [prompt]",
    "  criteria:",
    "    - { id: says-hello, check: { contains: hello } }",
    "",
  ].join("\n"),
);

let env: Environment;
let sessions: SessionManager;
let server: RewardServer;
let url: string;
const engine = createEngine({ limits: { maxConcurrency: 2, maxRetries: 0, timeoutMs: 10_000 } });

beforeAll(async () => {
  env = await loadEnvironment(envFile);
  // `serve --env … --allow-sample-questions`: client tasks may carry criteria.
  sessions = createSessionManager({ env, engine, allowTaskCriteria: true });
  server = createRewardServer({ rubric: env.rubric, sampleCriteria: "questions", dynamicRoutes: sessionRoutes({ env, sessions, engine, allowTaskCriteria: true }), onClose: () => sessions.closeAll() });
  url = await server.listen(0);
});
afterAll(async () => {
  await server.close();
  engine.close();
});

async function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

describe("a session's task criteria follow /v1/score's rule (High 1)", () => {
  it("a task's custom check (a server file, a FIFO) is refused before a session opens", async () => {
    for (const database of [secret, fifo, "/etc/passwd"]) {
      const opened = await post("/v1/sessions", { task: { inputs: { prompt: "hello" }, criteria: [leak(database)] } });
      expect(opened.status).toBe(400);
      expect(opened.json.error).toMatchObject({ code: "SAMPLE_CHECK_REFUSED", field: "task.criteria.0.check" });
      expect(JSON.stringify(opened.json)).not.toContain("s3cret");
    }
    expect(sessions.stats().opened).toBe(0);
  });

  it("a rollout's task is refused the same way, before any policy call", async () => {
    const res = await post("/v1/rollouts", { task: { inputs: { prompt: "hello" }, criteria: [leak(secret)] }, policy: { base_url: "http://127.0.0.1:9/v1", model: "m" } });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: "SAMPLE_CHECK_REFUSED", field: "task.criteria.0.check" });
  });

  it("a task's pure check and question are accepted and scored with the session", async () => {
    const opened = await post("/v1/sessions", { task: { inputs: { prompt: "hello" }, criteria: [{ id: "polite", check: { regex: "please|thanks" } }, { id: "short", check: { length: { max: 5 } } }] } });
    expect(opened.status).toBe(200);
    const finished = await post(`/v1/sessions/${opened.json.session_id}/finish`, { response: "hello, thanks" });
    expect(finished.status).toBe(200);
    expect(finished.json.verdicts.map((v: { id: string; status: string }) => [v.id, v.status])).toEqual([
      ["says-hello", "met"],
      ["polite", "met"],
      ["short", "unmet"],
    ]);
  });
});

describe("only pure check kinds from clients (Medium 11)", () => {
  const base = { prompt: "p", response: "print(1)" };
  it.each([
    ["tests", { tests: { language: "python", tests: ["assert True"] } }],
    ["math", { math: { expected: "1" } }],
    ["similarity", { similarity: { reference: "x", min: 0.5 } }],
    ["custom", { custom: "anything" }],
  ])("a sample's %s check is refused, naming the pure kinds", async (kind, check) => {
    const res = await post("/v1/score", { samples: [{ ...base, criteria: [{ id: "x", check }] }] });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: "SAMPLE_CHECK_REFUSED", field: "samples.0.criteria.0.check" });
    expect(res.json.error.message).toContain(`.${kind}:`);
    expect(res.json.error.message).toContain(PURE_CHECK_KINDS.join(", "));
  });

  it("every pure kind is accepted", async () => {
    const criteria = [
      { id: "r", check: { regex: "print" } },
      { id: "c", check: { contains: "print" } },
      { id: "n", check: { not_contains: "rm -rf" } },
      { id: "e", check: { equals: "print(1)" } },
      { id: "j", check: { json_schema: { type: "string" } } },
      { id: "num", check: { number: { expected: 1 } } },
      { id: "l", check: { length: { max: 20 } } },
    ];
    expect(criteria.map((c) => Object.keys(c.check)[0])).toEqual(PURE_CHECK_KINDS);
    const res = await post("/v1/score", { samples: [{ ...base, criteria }] });
    expect(res.status).toBe(200);
    // "print(1)" is not JSON, so json_schema is unmet; every other check passes.
    expect(res.json.results[0].verdicts.map((v: { id: string; status: string }) => `${v.id}:${v.status}`)).toEqual(["says-hello:unmet", "r:met", "c:met", "n:met", "e:met", "j:unmet", "num:met", "l:met"]);
  });
});

describe("client regexes never hold the event loop (High 3)", () => {
  const lookaround = (i: number) => ({ id: `slow-${i}`, check: { regex: "^(?=(a+)+$)" } });

  it("lookaround and backreferences are refused, in a regex check or anywhere in a json_schema; /healthz answers meanwhile", async () => {
    const scoredBefore = server.stats().samples.scored;
    const heavy = post("/v1/score", { samples: [{ prompt: "p", response: `${"a".repeat(40)}b`, criteria: Array.from({ length: 40 }, (_, i) => lookaround(i)) }] });
    const health = fetch(`${url}/healthz`);
    const [refused, healthz] = await Promise.all([heavy, health]);
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: "SAMPLE_REGEX_REFUSED", field: "samples.0.criteria.0.check" });
    expect(healthz.status).toBe(200);
    const nested = { type: "object", properties: { a: { type: "array", items: { type: "string", pattern: "(\\w)\\1" } } } };
    const schema = await post("/v1/score", { samples: [{ prompt: "p", response: "{}", criteria: [{ id: "s", check: { json_schema: nested } }] }] });
    expect(schema.status).toBe(400);
    expect(schema.json.error.code).toBe("SAMPLE_REGEX_REFUSED");
    const task = await post("/v1/sessions", { task: { inputs: { prompt: "hello" }, criteria: [lookaround(0)] } });
    expect(task.status).toBe(400);
    expect(task.json.error).toMatchObject({ code: "SAMPLE_REGEX_REFUSED", field: "task.criteria.0.check" });
    expect(server.stats().samples.scored).toBe(scoredBefore);
  });

  it("a linear pattern RE2 can only run on its slowest engine (a.{20}x on a/b text, seconds per criterion on the event loop before) runs in a worker under a CPU limit: the loop turns meanwhile, and past the limit the criterion is a forfeited no, a pitfall hit", async () => {
    let seed = 7;
    const text = Array.from({ length: 40_000 }, () => ((seed = (seed * 1103515245 + 12345) % 2147483648) < 1073741824 ? "a" : "b")).join("");
    const sample = { prompt: "p", response: text, criteria: [{ id: "slow", check: { regex: "a.{20}x" } }, { id: "slow-pitfall", check: { regex: "b.{20}x" }, points: -1 }, { id: "quick", check: { contains: "ab" } }] };
    const { result: [result], turns } = await loopTurnsDuring(() => score(env.rubric, [sample], { clientCriteria: true, clientCheckCpuMs: 200 }));
    // On the event loop, the match held it: no turn until it ended.
    expect(turns).toBeGreaterThan(10);
    const verdict = (id: string) => result.verdicts.find((v) => v.id === id);
    expect(verdict("slow")).toMatchObject({ status: "unmet", reasoning: expect.stringMatching(/ran past their limit \(200 ms of CPU\)/) });
    expect(verdict("slow-pitfall")).toMatchObject({ status: "met", earned: -1 });
    expect(result.errors).toEqual([]);
    // The server's default limit, through /v1/score: answered, with the same forfeits.
    const res = await post("/v1/score", { samples: [sample] });
    expect(res.status).toBe(200);
    expect(res.json.results[0].verdicts.find((v: { id: string }) => v.id === "slow")).toMatchObject({ status: "unmet", reasoning: expect.stringMatching(/ran past their limit \(1000 ms of CPU\)/) });
  }, 60_000);

  it("a linear pattern on a text too long for RE2 fails that criterion (the response's size, not an error a policy could use), never the backtracking engine", async () => {
    // (a+)+$ is RE2's (linear) but catastrophic on JavaScript's engine, where texts over RE2's size used to go.
    const text = `${"a".repeat(300_000)}b`;
    const res = await post("/v1/score", { samples: [{ prompt: "p", response: text, criteria: [{ id: "evil", check: { regex: "(a+)+$" } }, { id: "ok", check: { regex: "^a" } }] }] });
    expect(res.status).toBe(200);
    const verdicts = res.json.results[0].verdicts;
    expect(verdicts.find((v: { id: string }) => v.id === "evil")).toMatchObject({ status: "unmet", earned: 0, reasoning: expect.stringMatching(/cannot be tested against \/\(a\+\)\+\$\/ in linear time: the text has 300001 characters, more than the linear-time engine takes/) });
    expect(verdicts.find((v: { id: string }) => v.id === "ok")).toMatchObject({ status: "unmet" });
    expect(res.json.results[0].errors).toEqual([]);
  });

  it("an $async json_schema (whose validator returned a Promise: a pass for anything, and an unhandled rejection that ended the server) is the sample's schema error; the server goes on", async () => {
    const res = await post("/v1/score", { samples: [{ prompt: "p", response: "5", criteria: [{ id: "s", check: { json_schema: { $async: true, type: "object" } } }] }] });
    expect(JSON.stringify(res.json)).toMatch(/\$async schemas are not supported/);
    expect(res.json.results?.[0]?.reward ?? null).toBeNull();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it("a sample's criteria cannot make a reward that is not a number: points whose sum overflows are the sample's error, and /get_reward answers the batch (it was a 500 for every sample)", async () => {
    const huge = [{ id: "a", check: { contains: "h" }, points: 1e308 }, { id: "b", check: { contains: "h" }, points: 1e308 }];
    const res = await fetch(`${url}/get_reward`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: ["Say hello: hello", "Say hello: hello again"], prompts: ["Say hello: ", "Say hello: "], labels: [{ criteria: huge }, {}] }) });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { rewards: number[]; errors: (string | null)[] };
    expect(answer.rewards).toEqual([0, 1]);
    expect(answer.errors[0]).toMatch(/BAD_INPUT: sample criterion 1: points: .*1000000/);
    const weighted = await post("/v1/score", { samples: [{ prompt: "p", response: "hello", criteria: [{ id: "w", check: { contains: "h" }, weight: 1e308 }] }] });
    expect(weighted.json.errors[0]).toMatch(/weight: .*1000000/);
  });

  it("the rubric's own lookaround patterns still run (the operator chose them)", async () => {
    const path = join(dir, "guard.yaml");
    writeFileSync(path, ["id: guard", "inputs: [response]", "criteria:", "  - { id: no-forbidden, check: { regex: '^(?![\\s\\S]*forbidden)' } }", ""].join("\n"));
    const own = createRewardServer({ rubric: loadRubricSync(path) });
    const ownUrl = await own.listen(0);
    try {
      const res = await fetch(`${ownUrl}/v1/score`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ samples: [{ response: "all fine" }, { response: "this is forbidden" }] }) });
      expect(((await res.json()) as { rewards: number[] }).rewards).toEqual([1, 0]);
    } finally {
      await own.close();
    }
  });
});

/** `a0: { allOf: [$ref a1, $ref a1] }, …`: a few dozen nodes as written, 2^depth steps per validated value (the audit's depth 20: ~3.7 s a value). */
const fanOut = (depth: number) => {
  const definitions: Record<string, unknown> = { [`a${depth}`]: { type: "string" } };
  for (let i = 0; i < depth; i++) definitions[`a${i}`] = { allOf: [{ $ref: `#/definitions/a${i + 1}` }, { $ref: `#/definitions/a${i + 1}` }] };
  return { $ref: "#/definitions/a0", definitions };
};

describe("a client's criteria are sized before anything compiles or runs (they could hold the event loop for minutes within the default limits)", () => {
  const refusedBeforeCompiling = async (body: unknown) => {
    const [regexes, schemas, scored] = [re2CompileCount(), schemaCompileCount(), server.stats().samples.scored];
    const res = await post("/v1/score", body);
    expect([re2CompileCount(), schemaCompileCount(), server.stats().samples.scored]).toEqual([regexes, schemas, scored]);
    return res;
  };

  it("a short pattern whose RE2 program is enormous (nested counted repetitions, large classes) is a 400 naming the field and the limit, before it compiles (~20 s for the audit's 72 characters)", async () => {
    for (const [pattern, field] of [
      ["[a-h]{1,1000}x", "samples.0.criteria.1.check.regex"],
      ["(?:(?:(?:a{1,1000}){1,1000}){1,1000})", "samples.0.criteria.1.check.regex"],
    ]) {
      const res = await refusedBeforeCompiling({ samples: [{ prompt: "p", response: "hello", criteria: [{ id: "ok", check: { regex: "^h" } }, { id: "big", check: { regex: pattern } }] }] });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: "SAMPLE_CRITERIA_TOO_LARGE", field });
      expect(res.json.error.message).toContain("16,384");
    }
    const inSchema = await refusedBeforeCompiling({ samples: [{ prompt: "p", response: "{}", criteria: [{ id: "s", check: { json_schema: { type: "object", properties: { a: { type: "string", pattern: "\\p{L}{7}" } } } } }] }] });
    expect(inSchema.json.error).toMatchObject({ code: "SAMPLE_CRITERIA_TOO_LARGE", field: "samples.0.criteria.0.check.json_schema.properties.a.pattern" });
  });

  it("a request whose distinct patterns would together compile too long is a 413 at the pattern past the bound; a pattern every sample repeats is compiled once for the request", async () => {
    // Each ~15,000 units (a negated class 1,000 times): under the per-pattern bound, five over the request's.
    const samples = ["a", "b", "c", "d", "e"].map((c) => ({ prompt: "p", response: "hello", criteria: [{ id: "r", check: { regex: `[^${c}]{1000}` } }] }));
    const res = await refusedBeforeCompiling({ samples });
    expect(res.status).toBe(413);
    expect(res.json.error).toMatchObject({ code: "SAMPLE_CRITERIA_TOO_LARGE", field: "samples.4.criteria.0.check.regex" });
    expect(res.json.error.message).toContain("65,536");

    const before = re2CompileCount();
    const pattern = "^[\\s\\S]{0,280}$|once-per-request";
    const repeated = await post("/v1/score", { samples: Array.from({ length: 50 }, (_, i) => ({ prompt: "p", response: "x".repeat(i * 7), criteria: [{ id: "short", check: { regex: pattern } }, { id: "json", check: { json_schema: { type: "string", pattern } } }] })) });
    expect(repeated.status).toBe(200);
    expect(repeated.json.results.map((r: { verdicts: { id: string; status: string }[] }) => r.verdicts.find((v) => v.id === "short")?.status)).toEqual(Array.from({ length: 50 }, (_, i) => (i * 7 <= 280 ? "met" : "unmet")));
    // Once per flags ("" for the regex check, "u" for the schema's) for the linear-time test at
    // admission; every check of the 50 samples, and ajv compiling the schema, found it in the cache.
    expect(re2CompileCount() - before).toBe(2);
  });

  it("the refusal's field is where the client wrote it: /get_reward names the label by its query's index (not the index among the rows that mapped), /v1/score/one the sample", async () => {
    const tooMany = Array.from({ length: CLIENT_CRITERIA_LIMITS.perSample + 1 }, (_, i) => ({ id: `c${i}`, check: { contains: "hello" } }));
    const tooDeep = { criteria: [] as unknown[], nested: JSON.parse(`${"[".repeat(200)}${"]".repeat(200)}`) as unknown };
    // Query 0 does not start with its prompt, so it maps to no sample: the labels at 1 and 2 are the first and second that did.
    const reward = (labels: unknown[]) => fetch(`${url}/get_reward`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: ["unrelated", "Say hello: hello", "Say hello: hi"], prompts: ["Say hello: ", "Say hello: ", "Say hello: "], labels }) });
    const counted = await reward([{}, {}, { criteria: tooMany }]);
    expect(counted.status).toBe(400);
    expect(((await counted.json()) as { error: { field: string; message: string } }).error).toMatchObject({ code: "SAMPLE_CRITERIA_TOO_LARGE", field: "labels.2.criteria", message: expect.stringMatching(/^labels\.2\.criteria: /) });
    const deep = await reward([{}, {}, tooDeep]);
    expect(((await deep.json()) as { error: { field: string } }).error).toMatchObject({ code: "SAMPLE_TOO_DEEP", field: "labels.2" });
    const one = await post("/v1/score/one", { sample: { prompt: "p", response: "hello", criteria: tooMany } });
    expect(one.json.error).toMatchObject({ code: "SAMPLE_CRITERIA_TOO_LARGE", field: "sample.criteria" });
    const refused = await post("/v1/score/one", { sample: { prompt: "p", response: "hello", criteria: [{ id: "look", check: { regex: "(?=h)h" } }] } });
    expect(refused.json.error).toMatchObject({ code: "SAMPLE_REGEX_REFUSED", field: "sample.criteria.0.check" });
  });

  it("more than 64 criteria on a sample (the audit sent 20,000 contains, ~252 s) is a 400 naming the sample's criteria", async () => {
    const criteria = Array.from({ length: CLIENT_CRITERIA_LIMITS.perSample + 1 }, (_, i) => ({ id: `c${i}`, check: { contains: "hello" } }));
    const res = await refusedBeforeCompiling({ samples: [{ prompt: "p", response: "hello", criteria }] });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: "SAMPLE_CRITERIA_TOO_LARGE", field: "samples.0.criteria" });
    expect(res.json.error.message).toContain("at most 64");
    const opened = sessions.stats().opened;
    const task = await post("/v1/sessions", { task: { inputs: { prompt: "hello" }, criteria } });
    expect(task.json.error).toMatchObject({ code: "SAMPLE_CRITERIA_TOO_LARGE", field: "task.criteria" });
    expect(sessions.stats().opened).toBe(opened);
  });

  it("criteria whose work on the text passes the request's budget are a 413 before any runs: 17,000 contains needles on a 130,000-character response", async () => {
    const needles = Array.from({ length: 17_000 }, (_, i) => `needle-${i}`);
    const res = await refusedBeforeCompiling({ samples: [{ prompt: "p", response: "hello ".repeat(130_000 / 6), criteria: [{ id: "many", check: { contains: needles } }] }] });
    expect(res.status).toBe(413);
    expect(res.json.error).toMatchObject({ code: "SAMPLE_CRITERIA_TOO_LARGE", field: "samples.0.criteria.0" });
    expect(res.json.error.message).toContain("67,108,864");
  });

  it("a json_schema with a huge enum, or $refs that fan out, is a 400 before it compiles (the audit's: ~175 s, and ~3.7 s per validated value); a $ref outside the schema is refused", async () => {
    const bigEnum = { type: "array", items: { enum: Array.from({ length: CLIENT_CRITERIA_LIMITS.schemaValues + 1 }, (_, i) => `v${i}`) } };
    for (const schema of [bigEnum, fanOut(16)]) {
      const res = await refusedBeforeCompiling({ samples: [{ prompt: "p", response: '"x"', criteria: [{ id: "s", check: { json_schema: schema } }] }] });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: "SAMPLE_CRITERIA_TOO_LARGE", field: "samples.0.criteria.0.check.json_schema" });
    }
    const outside = await refusedBeforeCompiling({ samples: [{ prompt: "p", response: '"x"', criteria: [{ id: "s", check: { json_schema: { $ref: "https://example.com/other.json#/definitions/a" } } }] }] });
    expect(outside.json.error).toMatchObject({ code: "SAMPLE_CHECK_REFUSED", field: "samples.0.criteria.0.check.json_schema" });
    // The reason phrase carries the code and what to do (trainers log only that).
    const res = await fetch(`${url}/v1/score`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ samples: [{ prompt: "p", response: "x", criteria: [{ id: "s", check: { json_schema: fanOut(16) } }] }] }) });
    expect(res.statusText).toBe("Bad Request (SAMPLE_CRITERIA_TOO_LARGE: smaller client criteria, or fewer samples per request)");
  });

  it("a legitimate request is scored: a few criteria, ordinary patterns, a schema with a 20-value enum, {{variables}}", async () => {
    const colours = Array.from({ length: 20 }, (_, i) => `colour-${i}`);
    const criteria = [
      { id: "phone", check: { regex: "\\d{3}-\\d{4}" } },
      { id: "short", check: { regex: "^[\\s\\S]{0,280}$" } },
      { id: "tweet", check: { regex: { pattern: "^.{0,280}$", flags: "s" } } },
      { id: "shape", check: { json_schema: { type: "object", required: ["colour", "phone"], properties: { colour: { enum: colours }, phone: { type: "string", pattern: "^\\d{3}-\\d{4}$" } } } } },
      { id: "words", check: { contains: ["colour", "phone"], match: "all" } },
      { id: "no-apology", check: { not_contains: ["sorry", "as an AI"] } },
      { id: "exact-colour", check: { equals: "{{expected}}", field: "colour_field" } },
      { id: "count", check: { number: { expected: "{{n}}" }, field: "n_field" } },
      { id: "brief", check: { length: { max: 100 } } },
    ];
    const response = JSON.stringify({ colour: "colour-3", phone: "555-1234" });
    const res = await post("/v1/score", { samples: [{ prompt: "p", response, expected: "colour-3", colour_field: "Colour-3", n: 7, n_field: "it is 7", criteria }] });
    expect(res.status).toBe(200);
    expect(res.json.results[0].verdicts.map((v: { id: string; status: string }) => `${v.id}:${v.status}`)).toEqual(["says-hello:unmet", ...criteria.map((c) => `${c.id}:met`)]);
  });
});

describe("the request's budget is summed over its samples, counting what {{variables}} render to", () => {
  const sample = (response: string, criteria: object[], extra: object = {}) => ({ response, criteria, ...extra });
  it("each sample within the budget, the request over it: refused at the sample that passes it", () => {
    // 64 criteria reading 300,000 characters: ~19 M units a sample; the fourth passes 64 Mi.
    const criteria = Array.from({ length: 64 }, (_, i) => ({ id: `l${i}`, check: { length: { max: 10 } } }));
    const samples = Array.from({ length: 4 }, () => sample("x".repeat(300_000), criteria));
    expect(refusedSampleCriterion(samples.slice(0, 3), "checks")).toBeUndefined();
    // 3 × 19.2 M + 32 × 300,000 > 64 Mi: the 32nd criterion of the fourth sample.
    expect(refusedSampleCriterion(samples, "checks")).toMatchObject({ status: 413, code: "SAMPLE_CRITERIA_TOO_LARGE", field: "samples.3.criteria.31" });
  });

  it("contains' fold of a text counts once per sample, field and case, as scoring folds it once; each needle counts", () => {
    const text = "lorem ipsum ".repeat(25_000);
    const contains = (n: number, extra: object = {}) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, check: { contains: "ipsum", ...extra } }));
    // 64 criteria on 300,000 characters, four samples: ~3.6 M units (each criterion apart, 79 M).
    expect(refusedSampleCriterion(Array.from({ length: 4 }, () => sample(text, contains(64))), "checks")).toBeUndefined();
    // The same needle 2,200 times in one criterion: each is a search of the text (~21 M units a sample; the fourth passes 64 Mi).
    const needles = { id: "n", check: { contains: Array.from({ length: 2_200 }, () => "ipsum") } };
    expect(refusedSampleCriterion(Array.from({ length: 8 }, () => sample(text, [needles])), "checks")).toMatchObject({ status: 413, field: "samples.3.criteria.0" });
  });

  it("an equals check counts its rendered {{variables}}: 400 copies of a 100,000-character variable is 40 M characters to render and normalize", () => {
    const template = "{{answer}}".repeat(400);
    const refused = refusedSampleCriterion([sample("short", [{ id: "e", check: { equals: template } }], { answer: "a".repeat(100_000) })], "checks");
    expect(refused).toMatchObject({ status: 413, code: "SAMPLE_CRITERIA_TOO_LARGE", field: "samples.0.criteria.0" });
    expect(refusedSampleCriterion([sample("short", [{ id: "e", check: { equals: "{{answer}}" } }], { answer: "a".repeat(100_000) })], "checks")).toBeUndefined();
  });

  it("a non-string field a check reads counts as its JSON", () => {
    const data = { rows: Array.from({ length: 30_000 }, (_, i) => ({ id: i, name: `row ${i}` })) };
    const criteria = Array.from({ length: 64 }, (_, i) => ({ id: `c${i}`, check: { length: { min: i }, field: "data" } }));
    const refused = refusedSampleCriterion(Array.from({ length: 2 }, () => sample("x", criteria, { data })), "checks", { responseField: "response" });
    expect(refused).toMatchObject({ status: 413, code: "SAMPLE_CRITERIA_TOO_LARGE" });
    expect(refused!.field).toMatch(/^samples\.1\.criteria\.\d+$/);
  });
});
