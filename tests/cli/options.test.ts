import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "./helpers.js";

const RUBRIC = "tests/fixtures/cli/questions.yaml";

describe("shared CLI options (src/cli/options.ts)", () => {
  it("--errors takes only its choices in every command that has it (exit 2, choices listed)", async () => {
    const runs = await Promise.all([
      cli(["score", RUBRIC, "-", "--errors", "bogus"]),
      cli(["serve", RUBRIC, "--errors", "bogus"]),
      cli(["eval", "env.yaml", "--errors", "bogus"]),
      cli(["distill", "--errors", "bogus"]),
    ]);
    for (const r of runs) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/'bogus' is invalid. Allowed choices are null, zero, skip-criterion/);
    }
  });

  it("a typo'd command or option says what was meant, without the whole help", async () => {
    const command = await cli(["socre"]);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("(Did you mean score?)");
    expect(command.stderr).not.toContain("Commands:");
    const option = await cli(["score", RUBRIC, "-", "--concurency", "2"]);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("(Did you mean --concurrency?)");
    expect(option.stderr).not.toContain("Options:");
  });

  it("no command keeps a collect helper or spells the shared options itself", () => {
    const dir = "src/cli/commands";
    for (const f of readdirSync(dir)) {
      const text = readFileSync(join(dir, f), "utf8");
      expect(text, f).not.toMatch(/const collect\b/);
      expect(text, f).not.toMatch(/\.option\("(-j, )?--judge <|\.option\("--no-cache"|\.option\("(-c, )?--concurrency <|\.option\("--errors </);
    }
  });
});
