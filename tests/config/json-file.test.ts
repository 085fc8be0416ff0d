/**
 * Whole JSON files a user hands rubricate (a package's package.json, a search index, an optimizer
 * state, a distill checkpoint): one that is not JSON is named file:line:col, in the words a bad
 * JSONL line gets ("invalid JSON: …"), not by V8's "at position 41" alone (or not at all).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonFileValue } from "../../src/config/jsonl.js";
import { loadIndex } from "../../src/corpus/search.js";
import { readCheckpoint } from "../../src/distill/output.js";
import { readEnvManifest, readPackageJson } from "../../src/hub/package.js";
import { resolveEnvSpec } from "../../src/hub/resolve.js";
import { loadState } from "../../src/optimize/state.js";
import { tempDir } from "../helpers/cli.js";

/** Four lines, a trailing comma on the third: JSON stops being JSON at line 4, column 1. */
const BROKEN = '{\n  "name": "x",\n  "version": "1.0.0",\n}\n';
const REASON = "invalid JSON: Expected double-quoted property name";

describe("jsonFileValue", () => {
  it("is the value of a JSON file, or a BAD_INPUT error naming file:line:col, then the hint", () => {
    expect(jsonFileValue('\uFEFF{\n  "a": 1\n}\n', "f.json")).toEqual({ a: 1 });
    expect(() => jsonFileValue(BROKEN, "f.json")).toThrow(expect.objectContaining({ code: "BAD_INPUT", message: `f.json:4:1: ${REASON}`, location: { file: "f.json", line: 4, col: 1 } }));
    expect(() => jsonFileValue(BROKEN, "f.json", { code: "PACKAGE_INVALID", hint: "what to do" })).toThrow(expect.objectContaining({ code: "PACKAGE_INVALID", message: `f.json:4:1: ${REASON} (what to do)` }));
  });
});

describe("the readers of whole JSON files", () => {
  it("a package.json (\"not valid JSON: Expected double-quoted property name in JSON at position 41\" before, no line)", () => {
    const dir = tempDir("rubricate-json-file-");
    writeFileSync(join(dir, "package.json"), BROKEN);
    expect(() => readPackageJson(dir)).toThrow(expect.objectContaining({ code: "PACKAGE_INVALID", message: `${join(dir, "package.json")}:4:1: ${REASON}` }));
  });

  it("the package.json of an environment the project installed, found by name (a SyntaxError and its stack before)", async () => {
    const project = tempDir("rubricate-json-file-");
    const pkg = join(project, "node_modules", "broken-env");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, "package.json"), BROKEN);
    await expect(resolveEnvSpec("broken-env", { cwd: project, envsDir: join(project, "envs") })).rejects.toMatchObject({ code: "PACKAGE_INVALID", message: `${join(pkg, "package.json")}:4:1: ${REASON}` });
  });

  it("a package.json that is JSON but no object is PACKAGE_INVALID (a TypeError reading its name before)", () => {
    const dir = tempDir("rubricate-json-file-");
    writeFileSync(join(dir, "package.json"), "null\n");
    expect(() => readEnvManifest(dir)).toThrow(expect.objectContaining({ code: "PACKAGE_INVALID", message: `${join(dir, "package.json")}: a package.json holds a JSON object` }));
  });

  it("a search index (\"not a search index: … at position 41\" before)", async () => {
    const file = join(tempDir("rubricate-json-file-"), "index.json");
    writeFileSync(file, BROKEN);
    await expect(loadIndex(file)).rejects.toMatchObject({ code: "BAD_INPUT", message: `${file}:4:1: ${REASON} (a search index: rebuild it)` });
    writeFileSync(file, "null");
    await expect(loadIndex(file)).rejects.toMatchObject({ code: "BAD_INPUT", message: `${file}: not a search index (no "format": "rubricate-search-index")` });
  });

  it("an optimizer state (\"optimizer state … is not valid JSON\" before, with no place)", async () => {
    const file = join(tempDir("rubricate-json-file-"), "state.json");
    writeFileSync(file, BROKEN);
    await expect(loadState(file)).rejects.toMatchObject({ code: "BAD_INPUT", message: `${file}:4:1: ${REASON} (an optimizer state: remove it to start over)` });
  });

  it("a distill checkpoint (taken for none before: the run started over, writing its output anew)", () => {
    const dir = tempDir("rubricate-json-file-");
    const file = join(dir, "out.jsonl.checkpoint.json");
    writeFileSync(file, BROKEN);
    expect(() => readCheckpoint(file)).toThrow(expect.objectContaining({ code: "BAD_INPUT", message: `${file}:4:1: ${REASON} (a distill checkpoint: remove it, or pass --no-resume, to start over)` }));
    // Another run's record (another version) is still no checkpoint of this run: it starts over.
    writeFileSync(file, JSON.stringify({ version: 2 }));
    expect(readCheckpoint(file)).toBeUndefined();
  });
});
