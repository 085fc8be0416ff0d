/**
 * The regex checks' worker as users get it: the built package (ES module and CommonJS) finds
 * dist/regex-worker.js beside its chunks, runs a lookaround pattern there, stops a test that
 * backtracks past its limit and goes on with a fresh worker, loads RE2 there for a costly linear
 * test, and lets the process exit when it is done (the worker does not hold it open: execFileSync
 * would time out).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { testRequest } from "../../src/checks/regex-worker.js";
import { ROOT } from "../helpers/cli.js";

const EVIL = JSON.stringify("a".repeat(40) + "b");
// Patterns RE2 runs, estimated costly on these texts, so in the worker: the second would backtrack
// past its deadline on JavaScript's engine (the fallback were RE2 not to load there).
const WINDOW = JSON.stringify("ab".repeat(2000) + "a" + "b".repeat(20) + "x");
const NESTED = JSON.stringify("a".repeat(100));
// Patterns RE2 cannot run (lookaround, a backreference): each goes to the worker; and a costly RE2 test.
const CHECKS = `await Promise.all([
  m.runCheck({ regex: "^(?![\\\\s\\\\S]*forbidden)" }, { response: "all fine" }),
  m.runCheck({ regex: "^(?=(a+)+$)" }, { response: ${EVIL} }),
  m.runCheck({ regex: "(\\\\w)\\\\1" }, { response: "book" }),
  m.runCheck({ regex: "(?<=x)y" }, { response: "zy" }),
  m.runCheck({ regex: "a.{20}x" }, { response: ${WINDOW} }),
  m.runCheck({ regex: "(?:a+)+.{20}y" }, { response: ${NESTED} }),
]).then((verdicts) => verdicts.map((v) => v.pass ? "yes" : /backtrack past/.test(v.reasoning) ? "backtracked" : "no"))`;
const EXPECTED = ["yes", "backtracked", "yes", "no", "yes", "no"];

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

  it("on RE2 (engine re2): answers as the caller would, and says when RE2 cannot take the pattern", () => {
    expect(testRequest({ pattern: "a.{2}x", flags: "", text: "zabbx", engine: "re2" })).toBe("match");
    expect(testRequest({ pattern: "a.{2}x", flags: "i", text: "a\nbx", engine: "re2" })).toBe("no-match");
    expect(testRequest({ pattern: "(a+)+$", flags: "", text: "a".repeat(40) + "b", engine: "re2" })).toBe("no-match");
    // A lookahead RE2 refuses: the caller falls back, the worker never backtracks.
    expect(testRequest({ pattern: "^(?=(a+)+$)", flags: "", text: "aab", engine: "re2" })).toBe("refused");
  });
});
