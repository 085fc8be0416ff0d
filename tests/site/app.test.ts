/**
 * The hub's web app against a real registry (Verdaccio 6.8.0 on loopback, htpasswd users, a
 * private scope) and a throwaway SQLite store: pushed results checked against the registry's
 * integrity, pages and API showing the same leaderboard, private packages hidden from visitors
 * whose token the registry refuses, and the README rendered without its scripts.
 */
import { mkdtempSync, rmSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHubApp } from "../../src/site/app.js";
import { RegistryClient } from "../../src/site/registry.js";
import { ResultStore } from "../../src/site/store.js";
import { startVerdaccio, type Registry } from "../helpers/verdaccio.js";
import { hubResult, publishEnv, tasks } from "./fixtures.js";

const XSS_README = [
  "# Times env",
  "",
  "Multiply two numbers. **Bold** and a [link](https://example.com).",
  "",
  "<script>window.pwned = 1</script>",
  '<img src="x" onerror="window.pwned = 2">',
  "[click](javascript:window.pwned=3)",
  '<a href="https://example.com" onclick="window.pwned=4">evil link</a>',
  "<iframe src=\"https://example.com\"></iframe>",
].join("\n");

describe("hub serve app [Verdaccio]", () => {
  let work: string;
  let registry: Registry;
  let token: string;
  let store: ResultStore;
  let app: ReturnType<typeof createHubApp>;
  const integrity: Record<string, string> = {};
  const logs: string[] = [];

  const get = (path: string, auth?: string) => app.request(path, { headers: auth ? { authorization: `Bearer ${auth}` } : {} });
  /** POSTs a result as alice (or as `auth`: another token, or null for none). */
  const push = (body: unknown, auth: string | null = token) =>
    app.request("/api/results", { method: "POST", headers: { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${auth}` } : {}) }, body: typeof body === "string" ? body : JSON.stringify(body) });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "rubricate-hub-"));
    registry = await startVerdaccio(join(work, "registry"), { users: { alice: "alice-pass-1" }, privateScope: "@private" });
    token = await registry.login("alice", "alice-pass-1");
    integrity["times@0.1.0"] = await publishEnv(registry.url, token, work, { name: "@acme/times-env", version: "0.1.0", description: "Multiplication with a tool", keywords: ["rubricate-env"], rubricate: "env.yaml" }, XSS_README);
    integrity["times@0.2.0"] = await publishEnv(registry.url, token, work, { name: "@acme/times-env", version: "0.2.0", description: "Multiplication with a tool", keywords: ["rubricate-env"], rubricate: { env: "env.yaml", tasks: 12, criteria: ["correct", "uses-tool"] } }, XSS_README);
    integrity["field@1.0.0"] = await publishEnv(registry.url, token, work, { name: "field-only-env", version: "1.0.0", description: "found by its rubricate field", rubricate: "env.yaml" });
    integrity["private@1.0.0"] = await publishEnv(registry.url, token, work, { name: "@private/secret-env", version: "1.0.0", description: "internal", keywords: ["rubricate-env"] });
    await publishEnv(registry.url, token, work, { name: "plain-lib", version: "1.0.0", description: "not an environment" });
    store = new ResultStore(join(work, "hub.db"));
    app = createHubApp({ registries: new RegistryClient({ registries: [registry.url] }), store, bodyLimit: 200_000, log: (l) => logs.push(l) });
  }, 120_000);

  afterAll(async () => {
    store?.close();
    await registry?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("lists environments (keyword or rubricate field), not other packages, and private ones only with a token", async () => {
    const anon = (await (await get("/api/envs")).json()) as { envs: { name: string }[] };
    expect(anon.envs.map((e) => e.name)).toEqual(["@acme/times-env", "field-only-env"]);
    const signed = (await (await get("/api/envs", token)).json()) as { envs: { name: string }[] };
    expect(signed.envs.map((e) => e.name)).toEqual(["@acme/times-env", "@private/secret-env", "field-only-env"]);
    const bad = (await (await get("/api/envs", "not-a-token")).json()) as { envs: { name: string }[] };
    expect(bad.envs.map((e) => e.name)).not.toContain("@private/secret-env");
    const search = (await (await get("/api/envs?q=times")).json()) as { envs: { name: string }[] };
    expect(search.envs.map((e) => e.name)).toEqual(["@acme/times-env"]);
    const page = await (await get("/?q=times")).text();
    expect(page).toContain('href="/envs/@acme/times-env"');
    expect(page).not.toContain("field-only-env");
  });

  it("accepts a result whose integrity is the registry's, and refuses a wrong integrity (409), an unknown version (422), a bad body (422/400) and no token (401)", async () => {
    const good = hubResult({ name: "@acme/times-env", version: "0.2.0", integrity: integrity["times@0.2.0"], model: "openai:model-a", perTask: tasks(8, (i) => (i < 6 ? 1 : 0)) });
    const ok = await push(good);
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { url: string }).url).toBe("/envs/@acme/times-env?version=0.2.0");

    const wrong = await push({ ...good, env: { ...good.env, integrity: integrity["times@0.1.0"] } });
    expect(wrong.status).toBe(409);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe("INTEGRITY_MISMATCH");

    const unknownVersion = await push({ ...good, env: { ...good.env, version: "9.9.9" } });
    expect(unknownVersion.status).toBe(422);
    expect(((await unknownVersion.json()) as { error: { code: string } }).error.code).toBe("UNKNOWN_VERSION");

    const noIntegrity = await push({ ...good, env: { name: good.env.name, version: good.env.version } });
    expect(noIntegrity.status).toBe(422);

    const badShape = await push({ ...good, stats: { ...good.stats, passRate: 7 } });
    expect(badShape.status).toBe(422);
    expect(((await badShape.json()) as { error: { message: string } }).error.message).toContain("stats.passRate");

    // A result whose summary its own per-task rewards contradict: refused before it reaches the board.
    const inflated = await push({ ...good, stats: { ...good.stats, reward: { n: 8, mean: 1, low: 1, high: 1 } } });
    expect(inflated.status).toBe(422);
    expect(((await inflated.json()) as { error: { message: string } }).error.message).toContain("is not the mean of stats.perTask");

    expect((await push("{not json")).status).toBe(400);
    expect((await push(good, null)).status).toBe(401);
    expect((await push(good, "forged-token")).status).toBe(401);

    // Only the first push was stored.
    expect(store.forEnv("@acme/times-env")).toHaveLength(1);
  });

  it("refuses a body over the limit with 413 and a JSON error", async () => {
    const big = hubResult({ name: "@acme/times-env", version: "0.2.0", integrity: integrity["times@0.2.0"], model: "openai:big", perTask: tasks(3, () => 1) });
    const res = await push({ ...big, rollouts: [{ text: "x".repeat(300_000) }] });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("BODY_TOO_LARGE");
  });

  it("a private environment's results can be pushed only with access, and its page and results are invisible without a token", async () => {
    const r = hubResult({ name: "@private/secret-env", version: "1.0.0", integrity: integrity["private@1.0.0"], model: "openai:model-a", perTask: tasks(5, () => 1) });
    expect((await push(r)).status).toBe(201);
    for (const path of ["/api/envs/@private/secret-env", "/api/envs/@private/secret-env/1.0.0/results", "/envs/@private/secret-env"]) {
      expect((await get(path)).status).toBe(404);
      expect((await get(path, "not-a-token")).status).toBe(404);
      expect((await get(path, token)).status).toBe(200);
    }
    const anonPage = await (await get("/envs/@private/secret-env")).text();
    expect(anonPage).not.toContain("openai:model-a");
  });

  it("the environment page and its API show the leaderboard, criteria, comparison and history from the same results", async () => {
    const name = "@acme/times-env";
    await push(hubResult({ name, version: "0.2.0", integrity: integrity["times@0.2.0"], model: "anthropic:model-b", perTask: tasks(8, (i) => (i < 2 ? 1 : 0.25)), costUsd: 1.5, criteria: [{ id: "correct", rate: 0.25 }, { id: "uses-tool", rate: 0.5 }] }));
    await push(hubResult({ name, version: "0.1.0", integrity: integrity["times@0.1.0"], model: "openai:model-a", perTask: tasks(8, (i) => (i < 4 ? 1 : 0)) }));

    const api = (await (await get(`/api/envs/${name}/0.2.0/results`)).json()) as { leaderboard: { model: string; reward: { mean: number } }[]; criteria: { criteria: string[] } };
    expect(api.leaderboard.map((r) => r.model)).toEqual(["openai:model-a", "anthropic:model-b"]);
    expect(api.leaderboard[0].reward.mean).toBeCloseTo(0.75);
    expect(api.leaderboard[1].reward.mean).toBeCloseTo((2 + 6 * 0.25) / 8);
    expect(api.criteria.criteria).toEqual(["correct", "uses-tool"]);

    const view = (await (await get(`/api/envs/${name}`)).json()) as { version: string; tasks: number; criteria: string[]; install: string; versions: { version: string }[]; history: { versions: string[]; means: Record<string, Record<string, number>> } };
    expect(view.version).toBe("0.2.0");
    // The 0.2.0 manifest summarises the environment; its numbers are shown as given.
    expect(view.tasks).toBe(12);
    expect(view.criteria).toEqual(["correct", "uses-tool"]);
    expect(view.install).toBe("npm install @acme/times-env@0.2.0");
    expect(view.versions.map((v) => v.version)).toEqual(["0.2.0", "0.1.0"]);
    expect(view.history.versions).toEqual(["0.1.0", "0.2.0"]);
    expect(view.history.means["openai:model-a"]["0.1.0"]).toBeCloseTo(0.5);
    expect(view.history.means["openai:model-a"]["0.2.0"]).toBeCloseTo(0.75);

    const cmp = (await (await get(`/api/envs/${name}/0.2.0/compare?a=openai:model-a&b=anthropic:model-b`)).json()) as { diff: number; low: number; high: number; tasks: unknown[] };
    expect(cmp.tasks).toHaveLength(8);
    expect(cmp.diff).toBeCloseTo(0.75 - (2 + 6 * 0.25) / 8);
    expect(cmp.low).toBeLessThanOrEqual(cmp.diff);
    expect(cmp.high).toBeGreaterThanOrEqual(cmp.diff);

    const page = await (await get(`/envs/${name}?version=0.2.0&a=openai:model-a&b=anthropic:model-b`)).text();
    expect(page).toContain("openai:model-a");
    expect(page).toContain("anthropic:model-b");
    expect(page).toContain("0.750");
    expect(page).toContain("$1.50");
    expect(page).toContain('data-testid="comparison"');
    // Each row names who pushed it.
    expect(page).toContain('<span title="pushed by a registry user">alice</span>');
    // The older version's page shows its own leaderboard, with the task count taken from its results.
    const old = (await (await get(`/api/envs/${name}?version=0.1.0`)).json()) as { tasks: number; leaderboard: { model: string }[] };
    expect(old.leaderboard.map((r) => r.model)).toEqual(["openai:model-a"]);
    expect(old.tasks).toBe(8);
  });

  it("renders the README without its scripts, handlers, javascript: links or iframes, and escapes every pushed string", async () => {
    const page = await (await get("/envs/@acme/times-env")).text();
    const readme = page.slice(page.indexOf('<div class="readme">'));
    expect(readme).toContain("<strong>Bold</strong>");
    expect(readme).toContain('href="https://example.com"');
    expect(readme).not.toMatch(/<script|onerror|onclick|href="javascript:|<iframe/i);
    expect(page).not.toContain("<script>window.pwned");

    const evil = hubResult({ name: "@acme/times-env", version: "0.2.0", integrity: integrity["times@0.2.0"], model: '<img src=x onerror="alert(1)">', perTask: tasks(2, () => 1), criteria: [{ id: "<script>alert(2)</script>", rate: 1 }] });
    expect((await push(evil)).status).toBe(201);
    const after = await (await get("/envs/@acme/times-env")).text();
    expect(after).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(after).toContain("&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(after).not.toContain('<img src=x onerror="alert(1)">');
    const res = await get("/envs/@acme/times-env");
    expect(res.headers.get("content-security-policy")).toMatch(/script-src 'nonce-/);
  });

  it("draws a series' training curves with the overfitting sentence, leaving out environments the visitor may not see", async () => {
    const level = (n: number) => tasks(20, (i) => (i / 20 < n ? 1 : 0));
    const steps: [string, string, string, number[]][] = [
      ["field-only-env", "1.0.0", integrity["field@1.0.0"], [0.2, 0.6, 0.95]],
      ["@acme/times-env", "0.2.0", integrity["times@0.2.0"], [0.9, 0.6, 0.15]],
      ["@private/secret-env", "1.0.0", integrity["private@1.0.0"], [0.5, 0.5, 0.5]],
    ];
    for (const [name, version, hash, levels] of steps) {
      for (const [i, l] of levels.entries()) expect((await push(hubResult({ name, version, integrity: hash, model: "my-policy", series: "grpo-run", step: i * 50, perTask: level(l) }))).status).toBe(201);
    }
    const anon = (await (await get("/api/series/grpo-run?train=field-only-env")).json()) as { curves: { env: string; trend: string }[]; overfitting?: string };
    expect(anon.curves.map((c) => [c.env, c.trend])).toEqual([["field-only-env", "rises"], ["@acme/times-env", "falls"]]);
    expect(anon.overfitting).toContain("while @acme/times-env fell");
    const signed = (await (await get("/api/series/grpo-run?train=field-only-env", token)).json()) as { curves: { env: string }[] };
    expect(signed.curves.map((c) => c.env)).toContain("@private/secret-env");
    const page = await (await get("/series/grpo-run?train=field-only-env&heldout=@acme/times-env")).text();
    expect(page).toContain('data-testid="overfitting"');
    expect(page).toContain("<svg");
    expect(page).not.toContain("secret-env");
    // The training environment's page links to the series' curves.
    const envPage = await (await get("/envs/field-only-env")).text();
    expect(envPage).toContain('<a href="/series/grpo-run?train=field-only-env">grpo-run</a>');
  });

  it("POST /api/evals: 409 while the version is being evaluated, another version starts", async () => {
    const started: string[] = [];
    const evals = { models: ["mini"], busy: (r: { version: string }) => (r.version === "0.1.0" ? "an eval of it is under way" : undefined), start: async (r: { version: string }) => (started.push(r.version), "id-1"), progress: () => undefined };
    const withEvals = createHubApp({ registries: new RegistryClient({ registries: [registry.url] }), store, evals });
    const ask = (body: unknown) => withEvals.request("/api/evals", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
    const busy = await ask({ env: "@acme/times-env", version: "0.1.0", models: ["mini"] });
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { error: { code: string } }).error.code).toBe("EVAL_BUSY");
    expect((await ask({ env: "@acme/times-env", version: "0.2.0", models: ["mini"] })).status).toBe(202);
    expect(started).toEqual(["0.2.0"]);
  });

  it("GET /api/evals/:id: an eval of a private environment only for a token the registry shows it to; a public one for anyone", async () => {
    const queued: Record<string, { env: string; version: string }> = { pub: { env: "@acme/times-env", version: "0.2.0" }, priv: { env: "@private/secret-env", version: "1.0.0" } };
    const progress = (id: string) => (queued[id] ? { id, ...queued[id], models: ["mini"], state: "running" as const, done: 1, total: 4 } : undefined);
    const evals = { models: ["mini"], busy: () => undefined, start: async () => "priv", progress };
    const withEvals = createHubApp({ registries: new RegistryClient({ registries: [registry.url] }), store, evals });
    const read = (id: string, headers: Record<string, string> = {}) => withEvals.request(`/api/evals/${id}`, { headers });
    // Allowed: the public environment's eval to anyone, the private one to alice's token (bearer or the sign-in cookie the page's script sends).
    for (const headers of [{}, { authorization: "Bearer not-a-token" }] as Record<string, string>[]) {
      const pub = await read("pub", headers);
      expect(pub.status).toBe(200);
      expect(await pub.json()).toMatchObject({ id: "pub", env: "@acme/times-env", done: 1, total: 4 });
    }
    for (const headers of [{ authorization: `Bearer ${token}` }, { cookie: `rubricate_token=${token}` }] as Record<string, string>[]) {
      const priv = await read("priv", headers);
      expect(priv.status).toBe(200);
      expect(await priv.json()).toMatchObject({ id: "priv", env: "@private/secret-env" });
    }
    // Refused: no token or one the registry refuses get the answer an unknown id gets, naming nothing of the eval.
    const unknown = await read("nope");
    expect(unknown.status).toBe(404);
    for (const headers of [{}, { authorization: "Bearer not-a-token" }] as Record<string, string>[]) {
      const priv = await read("priv", headers);
      expect(priv.status).toBe(404);
      const body = (await priv.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("NOT_FOUND");
      expect(JSON.stringify(body)).not.toContain("secret-env");
    }
  });

  it("never writes the token to the store or the log, and never shows a stack trace", async () => {
    const db = readFileSync(join(work, "hub.db"));
    const wal = (() => {
      try {
        return readFileSync(join(work, "hub.db-wal"));
      } catch {
        return Buffer.alloc(0);
      }
    })();
    expect(db.includes(token)).toBe(false);
    expect(wal.includes(token)).toBe(false);
    expect(store.forEnv("@acme/times-env")[0].submittedBy).toBe("alice");
    // A registry that stops answering: a clean 503 with a message, no stack, and the token not logged.
    const down = createHubApp({ registries: new RegistryClient({ registries: ["http://127.0.0.1:9/"], timeoutMs: 2000 }), store, log: (l) => logs.push(l) });
    const res = await down.request("/api/envs/@acme/times-env", { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).not.toMatch(/\bat .*\.(ts|js):\d+/);
    const html = await (await down.request("/envs/@acme/times-env")).text();
    expect(html).not.toMatch(/\bat .*\.(ts|js):\d+/);
    expect(logs.join("\n")).not.toContain(token);
  });
});
