import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Command, Help } from "commander";
import { describe, expect, it } from "vitest";
import { commandAsked, COMMANDS, registerCommandTable } from "../../src/cli/commands.js";
import { ROOT } from "../helpers/cli.js";

describe("the command table", () => {
  it("has one entry per command module, and each entry says what its module registers", async () => {
    const modules = readdirSync(join(ROOT, "src/cli/commands")).map((f) => f.replace(/\.ts$/, "")).sort();
    expect(Object.keys(COMMANDS).sort()).toEqual(modules);
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const program = new Command("rubricate");
      (await entry.load()).register(program);
      const cmd = program.commands.find((c) => c.name() === name);
      expect(cmd, name).toBeDefined();
      expect(entry.term, name).toBe(new Help().subcommandTerm(cmd!));
      expect(entry.description, name).toBe(cmd!.description());
    }
  });

  it("the root help drawn from the table matches the help of the registered commands", async () => {
    const fromTable = new Command("rubricate").description("d");
    registerCommandTable(fromTable);
    const real = new Command("rubricate").description("d");
    for (const entry of Object.values(COMMANDS)) (await entry.load()).register(real);
    expect(fromTable.helpInformation()).toBe(real.helpInformation());
  });

  it("finds the command to load in `name …` and `help name`, and nothing else", () => {
    expect(commandAsked(["score", "r.yaml", "s.jsonl"])).toBe("score");
    expect(commandAsked(["help", "eval"])).toBe("eval");
    expect(commandAsked(["help"])).toBeUndefined();
    expect(commandAsked(["--help"])).toBeUndefined();
    expect(commandAsked(["toString"])).toBeUndefined();
    expect(commandAsked([])).toBeUndefined();
  });
});
