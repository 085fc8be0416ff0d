import { describe, expect, it } from "vitest";
import { INLINING_BUDGET_FLAG, limitInlining } from "../../src/cli/compiler-budget.js";

describe("limitInlining", () => {
  const run = (execArgv: string[], nodeOptions: string) => {
    const set: string[] = [];
    const changed = limitInlining(execArgv, nodeOptions, (flags) => set.push(flags));
    return { changed, set };
  };

  it("halves V8's cumulative inlining budget when nothing else sets it", () => {
    expect(run([], "")).toEqual({ changed: true, set: [INLINING_BUDGET_FLAG] });
    expect(INLINING_BUDGET_FLAG).toBe("--max-inlined-bytecode-size-cumulative=460");
    expect(run(["--max-old-space-size=4096"], "--enable-source-maps --max-inlined-bytecode-size=200")).toEqual({ changed: true, set: [INLINING_BUDGET_FLAG] });
  });

  it("leaves the user's own setting alone, in node's arguments or NODE_OPTIONS, with dashes or underscores", () => {
    expect(run(["--max-inlined-bytecode-size-cumulative=2000"], "")).toEqual({ changed: false, set: [] });
    expect(run([], "--enable-source-maps --max_inlined_bytecode_size_cumulative=100")).toEqual({ changed: false, set: [] });
  });
});
