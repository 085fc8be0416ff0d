/**
 * The hub as a person uses it, in Chromium (playwright-core with the system's browser): results
 * for two models pushed through the API → the environment page shows both on the leaderboard →
 * compare them → a private environment is invisible until the visitor signs in with a registry
 * token. Screenshots at 1300 px and 390 px go to tests/output/.
 */
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { serve } from "@hono/node-server";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createHubApp } from "../../src/site/app.js";
import { RegistryClient } from "../../src/site/registry.js";
import { ResultStore } from "../../src/site/store.js";
import { ROOT } from "../helpers/cli.js";
import { chromiumNeed } from "../helpers/system.js";
import { startVerdaccio, type Registry } from "../helpers/verdaccio.js";
import { hubResult, publishEnv, tasks } from "./fixtures.js";

const OUTPUT = join(ROOT, "tests", "output");
const browserNeed = chromiumNeed();

browserNeed.describe("the hub in a browser [Verdaccio + Chromium]", () => {
  let work: string;
  let registry: Registry;
  let token: string;
  let store: ResultStore;
  let server: ReturnType<typeof serve>;
  let hub: string;
  let browser: Browser;
  let timesIntegrity: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "rubricate-hub-browser-"));
    mkdirSync(OUTPUT, { recursive: true });
    registry = await startVerdaccio(join(work, "registry"), { users: { alice: "alice-pass-1" }, privateScope: "@private" });
    token = await registry.login("alice", "alice-pass-1");
    const readme = "# Times env\n\nAsk for a product; the policy must call `multiply`.\n\n<script>window.pwned = 1</script>\n\n| criterion | meaning |\n|---|---|\n| correct | the product is right |\n";
    const integrity = await publishEnv(registry.url, token, work, { name: "@acme/times-env", version: "1.0.0", description: "Multiplication with a tool", keywords: ["rubricate-env"], rubricate: { env: "env.yaml", tasks: 10, criteria: ["correct", "uses-tool"] } }, readme);
    timesIntegrity = integrity;
    const secret = await publishEnv(registry.url, token, work, { name: "@private/secret-env", version: "1.0.0", description: "Internal support tickets", keywords: ["rubricate-env"] });
    store = new ResultStore(join(work, "hub.db"));
    const app = createHubApp({ registries: new RegistryClient({ registries: [registry.url] }), store });
    server = await new Promise((done) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => done(s));
    });
    hub = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

    // What `eval --push` sends, for two models, over HTTP with the publisher's token.
    const push = async (body: unknown) => {
      const res = await fetch(`${hub}/api/results`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
      expect(res.status, await res.clone().text()).toBe(201);
    };
    await push(hubResult({ name: "@acme/times-env", version: "1.0.0", integrity, model: "openai:gpt-4.1-mini", perTask: tasks(10, (i) => (i < 8 ? 1 : 0)), criteria: [{ id: "correct", rate: 0.8 }, { id: "uses-tool", rate: 0.9 }] }));
    await push(hubResult({ name: "@acme/times-env", version: "1.0.0", integrity, model: "anthropic:claude-haiku-4-5", perTask: tasks(10, (i) => (i < 3 ? 1 : 0)), costUsd: 0.42, criteria: [{ id: "correct", rate: 0.3 }, { id: "uses-tool", rate: 0.6 }] }));
    await push(hubResult({ name: "@private/secret-env", version: "1.0.0", integrity: secret, model: "openai:gpt-4.1-mini", perTask: tasks(6, () => 1) }));

    browser = await chromium.launch({
      executablePath: browserNeed.path,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
    store?.close();
    await registry?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** Fails when the page is wider than its viewport (a table or header pushing the layout sideways). */
  const fitsWidth = (page: Page) => page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth");

  it("list → environment page with both models → compare; private environment only after sign-in; 1300 px and 390 px", async () => {
    const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));

    await page.goto(`${hub}/`);
    await expect.poll(() => page.locator("table a").allTextContents()).toEqual(["@acme/times-env"]);
    await page.click("text=@acme/times-env");
    await page.waitForURL(/\/envs\/@acme\/times-env$/);
    const rows = page.locator('[data-testid="leaderboard"] tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toContain("openai:gpt-4.1-mini");
    expect(await rows.nth(0).innerText()).toContain("0.800");
    expect(await rows.nth(1).innerText()).toContain("anthropic:claude-haiku-4-5");
    expect(await page.getByTestId("tasks").innerText()).toBe("10");
    // The README rendered (its table), its script not run.
    expect(await page.locator(".readme table").count()).toBe(1);
    expect(await page.evaluate<unknown>("window.pwned")).toBeUndefined();
    await page.screenshot({ path: join(OUTPUT, "hub-env-1300.png"), fullPage: true });

    await page.selectOption('select[name="a"]', "openai:gpt-4.1-mini");
    await page.selectOption('select[name="b"]', "anthropic:claude-haiku-4-5");
    await page.click('#compare + form button, form[action$="#compare"] button');
    const comparison = page.getByTestId("comparison");
    await comparison.waitFor();
    const text = await comparison.innerText();
    expect(text).toContain("openai:gpt-4.1-mini − anthropic:claude-haiku-4-5: 0.500 mean reward per task");
    expect(text).toContain("10 shared tasks");
    await page.screenshot({ path: join(OUTPUT, "hub-compare-1300.png"), fullPage: true });

    // Private: not listed, not reachable, until signed in with a token the registry accepts.
    await page.goto(`${hub}/`);
    expect(await page.locator("body").innerText()).not.toContain("secret-env");
    const hidden = await page.goto(`${hub}/envs/@private/secret-env`);
    expect(hidden!.status()).toBe(404);
    await page.goto(`${hub}/login`);
    await page.fill('input[name="token"]', "not-a-token");
    await page.click("form[action='/login'] button");
    expect(await page.locator(".warn").innerText()).toContain("did not accept");
    await page.fill('input[name="token"]', token);
    await page.click("form[action='/login'] button");
    await page.waitForURL(`${hub}/`);
    expect(await page.locator("header").innerText()).toContain("signed in as alice");
    await expect.poll(() => page.locator("table a").allTextContents()).toEqual(["@acme/times-env", "@private/secret-env"]);
    const shown = await page.goto(`${hub}/envs/@private/secret-env`);
    expect(shown!.status()).toBe(200);
    expect(await page.locator('[data-testid="leaderboard"]').innerText()).toContain("openai:gpt-4.1-mini");
    await page.screenshot({ path: join(OUTPUT, "hub-private-signed-in-1300.png"), fullPage: true });
    await page.click("text=sign out");
    expect((await page.goto(`${hub}/envs/@private/secret-env`))!.status()).toBe(404);
    expect(errors).toEqual([]);
    await context.close();

    // A phone: the same pages fit 390 px (wide tables scroll inside their box).
    // Not isMobile: a mobile viewport widens itself to fit overflowing content, which would hide the overflow this checks.
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const small = await phone.newPage();
    await small.goto(`${hub}/envs/@acme/times-env?a=openai:gpt-4.1-mini&b=anthropic:claude-haiku-4-5`);
    expect(await small.locator('[data-testid="leaderboard"] tbody tr').count()).toBe(2);
    expect(await fitsWidth(small)).toBe(true);
    await small.screenshot({ path: join(OUTPUT, "hub-env-390.png"), fullPage: true });
    await small.goto(`${hub}/`);
    expect(await fitsWidth(small)).toBe(true);
    await small.screenshot({ path: join(OUTPUT, "hub-list-390.png"), fullPage: true });
    await phone.close();
  }, 120_000);

  it("the Evaluate button (signed in): queues, shows progress from the JSON endpoint, and the new row appears when done", async () => {
    // A stand-in runner (the queue path has its own test): done after three polls, storing its result then.
    let polls = 0;
    const asked: unknown[] = [];
    const evals = {
      models: ["mini", "haiku"],
      busy: () => undefined,
      start: async (r: unknown) => (asked.push(r), "eval-1"),
      progress: (id: string) => {
        polls++;
        const done = polls >= 3;
        if (polls === 3) store.add(hubResult({ name: "@acme/times-env", version: "1.0.0", integrity: timesIntegrity, model: "mini", perTask: tasks(10, (i) => (i < 9 ? 1 : 0)) }), "hub-eval:alice");
        return { id, env: "@acme/times-env", version: "1.0.0", models: ["mini"], state: done ? ("done" as const) : ("running" as const), done: Math.min(polls, 3) * 2, total: 6 };
      },
    };
    const app = createHubApp({ registries: new RegistryClient({ registries: [registry.url] }), store, evals });
    const evalServer = await new Promise<ReturnType<typeof serve>>((done) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => done(s));
    });
    const url = `http://127.0.0.1:${(evalServer.address() as { port: number }).port}`;
    try {
      const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      await page.goto(`${url}/envs/@acme/times-env`);
      expect(await page.locator("#evaluate").count()).toBe(0);
      await page.goto(`${url}/login`);
      await page.fill('input[name="token"]', token);
      await page.click("form[action='/login'] button");
      await page.waitForURL(`${url}/`);
      await page.goto(`${url}/envs/@acme/times-env`);
      await page.uncheck('#evaluate input[value="haiku"]');
      await page.click('#evaluate button[type="submit"]');
      await expect.poll(() => page.locator("#eval-progress").innerText()).toMatch(/running: [24] \/ 6 rollouts/);
      // Done: the page reloads and the hub's row is on the leaderboard, marked as the hub's own.
      await expect.poll(() => page.locator('[data-testid="leaderboard"]').innerText(), { timeout: 15_000 }).toContain("✓ hub");
      expect(await page.locator('[data-testid="leaderboard"] tbody tr').first().innerText()).toContain("mini");
      expect(asked).toEqual([expect.objectContaining({ env: "@acme/times-env", version: "1.0.0", models: ["mini"], user: "alice" })]);
      // The script ran under the page's CSP (a blocked inline script would have logged an error).
      expect(errors).toEqual([]);
      await page.screenshot({ path: join(OUTPUT, "hub-evaluated-1300.png"), fullPage: true });
      await context.close();
    } finally {
      await new Promise<void>((done) => evalServer.close(() => done()));
    }
  }, 60_000);
});
