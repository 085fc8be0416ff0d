/**
 * The `math` check's worker as users get it: the built package (ES module and CommonJS) finds
 * dist/math-worker.js beside its chunks, compares formulas there, stops one past its limit and
 * goes on with a fresh worker, never loads mathjs in the calling thread, and lets the process
 * exit when it is done (the worker does not hold it open: execFileSync would time out).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { ROOT } from "../../helpers/cli.js";

const COMPARISONS = `[
  m.mathEquivalent("so $x = \\\\boxed{\\\\frac{1}{2}}$", "0.5"),
  m.mathEquivalent("\\\\boxed{\\\\binom{100000000000}{50000000000}}", "1", { timeoutMs: 50 }),
  m.mathEquivalent("\\\\boxed{2\\\\sqrt{2}}", "\\\\sqrt{8}"),
  m.mathEquivalent("\\\\boxed{x^2+2x+1}", "(x+1)^2"),
].map((v) => v.problem ?? v.equivalent)`;
const MATHJS_IN_CALLER = `Object.keys(require.cache).some((k) => k.includes("/node_modules/mathjs/"))`;
const EXPECTED = { verdicts: [true, "timeout", true, true], mathjsInCaller: false };

const node = (args: string[]) => JSON.parse(execFileSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", timeout: 60_000 }).trim().split("\n").pop()!);

describe("the built math check's worker", () => {
  it("serves the ES module build", () => {
    const script = `import { createRequire } from "node:module"; const require = createRequire(${JSON.stringify(join(ROOT, "package.json"))}); const m = await import(${JSON.stringify(join(inject("rubricateDist"), "checks", "index.js"))}); console.log(JSON.stringify({ verdicts: ${COMPARISONS}, mathjsInCaller: ${MATHJS_IN_CALLER} }));`;
    expect(node(["--input-type=module", "-e", script])).toEqual(EXPECTED);
  });

  it("serves the CommonJS build", () => {
    const script = `const m = require(${JSON.stringify(join(inject("rubricateDist"), "checks", "index.cjs"))}); console.log(JSON.stringify({ verdicts: ${COMPARISONS}, mathjsInCaller: ${MATHJS_IN_CALLER} }));`;
    expect(node(["-e", script])).toEqual(EXPECTED);
  });
});
