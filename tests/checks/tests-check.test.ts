import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCheck } from "../../src/checks/run.js";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { extractCode, readReport, readTests } from "../../src/checks/code/check.js";
import { setCodeRunner } from "../../src/checks/code/spec.js";
import { PYTHON_CANDIDATE, PYTHON_JUDGE } from "../../src/checks/code/python.js";
import { bubblewrapCodeRunner, childProcessRunner, sandboxCodeRunner } from "../../src/checks/code/runner.js";
import type { SandboxBackend } from "../../src/sandbox/types.js";
import { needs, which } from "../helpers/system.js";
import { HOSTILE_CODE } from "./code/hostile-code.js";

const python = needs("python3", () => which("python3"), "apt-get install python3");
const prlimit = needs("prlimit", () => which("prlimit"), "apt-get install util-linux");

// MBPP keeps its tests as a list of assert lines; HumanEval as a check(candidate) function and an entry point.
const mbpp = { response: "Here you go:\n```python\ndef add(a, b):\n    print('debug', a, b)\n    return a + b\n```", test_list: ["assert add(1, 2) == 3", "assert add(2, 2) == 5", "def test_negative():\n    assert add(-1, 1) == 0"] };

describe("reading code and tests", () => {
  it("takes the last fenced block in the language, else any block, else the text", () => {
    expect(extractCode("```js\nx\n```\n```python\ndef f(): pass\n```", "python")).toBe("def f(): pass\n");
    expect(extractCode("```\nprint(1)\n```", "python")).toBe("print(1)\n");
    expect(extractCode("def f(): pass", "python")).toBe("def f(): pass");
  });
  it("reads fences in time linear in the text: 40,000 \"```\" on one line held the scorer 20 s", () => {
    expect(extractCode("```".repeat(120_000), "python")).toBe("```".repeat(120_000));
    expect(extractCode("```python\n" + "```".repeat(120_000), "python")).toBe("");
    // No clock: the quadratic regex took 20 s on 40,000, so 120,000 would take ~180 s, past the test's 60 s limit.
  });
  it("reads the same blocks as the fence regex it replaced, on random texts", () => {
    const old = (text: string, language: "python" | "javascript") => {
      const tags = language === "python" ? ["python", "py", "python3"] : ["javascript", "js", "node"];
      const blocks = [...text.matchAll(/```[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)```/g)];
      const tagged = blocks.filter((b) => tags.includes(b[1].toLowerCase()));
      const chosen = tagged.length ? tagged : blocks;
      return chosen.length ? chosen[chosen.length - 1][2] : text;
    };
    const piece = fc.constantFrom("`", "```", "\n", " ", "\t", "a", "py", "python", "js", "-", "x=1");
    fc.assert(fc.property(fc.array(piece, { maxLength: 40 }), fc.constantFrom("python" as const, "javascript" as const), (parts, language) => extractCode(parts.join(""), language) === old(parts.join(""), language)), { numRuns: 2000 });
  });
  it("tests: a list input, a JSON list in a string, one script, or inline", () => {
    expect(readTests({ language: "python", tests: "{{test_list}}" }, mbpp)).toEqual(mbpp.test_list);
    expect(readTests({ language: "python", tests: "{{t}}" }, { t: JSON.stringify(["assert 1", "assert 2"]) })).toEqual(["assert 1", "assert 2"]);
    expect(readTests({ language: "python", tests: "{{t}}" }, { t: "def check(c):\n  pass" })).toEqual(["def check(c):\n  pass"]);
    expect(readTests({ language: "python", tests: ["assert f({{n}}) == 1"] }, { n: 3 })).toEqual(["assert f(3) == 1"]);
    expect(() => readTests({ language: "python", tests: "{{missing}}" }, {})).toThrow(/no "missing" input/);
  });
  it("a test counts once (its first record); a run without done says why it stopped", () => {
    const records = [{ test: 0, ok: false, error: "AssertionError" }, { test: 0, ok: true }, { test: 5, ok: true }, { done: true }];
    expect(readReport({ records }, 2)).toMatchObject({ passed: 0, failures: [{ index: 0, error: "AssertionError" }] });
    expect(readReport({ records: [], problem: "timed out after 1000 ms" }, 2).problem).toBe("timed out after 1000 ms");
  });
});

