/**
 * The deployment examples of docs/scale.md run rubricate commands users copy: every option they
 * give must be one the command takes (a renamed flag would otherwise break a cluster silently).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT, runCli } from "../helpers/cli.js";

const FILES = ["docker-compose.yml", "k8s-workers.yaml", "k8s-shards.yaml", "slurm-array.sh"].map((f) => join(ROOT, "examples/scale", f));

/** The `rubricate <command> …` invocations in a file, as words. */
function invocations(path: string): string[][] {
  const text = readFileSync(path, "utf8");
  if (path.endsWith(".sh")) return text.split("\n").filter((l) => /^npx rubricate /.test(l)).map((l) => l.split(/\s+/).slice(2));
  const found: string[][] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node) && node[0] === "npx" && node[1] === "rubricate") found.push(node.slice(2).map(String));
    else if (typeof node === "string" && /npx rubricate /.test(node)) found.push(node.slice(node.indexOf("npx rubricate ") + 14).split(/\s+/));
    if (node && typeof node === "object") Object.values(node).forEach(visit);
  };
  for (const doc of text.split(/^---$/m)) visit(parse(doc));
  return found;
}

describe("examples/scale", () => {
  it("every file runs rubricate, with options its commands take", async () => {
    const all = FILES.flatMap(invocations);
    expect(all.length).toBeGreaterThanOrEqual(4);
    const helps = new Map<string, string>();
    for (const words of all) {
      const command = words[0];
      if (!helps.has(command)) helps.set(command, (await runCli([command, "--help"])).stdout);
      for (const flag of words.filter((w) => /^--?[a-z]/.test(w))) expect(helps.get(command), `${command} ${flag}`).toContain(flag.replace(/=.*/, ""));
    }
    expect([...helps.keys()].sort()).toEqual(["score", "worker"]);
  }, 120_000);
});
