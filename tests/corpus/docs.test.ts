/** docs/corpus.md stays true: its ```sh commands run and succeed. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";
import { readmeCommands } from "../helpers/readme-commands.js";

const commands = readmeCommands(readFileSync(join(ROOT, "docs", "corpus.md"), "utf8"));

describe("docs/corpus.md", () => {
  it("has commands to run", () => {
    expect(commands.map((c) => c.text)).toEqual(["npx rubricate env check examples/company-docs --strict", "npx rubricate env check examples/doc-search"]);
  });

  for (const c of commands) {
    it(`line ${c.line}: ${c.text}`, () => {
      const out = execFileSync("bash", ["-c", c.text], { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
      expect(out).toMatch(/env check: ok\s*$/);
    }, 120_000);
  }
});
