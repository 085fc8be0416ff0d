/**
 * The hub's limits: writes per token per minute, refused before the registry is asked about the
 * token (a refused push costs the registry nothing); and tokens the registry has not accepted per
 * client address per minute, so the hub is no relay for guessing tokens, on any route (sign-in,
 * API reads and writes, pages with a cookie). Both answer 429 with the seconds to wait and the
 * API's error shape; `hub push` takes a 429 as worth sending again.
 */
import { serve } from "@hono/node-server";
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { pushHubResult } from "../../src/hub/push.js";
import { createHubApp } from "../../src/site/app.js";
import type { EvalRunner } from "../../src/site/evals.js";
import { RegistryClient } from "../../src/site/registry.js";
import { ResultStore } from "../../src/site/store.js";
import { addressKey, MinuteLimit } from "../../src/site/limits.js";
import { needs, runs } from "../helpers/system.js";
import { hubResult } from "./fixtures.js";

/**
 * Two loopback source addresses besides 127.0.0.1, for the test of the connection's own address:
 * Linux routes all of 127/8 to lo; macOS answers only 127.0.0.1 unless aliases are added.
 */
const loopbackAliases = needs(
  "the loopback alias 127.0.0.2/127.0.0.3",
  () => runs(process.execPath, ["-e", `const net = require("node:net"); let bound = 0; for (const host of ["127.0.0.2", "127.0.0.3"]) { const s = net.createServer().on("error", () => process.exit(1)).listen(0, host, () => { s.close(); if (++bound === 2) process.exit(0); }); }`]),
  "on macOS: sudo ifconfig lo0 alias 127.0.0.2 up && sudo ifconfig lo0 alias 127.0.0.3 up",
);

/** A registry that knows one token (alice's) and no package, counting the questions it is asked. */
function fakeRegistry() {
  const asked: string[] = [];
  const fetch = (async (url: string | URL, init?: RequestInit) => {
    asked.push(String(url));
    const alice = new Headers(init?.headers).get("authorization") === "Bearer alice-token";
    if (String(url).endsWith("/-/whoami")) return alice ? Response.json({ username: "alice" }) : new Response("{}", { status: 401 });
    return new Response("{}", { status: 404 });
  }) as typeof globalThis.fetch;
  return { asked, registries: new RegistryClient({ registries: ["http://registry.test/"], fetch }) };
}

describe("MinuteLimit", () => {
  it("lets a key have its events in a minute, refuses the next with the seconds left, and starts again after", () => {
    let now = 1_000_000;
    const limiter = new MinuteLimit(3, () => now);
    expect([limiter.take("alice"), limiter.take("alice"), limiter.take("alice")]).toEqual([0, 0, 0]);
    now += 20_000;
    expect(limiter.take("alice")).toBe(40);
    expect(limiter.take("bob")).toBe(0);
    now += 39_500;
    expect(limiter.take("alice")).toBe(1);
    now += 500;
    expect(limiter.take("alice")).toBe(0);
  });

  it("does not count a refused event", () => {
    let now = 0;
    const limiter = new MinuteLimit(1, () => now);
    limiter.take("alice");
    for (let i = 0; i < 5; i++) expect(limiter.take("alice")).toBeGreaterThan(0);
    now = 60_000;
    expect(limiter.take("alice")).toBe(0);
    expect(limiter.take("alice")).toBe(60);
  });

  it("takes back an event given back in its minute, and only in it", () => {
    let now = 0;
    const limiter = new MinuteLimit(2, () => now);
    expect([limiter.take("a"), limiter.take("a")]).toEqual([0, 0]);
    limiter.give("a");
    expect(limiter.take("a")).toBe(0);
    expect(limiter.take("a")).toBe(60);
    // A give for a key never counted, or after its minute ended, gives nothing to the next minute.
    limiter.give("b");
    expect([limiter.take("b"), limiter.take("b"), limiter.take("b")]).toEqual([0, 0, 60]);
    now = 60_000;
    limiter.give("a");
    expect([limiter.take("a"), limiter.take("a"), limiter.take("a")]).toEqual([0, 0, 60]);
  });
});

