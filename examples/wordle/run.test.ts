import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../tests/helpers/cli.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEval } from "rubricate/env";
import { loadEnvironment } from "rubricate/env";
import { compareModels, failedCriteria } from "rubricate/env";
import type { Environment } from "rubricate/env";
import type { TestServer } from "rubricate/testing";
import { connect, startWorld, type WireMessage } from "../../tests/env/world.js";
import { parseGuess, pattern } from "./hooks.js";
import { nextGuess } from "./solver.js";

/** Plays from the feedback: guesses the first allowed word consistent with every pattern so far. */
const solver = (messages: WireMessage[]) => `GUESS: ${nextGuess(messages.filter((m) => m.role === "user").map((m) => m.content ?? ""))}`;

/** Ignores the feedback and makes one invalid guess. */
const FIXED = ["about", "zzzzz", "hello", "pride", "money", "smile"];
function stubborn(messages: WireMessage[]) {
  const n = messages.filter((m) => m.role === "assistant").length;
  return `Let me think. GUESS: ${FIXED[n % FIXED.length]}`;
}

/** The judge's question, answered truthfully: each valid guess fits every earlier pattern. */
function usedFeedback(log: string): boolean {
  const lines = [...log.matchAll(/^\d+\. (\S*) (\S+)/gm)].map((m) => ({ word: m[1], pattern: m[2] }));
  if (lines.some((l) => !/^[GY-]{5}$/.test(l.pattern))) return false;
  return lines.every((l, i) => lines.slice(0, i).every((prev) => pattern(prev.word, l.word) === prev.pattern));
}

let server: TestServer<unknown>;
let env: Environment;
beforeAll(async () => {
  env = await loadEnvironment("examples/wordle/env.yaml");
  server = await startWorld({ solver: (m) => solver(m), stubborn: (m) => stubborn(m) }, (_q, view) => usedFeedback(view.sample));
});
afterAll(() => server.close());

describe("wordle example", () => {
  it("scores the game's colour patterns with Wordle's repeated-letter rule", () => {
    expect(pattern("crane", "crane")).toBe("GGGGG");
    expect(pattern("vivid", "civic")).toBe("-GGG-");
    expect(pattern("lemon", "melon")).toBe("YGYGG");
    // One "e" in the secret: only the first extra "e" of the guess is yellow.
    expect(pattern("speed", "abide")).toBe("--Y-Y");
    expect(parseGuess("I think... GUESS: Crane")).toBe("crane");
  });

  it("a policy that plays from the feedback solves every game; one that ignores it scores 0", async () => {
    const { engine, judge, policies } = connect(server.url, ["solver", "stubborn"]);
    const { records } = await runEval(env, { policies, engine, judge, rollouts: 2 });
    expect(records).toHaveLength(env.tasks.length * 2 * 2);
    const solved = records.filter((r) => r.model.includes("solver"));
    for (const r of solved) {
      const guesses = r.messages.filter((m) => m.role === "assistant").length;
      expect(r.stopReason).toBe("env_done");
      expect(r.verdicts.find((v) => v.id === "used-feedback")?.status).toBe("met");
      expect(r.reward).toBeCloseTo(guesses <= 4 ? 1 : 9 / 11, 10);
      expect(r.passed).toBe(true);
    }
    // The two rollouts of a task are distinct cached calls yet the same deterministic game.
    expect(new Set(solved.map((r) => r.task)).size).toBe(env.tasks.length);
    const stubbornRecs = records.filter((r) => r.model.includes("stubborn"));
    for (const r of stubbornRecs) {
      expect(r.reward).toBe(0);
      expect(r.turns).toBe(6);
      expect(failedCriteria(r)).toEqual(["solved", "few-guesses", "valid-guesses", "used-feedback"]);
    }
    const cmp = compareModels(records, { passThreshold: env.rubric.scoring.pass_threshold });
    const [a, b] = cmp.models;
    expect(a.passAtK[2]).toBe(1);
    expect(a.passHatK[2]).toBe(1);
    expect(b.passAtK[1]).toBe(0);
    expect(cmp.pairs[0].significant).toBe(true);
    expect(cmp.pairs[0].diff).toBeGreaterThan(0.8);
    engine.close();
  });
});

describe("wordle example as a package in a clone", () => {
  // A new user's `npm test` inside the folder runs `rubricate env check .`: npm finds `rubricate` in
  // the clone's node_modules/.bin, linked by `npm install` (scripts/link-dev-bin.mjs), built or not.
  it("`npm test` in the example's folder passes", () => {
    const bin = join(ROOT, "node_modules", ".bin", "rubricate");
    expect(existsSync(bin), `${bin} is missing: run npm install at the repository root`).toBe(true);
    const r = spawnSync("npm", ["test"], { cwd: join(ROOT, "examples", "wordle"), encoding: "utf8", env: { ...process.env, CI: "" }, timeout: 120_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain("env check: ok");
  }, 150_000);
});
