import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadChunks } from "../../src/corpus/load-chunks.js";
import { tempDir } from "../helpers/cli.js";

describe("loadChunks (temporary .md/.txt reader)", () => {
  it("cuts .md and .txt files at paragraph breaks into chunks with ids <path>#<n>, skipping other files", () => {
    const dir = tempDir("rubricate-chunks-");
    mkdirSync(join(dir, "hr"));
    const long = Array.from({ length: 3 }, (_, i) => `Paragraph ${i} ${"x".repeat(700)}`).join("\n\n");
    writeFileSync(join(dir, "hr", "vacation.md"), `# Vacation policy\n\n${long}`);
    writeFileSync(join(dir, "notes.txt"), "Ein Absatz auf Deutsch.");
    writeFileSync(join(dir, "logo.png"), "not text");
    const chunks = loadChunks(dir);
    expect(chunks.map((c) => c.id)).toEqual(["hr/vacation.md#0", "hr/vacation.md#1", "hr/vacation.md#2", "notes.txt#0"]);
    expect(chunks[0]).toMatchObject({ doc: "hr/vacation.md", title: "Vacation policy" });
    expect(chunks[3]).toEqual({ id: "notes.txt#0", doc: "notes.txt", title: "notes", text: "Ein Absatz auf Deutsch." });
    // The same text gives the same ids.
    expect(loadChunks(dir)).toEqual(chunks);
  });

  it("names a folder it cannot read", () => {
    expect(() => loadChunks("/nonexistent-docs")).toThrow(/cannot read the documents folder \/nonexistent-docs: ENOENT/);
  });
});