describe("addressKey", () => {
  it("counts an IPv6 host by its /64, an IPv4 client seen through IPv6 as IPv4, and anything else as itself", () => {
    // One subscriber's /64, however the address is written (compressed, full, zone id): one key.
    const home = ["2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:fffe", "2001:0db8:0001:0002:0000:0000:0000:0009", "2001:DB8:1:2::abcd"];
    expect(new Set(home.map(addressKey))).toEqual(new Set(["2001:db8:1:2::/64"]));
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    // The next /64 over, and another network, are others.
    expect(addressKey("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("unknown")).toBe("unknown");
    expect(addressKey("not an address, or a header's junk")).toBe("not an address, or a header's junk");
  });
});

describe("the hub's write limit", () => {
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

describe("the hub's limit on unknown tokens per address", () => {
  const app = (unknownTokensPerMinute: number, registries = fakeRegistry().registries) =>
    createHubApp({ registries, store: new ResultStore(":memory:"), unknownTokensPerMinute, clientIpHeader: "x-forwarded-for", now: () => 1_000 });
  const get = (hub: ReturnType<typeof createHubApp>, path: string, token: string, from: string, cookie = false) =>
    hub.request(path, { headers: { "x-forwarded-for": from, ...(cookie ? { cookie: `rubricate_token=${token}` } : { authorization: `Bearer ${token}` }) } });
  const whoamis = (asked: string[]) => asked.filter((u) => u.endsWith("/-/whoami")).length;

  it("refuses an address's guesses past its count, on the API's reads too, before the registry is asked", async () => {
    const { asked, registries } = fakeRegistry();
    const hub = app(3, registries);
    for (const guess of ["guess-1", "guess-2", "guess-3"]) expect((await get(hub, "/api/envs/@acme/private-env", guess, "203.0.113.7")).status).toBe(404);
    const before = asked.length;
    const refused = await get(hub, "/api/envs/@acme/private-env", "guess-4", "203.0.113.7");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.json()).toEqual({
      error: { code: "RATE_LIMITED", message: "this address presented 3 tokens the registry had not accepted in the last minute, the hub's limit (hub serve --unknown-tokens-per-minute): retry in 60 s" },
    });
    // Neither whoami nor the package document: a limited guess tells the guesser nothing.
    expect(asked.length).toBe(before);
    // A write with a guessed token is refused the same way, and so is a page with a guessed cookie (HTML, no trace).
    const write = await hub.request("/api/results", { method: "POST", headers: { "x-forwarded-for": "203.0.113.7", authorization: "Bearer guess-5", "content-type": "application/json" }, body: "{}" });
    expect(write.status).toBe(429);
    const page = await get(hub, "/", "guess-6", "203.0.113.7", true);
    expect(page.status).toBe(429);
    expect(await page.text()).toContain("--unknown-tokens-per-minute");
    expect(asked.length).toBe(before);
    // Another address has its own count; the header's last entry is the proxy's word, so a visitor cannot pick its own.
    expect((await get(hub, "/api/envs/@acme/private-env", "guess-7", "203.0.113.8")).status).toBe(404);
    // An IPv6 host that takes a fresh address per guess stays in its /64's count.
    for (const host of ["1", "2", "3"]) expect((await get(hub, "/api/envs/@acme/private-env", `guess-v6-${host}`, `2001:db8:7:7::${host}`)).status).toBe(404);
    expect((await get(hub, "/api/envs/@acme/private-env", "guess-v6-4", "2001:db8:7:7:dead:beef::4")).status).toBe(429);
    expect((await get(hub, "/api/envs/@acme/private-env", "guess-8", "198.51.100.1, 203.0.113.7")).status).toBe(429);
  });

  it("asks once per request, gives a token the registry accepts its count back, and lets it through once over", async () => {
    const { asked, registries } = fakeRegistry();
    const hub = app(1, registries);
    // alice signs in from the address (counted, then given back: accepted), so a guess still has its one try.
    expect((await get(hub, "/api/envs/@acme/private-env", "alice-token", "203.0.113.9")).status).toBe(404);
    expect(whoamis(asked)).toBe(1);
    expect((await get(hub, "/api/envs/@acme/private-env", "guess-1", "203.0.113.9")).status).toBe(404);
    expect((await get(hub, "/api/envs/@acme/private-env", "guess-2", "203.0.113.9")).status).toBe(429);
    // A token accepted lately is not counted: alice goes on from the limited address, the registry still deciding.
    expect((await get(hub, "/api/envs/@acme/private-env", "alice-token", "203.0.113.9")).status).toBe(404);
    const before = whoamis(asked);
    // A write with a new unknown token from a fresh address: the gate's question is the write's too.
    const write = await hub.request("/api/results", { method: "POST", headers: { "x-forwarded-for": "203.0.113.10", authorization: "Bearer guess-3", "content-type": "application/json" }, body: "{}" });
    expect(write.status).toBe(401);
    expect(whoamis(asked)).toBe(before + 1);
  });

  it("limits sign-in by the form's token", async () => {
    const { asked, registries } = fakeRegistry();
    const hub = app(2, registries);
    const signIn = (token: string) =>
      hub.request("http://hub.test/login", { method: "POST", headers: { "x-forwarded-for": "203.0.113.11", origin: "http://hub.test", "content-type": "application/x-www-form-urlencoded" }, body: `token=${token}` });
    expect((await signIn("guess-1")).status).toBe(401);
    expect((await signIn("guess-2")).status).toBe(401);
    const refused = await signIn("guess-3");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.text()).toContain("Too many tokens the registry did not accept came from your address");
    expect(whoamis(asked)).toBe(2);
  });

  it("0 turns it off: a read passes its token straight to the registry, as before the limit, with no whoami at all", async () => {
    const { asked, registries } = fakeRegistry();
    const open = app(0, registries);
    for (let i = 0; i < 20; i++) expect((await get(open, "/api/envs/@acme/private-env", `guess-${i}`, "203.0.113.12")).status).toBe(404);
    expect(whoamis(asked)).toBe(0);
    expect(asked).toHaveLength(20);
  });

  loopbackAliases.describe("without a proxy header named", () => {
    it("counts by the connection's own address", async () => {
      const { registries } = fakeRegistry();
      const hub = createHubApp({ registries, store: new ResultStore(":memory:"), unknownTokensPerMinute: 1 });
      const server = serve({ fetch: hub.fetch, port: 0, hostname: "127.0.0.1" });
      await new Promise((done) => server.once("listening", done));
      const port = (server.address() as AddressInfo).port;
      const status = (token: string, from: string, forwardedFor?: string) =>
        new Promise<number>((done, fail) => {
          const req = httpRequest({ host: "127.0.0.1", port, path: "/api/envs/@acme/private-env", localAddress: from, headers: { authorization: `Bearer ${token}`, ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) } }, (res) => {
            res.resume();
            done(res.statusCode!);
          });
          req.on("error", fail).end();
        });
      try {
        expect(await status("guess-1", "127.0.0.2")).toBe(404);
        expect(await status("guess-2", "127.0.0.2")).toBe(429);
        expect(await status("guess-3", "127.0.0.3")).toBe(404);
        // A forwarded header counts for nothing unless the operator named it.
        expect(await status("guess-4", "127.0.0.3", "198.51.100.77")).toBe(429);
      } finally {
        await new Promise((done) => server.close(done));
      }
    });
  });
});
