/**
 * The hub's writes per token per minute: counted by the limiter, and refused by the app before the
 * registry is asked about the token (a refused push costs the registry nothing), with a 429, the
 * seconds to wait and the API's error shape; `hub push` takes a 429 as worth sending again.
 */
import { describe, expect, it } from "vitest";
import { pushHubResult } from "../../src/hub/push.js";
import { createHubApp } from "../../src/site/app.js";
import type { EvalRunner } from "../../src/site/evals.js";
import { RegistryClient } from "../../src/site/registry.js";
import { ResultStore } from "../../src/site/store.js";
import { WriteLimiter } from "../../src/site/write-limit.js";
import { hubResult } from "./fixtures.js";

describe("WriteLimiter", () => {
  it("lets a token make its writes in a minute, refuses the next with the seconds left, and starts again after", () => {
    let now = 1_000_000;
    const limiter = new WriteLimiter(3, () => now);
    expect([limiter.take("alice"), limiter.take("alice"), limiter.take("alice")]).toEqual([0, 0, 0]);
    now += 20_000;
    expect(limiter.take("alice")).toBe(40);
    expect(limiter.take("bob")).toBe(0);
    now += 39_500;
    expect(limiter.take("alice")).toBe(1);
    now += 500;
    expect(limiter.take("alice")).toBe(0);
  });

  it("does not count a refused write", () => {
    let now = 0;
    const limiter = new WriteLimiter(1, () => now);
    limiter.take("alice");
    for (let i = 0; i < 5; i++) expect(limiter.take("alice")).toBeGreaterThan(0);
    now = 60_000;
    expect(limiter.take("alice")).toBe(0);
    expect(limiter.take("alice")).toBe(60);
  });
});

describe("the hub's write limit", () => {
  /** A registry that knows one token (alice's) and no package, counting the questions it is asked. */
  const fakeRegistry = () => {
    const asked: string[] = [];
    const fetch = (async (url: string | URL, init?: RequestInit) => {
      asked.push(String(url));
      const auth = new Headers(init?.headers).get("authorization");
      if (String(url).endsWith("/-/whoami")) return auth === "Bearer alice-token" ? Response.json({ username: "alice" }) : new Response("{}", { status: 401 });
      return new Response("{}", { status: 404 });
    }) as typeof globalThis.fetch;
    return { asked, registries: new RegistryClient({ registries: ["http://registry.test/"], fetch }) };
  };
  const result = hubResult({ name: "@acme/times-env", version: "1.0.0", integrity: "sha512-x", model: "openai:model-a", perTask: { t01: 1 } });
  const post = (app: ReturnType<typeof createHubApp>, path: string, token: string | undefined, body: unknown) =>
    app.request(path, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });

  it("answers a token's results past its writes this minute with 429 and Retry-After, before asking the registry", async () => {
    const { asked, registries } = fakeRegistry();
    const store = new ResultStore(":memory:");
    const app = createHubApp({ registries, store, writesPerMinute: 2, now: () => 5_000 });
    // Counted whether the registry then takes the token or not: a made-up token is limited the same.
    expect((await post(app, "/api/results", "alice-token", result)).status).toBe(422); // not published there
    expect((await post(app, "/api/results", "alice-token", result)).status).toBe(422);
    const askedBefore = asked.length;
    const refused = await post(app, "/api/results", "alice-token", result);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.json()).toEqual({ error: { code: "RATE_LIMITED", message: "this token made 2 writes in the last minute, the hub's limit (hub serve --writes-per-minute): retry in 60 s" } });
    expect(asked.length).toBe(askedBefore);
    // Another token has writes of its own; no token at all is refused without a question either.
    expect((await post(app, "/api/results", "made-up-token", result)).status).toBe(401);
    expect((await post(app, "/api/results", undefined, result)).status).toBe(401);
    expect(asked.filter((u) => u.endsWith("/-/whoami"))).toHaveLength(3);
    store.close();
  });

  it("counts evals started with the same token, and 0 turns the limit off", async () => {
    const evals: EvalRunner = { models: ["mini"], busy: () => undefined, start: async () => "e1", progress: () => undefined };
    const limited = createHubApp({ registries: fakeRegistry().registries, store: new ResultStore(":memory:"), writesPerMinute: 1, evals });
    expect((await post(limited, "/api/evals", "alice-token", {})).status).toBe(422);
    expect((await post(limited, "/api/evals", "alice-token", {})).status).toBe(429);
    expect((await post(limited, "/api/results", "alice-token", result)).status).toBe(429);
    const open = createHubApp({ registries: fakeRegistry().registries, store: new ResultStore(":memory:"), writesPerMinute: 0 });
    for (let i = 0; i < 40; i++) expect((await post(open, "/api/results", "alice-token", result)).status).toBe(422);
  });

  it("hub push reads a 429 as worth sending again", async () => {
    const fetch = (async () => Response.json({ error: { code: "RATE_LIMITED", message: "retry in 60 s" } }, { status: 429, headers: { "retry-after": "60" } })) as typeof globalThis.fetch;
    await expect(pushHubResult("http://hub.test", result, { token: "alice-token", fetch })).rejects.toMatchObject({ code: "HUB_REFUSED", retryable: true, message: expect.stringContaining("HTTP 429: RATE_LIMITED: retry in 60 s") });
  });
});
