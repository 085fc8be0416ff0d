import { afterEach, describe, expect, it } from "vitest";
import { compileToCommonJs, esbuildInOwnProcess, MAX_CODE_CHARS, type Compiled } from "../../../src/checks/code/compile.js";
import { loopTurnsDuring } from "../../helpers/event-loop.js";
import { HOSTILE_CODE } from "./hostile-code.js";

const ADD = "export function add(a: number, b: number): number { return a + b }";
const binaryPath = process.env.ESBUILD_BINARY_PATH;
afterEach(() => {
  if (binaryPath === undefined) delete process.env.ESBUILD_BINARY_PATH;
  else process.env.ESBUILD_BINARY_PATH = binaryPath;
});

describe("compiling a response's JavaScript and TypeScript", () => {
  it("TypeScript becomes CommonJS: types stripped, exports on module.exports; a syntax error is its first error with where it is", async () => {
    const compiled = await compileToCommonJs(ADD, "typescript");
    const module = { exports: {} as Record<string, (a: number, b: number) => number> };
    new Function("module", "exports", compiled.code!)(module, module.exports);
    expect(module.exports.add(2, 3)).toBe(5);
    expect(await compileToCommonJs("export function (: {", "typescript")).toEqual({ error: '<stdin>:1:16: Expected identifier but found "("' });
  });

  it("code nested past the limit, or over the size limit, is refused before esbuild starts", async () => {
    // esbuild cannot start here: anything that reached it would throw instead of being refused.
    process.env.ESBUILD_BINARY_PATH = "/nonexistent/esbuild";
    for (const { name, code } of HOSTILE_CODE) {
      expect(await compileToCommonJs(code, "javascript"), name).toEqual({ error: "nested more than 1,000 levels deep (the limit; real code nests a few dozen)" });
    }
    const big = "x = 1;\n".repeat(Math.ceil(MAX_CODE_CHARS / 7) + 1);
    expect(await compileToCommonJs(big, "typescript")).toEqual({ error: `${big.length.toLocaleString("en-US")} characters, over the limit of 1,048,576` });
    await expect(compileToCommonJs("x = " + "(".repeat(999) + ")".repeat(999), "javascript")).rejects.toMatchObject({ code: "CHECK_FAILED", message: expect.stringContaining("esbuild could not start") });
  });

  it("the event loop turns while esbuild works: 5,000 duplicate keys on one line (its API held the caller 2.6 s with 200 MB of warnings)", async () => {
    const code = "const m = {" + "a: 1, ".repeat(5000) + "}; export function f() { return m.a }";
    const { result, turns } = await loopTurnsDuring(() => compileToCommonJs(code, "javascript"));
    expect(result.error).toBeUndefined();
    expect(result.code).toContain("function f()");
    // A synchronous compile would have held the loop: not one turn until it returned.
    expect(turns).toBeGreaterThan(0);
  });

  it("only the first error comes back: 8,000 strict-mode errors on one line (esbuild's API returned each with the whole line, ~640 MB)", async () => {
    const code = '"use strict";' + "x=01;".repeat(8000);
    expect(await compileToCommonJs(code, "javascript")).toEqual({ error: "<stdin>:1:15: Legacy octal literals cannot be used in strict mode" });
  });

  it("a compile that goes on past its time is killed and fails; the next one compiles", async () => {
    // Errors by the thousand take esbuild quadratic time: 100,000 of them, minutes.
    const slow = '"use strict";\n' + "x=01;\n".repeat(100_000);
    expect(await esbuildInOwnProcess(slow, "js", 300)).toEqual({ error: "compiling took longer than 300 ms" });
    expect((await compileToCommonJs(ADD, "typescript")).code).toContain("add");
  });

  it("compiled code past its byte limit fails, however much esbuild writes", async () => {
    // esbuild escapes each ꙮ as \uA66E: 1.5 million of them compile to 9 MB, past the 8 MiB read.
    const wide = "x='" + "ꙮ".repeat(1_500_000) + "'";
    expect(await esbuildInOwnProcess(wide, "js")).toEqual({ error: "the compiled code is over 8,388,608 bytes" });
  });

  it("esbuild dying on one code fails that compile alone: the compiles in flight beside it, until it dies, succeed", async () => {
    // 300,000 `!` overflow esbuild's stack (the nesting limit refuses them before; here they reach it).
    let dying = true;
    const crasher = esbuildInOwnProcess("x=" + "!".repeat(300_000) + "1", "js").finally(() => (dying = false));
    const beside: Compiled[] = [];
    const keepCompiling = async (language: "javascript" | "typescript") => {
      do beside.push(await compileToCommonJs(`export const f = (x) => x + ${beside.length}`, language));
      while (dying);
    };
    await Promise.all([keepCompiling("javascript"), keepCompiling("typescript")]);
    expect((await crasher).error).toMatch(/^esbuild stopped: .*stack/);
    expect(beside.length).toBeGreaterThan(2);
    for (const compiled of beside) expect(compiled.error).toBeUndefined();
  }, 60_000);
});
