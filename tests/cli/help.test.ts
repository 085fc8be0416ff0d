import { describe, expect, it } from "vitest";
import { cli } from "./helpers.js";

describe("--help and --version", () => {
  it("the root help lists the commands; every command has its own --help", async () => {
    const root = await cli(["--help"]);
    expect(root.code).toBe(0);
    expect(root.stdout).toMatch(/^Usage: rubricate \[options\] \[command\]/);
    const section = root.stdout.split("Commands:")[1] ?? "";
    const commands = [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]).filter((c) => c !== "help");
    expect(commands).toEqual(expect.arrayContaining(["validate", "schema", "score"]));
    const results = await Promise.all(commands.map((c) => cli([c, "--help"])));
    results.forEach((r, i) => {
      expect(r.code, `${commands[i]} --help`).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: rubricate ${commands[i]} `));
      expect(r.stdout).toContain("-h, --help");
    });
  });

  it("--version prints the package version", async () => {
    const { version } = (await import("../../package.json", { with: { type: "json" } })).default as { version: string };
    const r = await cli(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
  });

  it("an unknown command is a usage error (exit 2)", async () => {
    const r = await cli(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
  });
});
