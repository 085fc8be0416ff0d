/**
 * `import "rubricate"` loads only what every program needs: the provider SDKs, ioredis, mathjs,
 * the registry libraries, ajv and re2-wasm load when something uses them (a provider is built, a
 * Redis cache opened, a math check run…). Each entry is imported in a child node that lists the
 * packages it loaded (tests/helpers/loaded-packages.mjs); a control run shows the listing sees
 * those lazy loads when they happen.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { ROOT } from "./helpers/cli.js";

/** Loaded on demand only: none may load with the package root. */
const HEAVY = ["@anthropic-ai/sdk", "openai", "ioredis", "mathjs", "@opentelemetry/api", "npm-package-arg", "semver", "ajv", "ajv-formats", "re2-wasm"];
const LISTER = join(ROOT, "tests/helpers/loaded-packages.mjs");

function loadedBy(entry: string, options: { tsx?: boolean; control?: boolean } = {}): string[] {
  const args = [...(options.tsx ? ["--import", "tsx"] : []), LISTER, entry, ...(options.control ? ["control"] : [])];
  const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", env: { ...process.env, RUBRICATE_CONTROL_KEY: "sk-control-not-a-key" }, timeout: 120_000 });
  return JSON.parse(out) as string[];
}

describe("what importing the package root loads", () => {
  const entries = [
    { name: "the built ESM entry (dist/index.js)", entry: () => join(inject("rubricateDist"), "index.js"), tsx: false },
    { name: "the built CommonJS entry (dist/index.cjs)", entry: () => join(inject("rubricateDist"), "index.cjs"), tsx: false },
    { name: "the sources (src/index.ts through tsx)", entry: () => join(ROOT, "src/index.ts"), tsx: true },
  ];

  it.each(entries)("$name: no provider SDK, ioredis, mathjs or other heavy library", ({ entry, tsx }) => {
    const loaded = loadedBy(entry(), { tsx });
    // The listing sees the root's own graph: zod and yaml are needed by every rubric.
    expect(loaded).toEqual(expect.arrayContaining(["zod", "yaml"]));
    expect(loaded.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it.each(entries)("$name: building providers and opening a Redis cache loads their libraries (the listing sees lazy loads)", ({ entry, tsx }) => {
    const loaded = loadedBy(entry(), { tsx, control: true });
    expect(loaded).toEqual(expect.arrayContaining(["openai", "@anthropic-ai/sdk", "ioredis"]));
  });
});
