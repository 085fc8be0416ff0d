import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextGuess } from "../../examples/wordle/solver.js";
import { runEval } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import { evalMarkdown, evalReportHtml, REWARD_BINS } from "../../src/env/report.js";
import { failedCriteria } from "../../src/env/stats.js";
import type { RolloutRecord } from "../../src/env/types.js";
import { ROOT } from "../helpers/cli.js";
import { chromiumNeed } from "../helpers/system.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { connect, startWorld, type WireMessage } from "./world.js";

const OUTPUT = join(ROOT, "tests", "output");
const guessFrom = (m: WireMessage[]) => `GUESS: ${nextGuess(m.filter((x) => x.role === "user").map((x) => x.content ?? ""))}`;
const HOSTILE = "GUESS: <script>window.__pwned = 1</script>";

let server: TestServer<unknown>;
let records: RolloutRecord[];
let html: string;
let browser: Browser;
const chromiumBrowser = chromiumNeed();

beforeAll(async () => {
  server = await startWorld(
    {
      solver: guessFrom,
      // An invalid first guess, carrying markup the report must show as text; then it plays well.
      blunder: (m) => (m.some((x) => x.role === "assistant") ? guessFrom(m) : HOSTILE),
    },
    (_q, view) => !view.sample.includes("invalid"),
  );
  const env = await loadEnvironment("examples/wordle/env.yaml");
  const { engine, judge, policies } = connect(server.url, ["solver", "blunder"]);
  ({ records } = await runEval(env, { policies, engine, judge, rollouts: 2 }));
  engine.close();
  html = evalReportHtml(records, { env: env.id, subtitle: "2 models × 6 tasks × 2 rollouts" }, { passThreshold: 0.6 });
  mkdirSync(OUTPUT, { recursive: true });
  writeFileSync(join(OUTPUT, "eval-report.html"), html);
  if (!chromiumBrowser.available) return;
  browser = await chromium.launch({
    executablePath: chromiumBrowser.path,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("eval report", () => {
  it("is one self-contained file: no external reference, model text escaped", () => {
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'/);
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    expect(html).not.toContain("<script>window.__pwned");
    expect(html).toContain("&lt;script&gt;window.__pwned");
  });

  it("the markdown summary lists both models, every criterion and the paired test", () => {
    const md = evalMarkdown(records, { env: "wordle" }, { passThreshold: 0.6 });
    expect(md.match(/^\| openai-compatible:(solver|blunder)@/gm)).toHaveLength(2 + 1) // two comparison rows, one paired row;
    for (const id of ["solved", "few-guesses", "valid-guesses", "used-feedback"]) expect(md).toContain(`| ${id} |`);
    expect(md).toMatch(/yes: A better/);
  });

});

chromiumBrowser.describe("eval report in a browser", () => {
  it("in Chromium: loads without console errors, draws the right bars, filters rollouts by failed criterion", async () => {
    const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("request", (r) => {
      if (!r.url().startsWith("file:")) problems.push(`request: ${r.url()}`);
    });
    await page.goto(`file://${join(OUTPUT, "eval-report.html")}`);
    await page.screenshot({ path: join(OUTPUT, "eval-report.png"), fullPage: true });

    // Short labels, tables that fit at 1300 px: the comparison needs no horizontal scroll, and no
    // model cell wraps into a column of fragments; the full ids are listed once under it.
    const wrap = page.locator("#comparison .table-wrap");
    const [scrollWidth, clientWidth] = await wrap.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    const firstCells = page.locator("#comparison table.comparison tbody td:first-child");
    expect((await firstCells.allTextContents()).sort()).toEqual(["blunder", "solver"]);
    for (const h of await firstCells.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height))) expect(h).toBeLessThan(60);
    for (const model of new Set(records.map((r) => r.model))) expect(await page.locator("#comparison ul.models").textContent()).toContain(model);

    // Mean reward: one bar per model. Histograms: one per model, every bin a bar, counts summing to its rollouts.
    expect(await page.locator("#mean-reward svg rect.bar").count()).toBe(2);
    const histograms = page.locator("#reward-distribution svg.chart-histogram");
    expect(await histograms.count()).toBe(2);
    for (let i = 0; i < 2; i++) {
      const bars = histograms.nth(i).locator("rect.bar");
      expect(await bars.count()).toBe(REWARD_BINS);
      const counts = await bars.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-value"))));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(12);
    }
    // Criteria: models × criteria bars, side by side.
    expect(await page.locator("#criteria svg rect.bar").count()).toBe(2 * 4);
    expect(await page.locator("#criteria svg").getAttribute("data-bars")).toBe("8");

    const rows = page.locator("tr.rollout");
    const visible = () => page.locator("tr.rollout:visible").count();
    expect(await rows.count()).toBe(24);
    expect(await visible()).toBe(24);
    const failing = records.filter((r) => failedCriteria(r).includes("valid-guesses"));
    expect(failing.length).toBe(12);
    await page.selectOption("#filter-criterion", "valid-guesses");
    expect(await visible()).toBe(failing.length);
    expect(await page.locator("#shown-count").textContent()).toBe(String(failing.length));
    const models = await page.locator("tr.rollout:visible").evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute("data-model")))]);
    expect(models).toEqual([failing[0].model]);
    expect(failing[0].model).toMatch(/blunder/);
    // Combined with the model filter: the solver never failed that criterion.
    await page.selectOption("#filter-model", records.find((r) => r.model.includes("solver"))!.model);
    expect(await visible()).toBe(0);
    await page.selectOption("#filter-model", "");
    await page.selectOption("#filter-criterion", "");
    expect(await visible()).toBe(24);

    // A rollout's details show its judge reasons; the hostile text is shown, not run.
    await page.selectOption("#filter-criterion", "used-feedback");
    const first = page.locator("tr.rollout:visible").first();
    await first.locator("summary").click();
    await expect.poll(() => first.locator("details").textContent()).toMatch(/used-feedback: no/);
    expect(await first.locator("details pre").last().textContent()).toContain("<script>window.__pwned = 1</script>");
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    await page.screenshot({ path: join(OUTPUT, "eval-report-filtered.png") });
    expect(problems).toEqual([]);
    await page.close();
  });
});
