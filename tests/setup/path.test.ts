import { delimiter } from "node:path";
import { describe, expect, it } from "vitest";
import { which } from "../helpers/system.js";

// vitest.config.ts drops pyenv's shims from the workers' PATH: a shim costs ~0.1 s of CPU per python3 start.
describe("the test workers' PATH", () => {
  it("has no pyenv shims, so `python3` starts the interpreter itself", () => {
    expect(process.env.PATH!.split(delimiter).filter((dir) => /pyenv.*shims/.test(dir))).toEqual([]);
    const python = which("python3");
    if (python) expect(python).not.toMatch(/shims/);
  });
});