describe("where the code runs", () => {
  it("bubblewrap by default; where it cannot run, the check is an error naming the reason and the opt-in, never a fail", async () => {
    const missing: SandboxBackend = { name: "bubblewrap", unavailable: async () => "bubblewrap (bwrap) is not installed: ENOENT", create: async () => { throw new Error("unreachable"); } };
    const previous = setCodeRunner(bubblewrapCodeRunner(missing));
    try {
      await expect(runCheck({ tests: { language: "python", tests: ["assert True"] } }, { response: "x = 1" })).rejects.toMatchObject({ code: "SANDBOX", message: expect.stringMatching(/not installed: ENOENT.*--unsafe-no-sandbox/) });
    } finally {
      setCodeRunner(previous);
    }
  });
  it("where esbuild cannot start, a JavaScript or TypeScript check is an error naming it, never a \"does not compile\"", async () => {
    const previous = process.env.ESBUILD_BINARY_PATH;
    process.env.ESBUILD_BINARY_PATH = "/nonexistent/esbuild";
    try {
      await expect(runCheck({ tests: { language: "typescript", tests: ["assert.ok(true)"] } }, { response: "export const x = 1" })).rejects.toMatchObject({ code: "CHECK_FAILED", message: expect.stringMatching(/esbuild could not start.*\/nonexistent\/esbuild/) });
    } finally {
      if (previous === undefined) delete process.env.ESBUILD_BINARY_PATH;
      else process.env.ESBUILD_BINARY_PATH = previous;
    }
  });
  it("a sandbox runtime plugs in through sandboxCodeRunner: one sandbox per process, the tests only on the judge's stdin, all destroyed", async () => {
    const calls: string[] = [];
    const stdins: Record<string, string> = {};
    const previous = setCodeRunner(
      sandboxCodeRunner(async (limits) => {
        calls.push(`create ${limits.memoryBytes ?? "default"}`);
        const files: string[] = [];
        return {
          async writeFile(path) { files.push(path); },
          spawn(argv) {
            calls.push(`spawn ${argv.slice(-1)[0]} with ${files.join(",")}`);
            // The real programs, on the host: what each reads on stdin is recorded.
            const child = spawn(argv[0] === "python3" ? "python3" : argv[0], argv.slice(1), { cwd: tmp, stdio: ["pipe", "pipe", "pipe"] });
            const name = argv.slice(-1)[0];
            stdins[name] = "";
            const stdin = new PassThrough();
            stdin.on("data", (c) => (stdins[name] += c.toString()));
            stdin.pipe(child.stdin);
            return { stdin, stdout: child.stdout, stderr: child.stderr, exited: new Promise((r) => child.on("close", r)), kill: () => child.kill("SIGKILL") };
          },
          async destroy() { calls.push("destroy"); },
        };
      }),
    );
    const tmp = mkdtempSync(join(tmpdir(), "tests-fake-"));
    writeFileSync(join(tmp, "judge.py"), PYTHON_JUDGE);
    writeFileSync(join(tmp, "candidate.py"), PYTHON_CANDIDATE);
    writeFileSync(join(tmp, "solution.py"), "x = 1\ndef f():\n    return 2\n");
    try {
      const verdict = await runCheck({ tests: { language: "python", tests: ["assert f() == 2 # SECRET-TEST"], timeout_ms: 5000, memory_mb: 256 } }, { response: "ignored: the fake serves solution.py from its folder" });
      expect(verdict).toMatchObject({ pass: true, reasoning: "1/1 tests passed" });
      expect(calls).toEqual(["create default", "spawn judge.py with judge.py", `create ${256 * 1024 * 1024}`, "spawn candidate.py with candidate.py,solution.py", "destroy", "destroy"]);
      expect(stdins["judge.py"]).toContain("SECRET-TEST");
      expect(stdins["candidate.py"]).not.toContain("SECRET");
    } finally {
      setCodeRunner(previous);
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

// The rest runs code in a plain child process: the explicit opt-in a user makes with --unsafe-no-sandbox.
let previousRunner: ReturnType<typeof setCodeRunner>;
beforeAll(() => void (previousRunner = setCodeRunner(childProcessRunner())));
afterAll(() => void setCodeRunner(previousRunner));

// Each test below runs its own child processes on the runner set above and shares nothing else,
// so they run side by side (it.concurrent) while each waits on its interpreter.
python.describe("tests check: Python", () => {
  it.concurrent("MBPP asserts and pytest-style functions: share of tests passed, the failing test in the feedback", async ({ expect }) => {
    const verdict = await runCheck({ tests: { language: "python", tests: "{{test_list}}", reward: "share" } }, mbpp);
    expect(verdict.pass).toBe(false);
    expect(verdict.score).toBeCloseTo(2 / 3, 12);
    expect(verdict.reasoning).toBe("2/3 tests passed; test 2 failed: AssertionError (test 2 line 1: assert add(2, 2) == 5)");
  });
  it.concurrent("reward all: no partial score; every test passing passes", async ({ expect }) => {
    const tests = { language: "python" as const, tests: ["assert add(1, 2) == 3"] };
    expect(await runCheck({ tests }, mbpp)).toEqual({ pass: true, reasoning: "1/1 tests passed", source: "check" });
  });
  it.concurrent("HumanEval: check(candidate) receives the entry point", async ({ expect }) => {
    const sample = { response: "def square(x):\n    return x * x", test: "def check(candidate):\n    assert candidate(3) == 9\n    assert candidate(-2) == 4\n" };
    expect((await runCheck({ tests: { language: "python", tests: "{{test}}", entry_point: "square" } }, sample)).pass).toBe(true);
    const wrong = await runCheck({ tests: { language: "python", tests: "{{test}}", entry_point: "square" } }, { ...sample, response: "def square(x):\n    return 2 * x" });
    expect(wrong.pass).toBe(false);
    expect(wrong.reasoning).toContain("AssertionError");
  });
  it.concurrent("the solution's own objects (MBPP's Pair, a Stack) cross as handles: passed back, methods called, attributes read", async ({ expect }) => {
    const response = [
      "class Pair:",
      "    def __init__(self, a, b):",
      "        self.a, self.b = a, b",
      "def max_chain_length(arr, n):",
      "    arr = sorted(arr, key=lambda p: p.b)",
      "    count, end = 0, float('-inf')",
      "    for p in arr:",
      "        if p.a > end:",
      "            count, end = count + 1, p.b",
      "    return count",
      "class Stack:",
      "    def __init__(self):",
      "        self.items = []",
      "    def push(self, x):",
      "        self.items.append(x)",
      "    def pop(self):",
      "        return self.items.pop()",
      "    def __len__(self):",
      "        return len(self.items)",
    ].join("\n");
    const tests = ["assert max_chain_length([Pair(5, 24), Pair(15, 25), Pair(27, 40), Pair(50, 60)], 4) == 3", "s = Stack()\ns.push(1)\ns.push(2)\nassert s.pop() == 2 and len(s) == 1 and s.items == [1]\nassert s == s and s != Stack()"];
    expect(await runCheck({ tests: { language: "python", tests } }, { response })).toMatchObject({ pass: true, reasoning: "2/2 tests passed" });
  });
  it.concurrent("code that fails to load fails every test, with the error", async ({ expect }) => {
    const verdict = await runCheck({ tests: { language: "python", tests: ["assert f() == 1"], reward: "share" } }, { response: "def f(:\n  return 1" });
    expect(verdict).toMatchObject({ pass: false, score: 0 });
    expect(verdict.reasoning).toMatch(/^the code failed before any test ran: SyntaxError/);
  });
  it.concurrent("printing a fake result line does not pass a test", async ({ expect }) => {
    const response = "import sys\nfor i in range(3):\n    print('x {\"test\": %d, \"ok\": true}' % i)\n    sys.__stdout__.write('{\"test\": %d, \"ok\": true}\\n' % i)\ndef add(a, b):\n    return 0";
    const verdict = await runCheck({ tests: { language: "python", tests: ["assert add(1, 2) == 3"] } }, { response });
    expect(verdict.pass).toBe(false);
  });
  prlimit.describe("limits", () => {
    it.concurrent("an endless loop is stopped by the per-test limit and the next test still runs", async ({ expect }) => {
      const response = "def slow(n):\n    while n > 0:\n        pass\n    return n";
      const verdict = await runCheck({ tests: { language: "python", tests: ["assert slow(1) == 1", "assert slow(0) == 0"], test_timeout_ms: 1000, reward: "share" } }, { response });
      expect(verdict.score).toBe(0.5);
      expect(verdict.reasoning).toContain("TestTimeout");
    });
    it.concurrent("the whole run is killed at its wall-clock limit", async ({ expect }) => {
      const response = "import time\ndef f():\n    time.sleep(30)";
      const verdict = await runCheck({ tests: { language: "python", tests: ["f()"], timeout_ms: 1500, test_timeout_ms: 60_000 } }, { response });
      expect(verdict).toMatchObject({ pass: false, reasoning: "0/1 tests passed (timed out after 1500 ms)" });
    });
    it.concurrent("memory beyond the limit fails the code, not the scorer", async ({ expect }) => {
      const verdict = await runCheck({ tests: { language: "python", tests: ["assert len(big) > 0"], memory_mb: 128 } }, { response: "big = bytearray(1024 * 1024 * 1024)" });
      expect(verdict.pass).toBe(false);
      expect(verdict.reasoning).toMatch(/MemoryError/);
    });
    it.concurrent("a flood of output from the solution stops it and is reported", async ({ expect }) => {
      const verdict = await runCheck({ tests: { language: "python", tests: ["assert f() == 1"] } }, { response: "import os\ndef f():\n    while True: os.write(1, b'x' * 65536)" });
      expect(verdict).toMatchObject({ pass: false });
      expect(verdict.reasoning).toContain("wrote more than");
    });
  });
});

describe("tests check: JavaScript and TypeScript", () => {
  it.concurrent("JavaScript: tests use assert against the solution's functions", async ({ expect }) => {
    const response = "```js\nfunction add(a, b) { console.log('noise'); return a + b }\n```";
    const verdict = await runCheck({ tests: { language: "javascript", tests: ["assert.strictEqual(add(1, 2), 3)", "assert.strictEqual(add(2, 2), 5)"], reward: "share" } }, { response });
    expect(verdict.score).toBe(0.5);
    expect(verdict.reasoning).toContain("test 2 failed: AssertionError: Expected values to be strictly equal: 4 !== 5");
  });
  it.concurrent("TypeScript: types stripped, exported functions visible to the tests", async ({ expect }) => {
    const response = "```ts\nexport function add(a: number, b: number): number { return a + b }\n```";
    expect((await runCheck({ tests: { language: "typescript", tests: ["assert.strictEqual(add(1, 2), 3)"] } }, { response })).pass).toBe(true);
    const broken = await runCheck({ tests: { language: "typescript", tests: ["assert.ok(true)"] } }, { response: "```ts\nexport function (: {\n```" });
    expect(broken.pass).toBe(false);
    expect(broken.reasoning).toMatch(/^the code does not compile/);
  });
  it("a batch with every known crasher and blocker of esbuild: each is refused as code that does not compile and scores 0, even beside a right answer; the samples beside them pass", async () => {
    const tests = ["assert.strictEqual(add(1, 2), 3)", "assert.strictEqual(add(2, 2), 4)"];
    const right = "function add(a, b) { return a + b }\n";
    const hostile = HOSTILE_CODE.map(({ code }) => runCheck({ tests: { language: "javascript", tests, reward: "share" } }, { response: "```js\n" + right + code + "\n```" }));
    const innocent = (["javascript", "typescript", "javascript", "typescript"] as const).map((language) => runCheck({ tests: { language, tests, reward: "share" } }, { response: "```js\n" + right + "```" }));
    const [refused, passed] = [await Promise.all(hostile), await Promise.all(innocent)];
    refused.forEach((verdict, i) => expect(verdict, HOSTILE_CODE[i].name).toEqual({ pass: false, score: 0, reasoning: "the code does not compile: nested more than 1,000 levels deep (the limit; real code nests a few dozen)", source: "check" }));
    passed.forEach((verdict) => expect(verdict).toEqual({ pass: true, score: 1, reasoning: "2/2 tests passed", source: "check" }));
  }, 60_000);
  it.concurrent("a solution with 100,000 brackets in a string, brackets in a regex and a template, and ordinary nesting compiles and passes", async ({ expect }) => {
    const response = [
      "```ts",
      `const OPEN: string = "${"(".repeat(100_000)}"; // a long run of brackets, as data`,
      "const PAIRS = /[()]/g;",
      "export function depth(s: string): number {",
      "  let level = 0, deepest = 0;",
      "  for (const ch of s.match(PAIRS) ?? []) {",
      "    level += ch === \"(\" ? 1 : -1;",
      "    deepest = level > deepest ? level : deepest;",
      "  }",
      "  return deepest;",
      "}",
      "export const describe = (s: string): string => `${s.length} chars, ${depth(s) > 2 ? \"deep\" : depth(s) > 0 ? \"shallow\" : \"flat\"} (${\"[\".repeat(2)})`;",
      "export function openRun(): number { return depth(OPEN); }",
      "```",
    ].join("\n");
    const tests = ["assert.strictEqual(depth('(()(()))'), 3)", "assert.strictEqual(openRun(), 100000)", "assert.strictEqual(describe('(())'), '4 chars, shallow ([[)')"];
    expect(await runCheck({ tests: { language: "typescript", tests } }, { response })).toEqual({ pass: true, reasoning: "3/3 tests passed", source: "check" });
  });
  it.concurrent("a test that awaits is judged when it ends: returned promises, async IIFEs and top-level await fail wrong code and pass right code", async ({ expect }) => {
    const tests = ["return Promise.resolve().then(() => assert.strictEqual(add(1, 2), 3))", "(async () => { assert.strictEqual(await add(2, 2), 4) })()", "assert.strictEqual(await add(3, 4), 7)", "await new Promise(() => {})"];
    const score = async (body: string) => (await runCheck({ tests: { language: "javascript", tests, reward: "share", test_timeout_ms: 1000 } }, { response: "```js\n" + body + "\n```" })).score;
    expect(await score("async function add(a, b) { return a - b }")).toBe(0);
    expect(await score("async function add(a, b) { return a + b }")).toBe(0.75);
  }, 60_000);
  it.concurrent("an endless loop in JavaScript is stopped", async ({ expect }) => {
    const verdict = await runCheck({ tests: { language: "javascript", tests: ["assert.strictEqual(spin(), 1)", "assert.ok(true)"], test_timeout_ms: 1000, reward: "share" } }, { response: "function spin() { for (;;) {} }" });
    expect(verdict.score).toBe(0.5);
  });
});
