/**
 * How the hub answers a request it refuses: hono's own middleware refuses by throwing an
 * HTTPException (the CSRF check's 403), which must keep its status and get the hub's shape (JSON
 * under /api, the error page elsewhere) without a line in the log, as the hub's own refusals do;
 * a 5xx one (hono's timeout) keeps its status and message and is logged as one line; only a crash
 * is a 500.
 */
import { HTTPException } from "hono/http-exception";
import { timeout } from "hono/timeout";
import { describe, expect, it } from "vitest";
import { DEMO_INTEGRITY, demoHub, hubResult } from "./fixtures.js";

const FORM = { "content-type": "application/x-www-form-urlencoded" };

describe("hub serve: refusals keep their status", () => {
  it("a sign-in form posted from another site, or naming no origin, is 403 with the error page, not 500, and is not logged", async () => {
    const { app, log } = demoHub();
    for (const headers of [{ ...FORM, origin: "http://evil.example" }, FORM]) {
      const res = await app.request("/login", { method: "POST", headers, body: "token=alice-token" });
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toContain("text/html");
      const page = await res.text();
      expect(page).toContain("<title>Error");
      expect(page).toContain("only from this hub&#39;s own pages");
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    // The same form from the hub's own page signs in.
    const own = await app.request("/login", { method: "POST", headers: { ...FORM, origin: "http://localhost" }, body: "token=alice-token" });
    expect(own.status).toBe(302);
    expect(log).toEqual([]);
  });

  it("POST /api/results with Content-Type text/plain is 403 CROSS_ORIGIN in the API's shape, naming the content type to send", async () => {
    const { app, log, store } = demoHub();
    const body = JSON.stringify(hubResult({ name: "demo-env", version: "1.0.0", integrity: DEMO_INTEGRITY, model: "model-a", perTask: { t1: 1 } }));
    const res = await app.request("/api/results", { method: "POST", headers: { "content-type": "text/plain", authorization: "Bearer alice-token" }, body });
    expect(res.status).toBe(403);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("CROSS_ORIGIN");
    expect(error.message).toContain("Content-Type: application/json");
    expect(store.forEnv("demo-env")).toEqual([]);
    expect(log).toEqual([]);
  });

  it("any other refusal of hono's keeps its status and message, and a crash is still a logged 500", async () => {
    const { app, log } = demoHub();
    app.get("/api/unsupported", () => {
      throw new HTTPException(415, { message: "send JSON" });
    });
    app.get("/unsupported", () => {
      throw new HTTPException(415, { message: "send JSON" });
    });
    app.get("/api/crash", () => {
      throw new Error("a bug");
    });
    const api = await app.request("/api/unsupported");
    expect(api.status).toBe(415);
    expect(await api.json()).toEqual({ error: { code: "UNSUPPORTED_MEDIA_TYPE", message: "send JSON" } });
    const page = await app.request("/unsupported");
    expect(page.status).toBe(415);
    expect(await page.text()).toContain("send JSON");
    expect(log).toEqual([]);
    const crash = await app.request("/api/crash");
    expect(crash.status).toBe(500);
    expect(((await crash.json()) as { error: { code: string } }).error.code).toBe("INTERNAL");
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/^GET \/api\/crash: Error: a bug/);
  });

  it("a 5xx HTTPException (hono's timeout middleware's 504, a 503 with Retry-After) keeps its status, message and Retry-After, logged as one line without a stack", async () => {
    const { app, log } = demoHub();
    app.use("/api/slow", timeout(1));
    app.get("/api/slow", () => new Promise<Response>(() => {}));
    app.get("/api/maintenance", () => {
      throw new HTTPException(503, { message: "down for maintenance", res: new Response(null, { status: 503, headers: { "retry-after": "120" } }) });
    });
    app.get("/maintenance", () => {
      throw new HTTPException(503);
    });
    app.get("/api/hono-bug", () => {
      throw new HTTPException(500, { message: "Cannot clone request: body was already consumed" });
    });
    const slow = await app.request("/api/slow");
    expect(slow.status).toBe(504);
    expect(await slow.json()).toEqual({ error: { code: "TIMEOUT", message: "Gateway Timeout" } });
    const down = await app.request("/api/maintenance");
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toBe("120");
    expect(await down.json()).toEqual({ error: { code: "INTERNAL", message: "down for maintenance" } });
    const page = await app.request("/maintenance");
    expect(page.status).toBe(503);
    expect(await page.text()).toContain("the hub could not answer (HTTP 503)");
    expect(log).toEqual(["GET /api/slow: HTTP 504: Gateway Timeout", "GET /api/maintenance: HTTP 503: down for maintenance", "GET /maintenance: HTTP 503"]);
    // A 500 is the hub's own fault whoever threw it: the generic answer, the stack in the log.
    const bug = await app.request("/api/hono-bug");
    expect(bug.status).toBe(500);
    expect(await bug.json()).toEqual({ error: { code: "INTERNAL", message: "internal error (see the hub's log)" } });
    expect(log[3]).toMatch(/^GET \/api\/hono-bug: Error: Cannot clone request[^\n]*\n\s+at /);
  });
});
