/**
 * A rubric's own regex that is slow on a long response (RE2 is linear, but `a.{20}x` on 10,000
 * characters of a/b takes ~1.4 s on the 2-core VM) does not hold the reward server: the test runs
 * in a worker thread, and the server's event loop goes on answering other requests meanwhile.
 */
import { describe, expect, it } from "vitest";
import { parseRubric } from "../../src/rubric/load.js";
import { serveRubric } from "./rubric-server.js";

const rubric = parseRubric(["id: slow-regex", "inputs: [response]", "criteria:", "  - { id: window, check: { regex: 'a.{20}x' } }", "  - { id: has-a, check: { contains: a } }", ""].join("\n"), { filename: "slow-regex.yaml" });
/** `n` random a's and b's: RE2 builds a new state of `a.{20}x`'s automaton at almost every character. */
const ab = (n: number, seed: number) => Array.from({ length: n }, () => ((seed = (seed * 1103515245 + 12345) % 2147483648) < 1073741824 ? "a" : "b")).join("");

const served = serveRubric(rubric);

/**
 * The longest the event loop went without running a 5 ms timer while `work` ran, and how long
 * `work` took: a synchronous check holds the loop for all of its time.
 */
async function longestPause<T>(work: () => Promise<T>): Promise<{ result: T; pause: number; took: number }> {
  const started = performance.now();
  let last = started;
  let pause = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    pause = Math.max(pause, now - last);
    last = now;
  }, 5);
  try {
    const result = await work();
    pause = Math.max(pause, performance.now() - last);
    return { result, pause, took: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

describe("a rubric's costly regex on a long response", () => {
  it("runs off the event loop: the server answers /healthz while it works, and the timer never waits as long as the request", async () => {
    const url = served.url;
    const text = ab(10_000, 11);
    let answered = 0;
    let scoring = true;
    const score = fetch(`${url}/v1/score`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ samples: [{ response: text }, { response: `${text}a${"b".repeat(20)}x` }] }) }).finally(() => (scoring = false));
    const health = (async () => {
      while (scoring) {
        if ((await fetch(`${url}/healthz`)).status === 200 && scoring) answered++;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const { result: res, pause, took } = await longestPause(() => score);
    await health;
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: { verdicts: { id: string; status: string }[] }[] };
    expect(body.results.map((r) => r.verdicts.map((v) => `${v.id}:${v.status}`))).toEqual([
      ["window:unmet", "has-a:met"],
      ["window:met", "has-a:met"],
    ]);
    // On the event loop, the two tests held it for nearly the whole request (one pause ≈ the request);
    // off it, the loop turns throughout.
    expect(pause, `the longest pause, of ${Math.round(took)} ms`).toBeLessThan(took / 4);
    expect(answered, `/healthz answers while scoring, of ${Math.round(took)} ms`).toBeGreaterThan(2);
  }, 60_000);
});
