import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_YAML_BYTES } from "../../src/config/yaml-source.js";
import { readJudgeFile } from "../../src/judge/load.js";
import { tempDir } from "../helpers/cli.js";

describe("readJudgeFile", () => {
  const dir = tempDir("judge-load-");

  it("refuses a judge file over the configuration size limit before reading it", () => {
    const big = join(dir, "big.yaml");
    writeFileSync(big, `id: big\n# ${"x".repeat(MAX_YAML_BYTES)}\n`);
    expect(() => readJudgeFile(big)).toThrow(expect.objectContaining({ code: "YAML_TOO_LARGE" }));
  });

  it("refuses what is not a regular file, naming it", () => {
    expect(() => readJudgeFile(dir)).toThrow(expect.objectContaining({ code: "BAD_INPUT", message: expect.stringContaining("it is a folder") }));
  });

  it("reads a panel file and a packaged judge id", () => {
    const panel = join(dir, "panel.yaml");
    writeFileSync(panel, "panel: [openai-small, anthropic-small]\n");
    expect(readJudgeFile(panel)).toMatchObject({ kind: "panel", id: "panel", members: ["openai-small", "anthropic-small"] });
    expect(readJudgeFile("openai-small")).toMatchObject({ kind: "judge", config: { id: "openai-small" } });
  });
});
