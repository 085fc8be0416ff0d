/**
 * The regex checks' worker as users get it: the built package (ES module and CommonJS) finds
 * dist/regex-worker.js beside its chunks, runs a lookaround pattern there, stops a test that
 * backtracks past its limit and goes on with a fresh worker, and lets the process exit when it is
 * done (the worker does not hold it open: execFileSync would time out).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { testRequest } from "../../src/checks/regex-worker.js";
import { ROOT } from "../helpers/cli.js";

const EVIL = JSON.stringify("a".repeat(40) + "b");
// Patterns RE2 cannot run (lookaround, a backreference): each goes to the worker.
const CHECKS = `await Promise.all([
  m.runCheck({ regex: "^(?![\\\\s\\\\S]*forbidden)" }, { response: "all fine" }),
  m.runCheck({ regex: "^(?=(a+)+$)" }, { response: ${EVIL} }),
  m.runCheck({ regex: "(\\\\w)\\\\1" }, { response: "book" }),
  m.runCheck({ regex: "(?<=x)y" }, { response: "zy" }),
]).then((verdicts) => verdicts.map((v) => v.pass ? "yes" : /backtrack past/.test(v.reasoning) ? "backtracked" : "no"))`;
const EXPECTED = ["yes", "backtracked", "yes", "no"];

const node = (args: string[]) => JSON.parse(execFileSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", timeout: 60_000 }).trim().split("\n").pop()!);

describe("the built regex worker", () => {
  it("serves the ES module build", () => {
    const script = `const m = await import(${JSON.stringify(join(inject("rubricateDist"), "checks", "index.js"))}); console.log(JSON.stringify(${CHECKS}));`;
    expect(node(["--input-type=module", "-e", script])).toEqual(EXPECTED);
  });

  it("serves the CommonJS build", () => {
    const script = `const m = require(${JSON.stringify(join(inject("rubricateDist"), "checks", "index.cjs"))}); (async () => console.log(JSON.stringify(${CHECKS})))();`;
    expect(node(["-e", script])).toEqual(EXPECTED);
  });
});

describe("a test in the worker", () => {
  it("answers as JavaScript's RegExp, says when the text overflowed the engine's stack, and throws for a pattern that does not compile", () => {
    expect(testRequest({ pattern: "(?<=a)b", flags: "", text: "ab" })).toBe("match");
    expect(testRequest({ pattern: "(?<=a)b", flags: "i", text: "cB" })).toBe("no-match");
    expect(testRequest({ pattern: "^(?:(a)|b)*$", flags: "", text: "a".repeat(5_000_000) })).toBe("overflow");
    expect(() => testRequest({ pattern: "(", flags: "", text: "" })).toThrow(SyntaxError);
  });
});
