/** Builders for the hub tests: a HubResult from per-task rewards, and environment packages in a test registry. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HUB_RESULT_SCHEMA, type HubResult } from "../../src/hub/results.js";
import { meanWithInterval } from "../../src/stats/interval.js";
import { packDirs, publishTarball } from "../helpers/npm-seed.js";

/** A result whose summary follows from `perTask` (each task one rollout, passing at reward 1). */
export function hubResult(options: { name: string; version: string; integrity?: string; model: string; perTask: Record<string, number>; step?: number; series?: string; finishedAt?: string; costUsd?: number; criteria?: { id: string; rate: number }[] }): HubResult {
  const rewards = Object.values(options.perTask);
  const passed = rewards.filter((r) => r >= 1).length;
  return {
    schema: HUB_RESULT_SCHEMA,
    env: { name: options.name, version: options.version, ...(options.integrity ? { integrity: options.integrity } : {}) },
    model: options.model,
    judge: "openai:judge-test",
    rubricateVersion: "0.1.0",
    ...(options.step !== undefined ? { step: options.step } : {}),
    ...(options.series ? { series: options.series } : {}),
    finishedAt: options.finishedAt ?? "2026-12-01T10:00:00.000Z",
    stats: {
      rollouts: rewards.length,
      tasks: rewards.length,
      scored: rewards.length,
      errors: 0,
      ...(rewards.length ? { reward: meanWithInterval(rewards)! } : {}),
      passRate: rewards.length ? passed / rewards.length : 0,
      passAtK: { "1": rewards.length ? passed / rewards.length : 0 },
      criteria: (options.criteria ?? [{ id: "correct", rate: rewards.length ? passed / rewards.length : 0 }]).map((c) => ({ id: c.id, answered: rewards.length, ok: Math.round(c.rate * rewards.length), rate: c.rate })),
      costUsd: options.costUsd ?? 0.0123,
      perTask: options.perTask,
    },
  };
}

/** Packs and publishes a tiny environment package (package.json + README); returns the registry's integrity. */
export async function publishEnv(registryUrl: string, token: string, work: string, manifest: Record<string, unknown>, readme = `# ${String(manifest.name)}\n`): Promise<string> {
  const dir = join(work, "src", `${String(manifest.name).replace("/", "+")}@${String(manifest.version)}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, "README.md"), readme);
  const [tarball] = packDirs([dir], join(work, "tgz"));
  await publishTarball(registryUrl, token, tarball, { ...manifest, readme });
  const res = await fetch(`${registryUrl}${String(manifest.name).replace("/", "%2f")}`, { headers: { authorization: `Bearer ${token}` } });
  const doc = (await res.json()) as { versions: Record<string, { dist: { integrity: string } }> };
  return doc.versions[String(manifest.version)].dist.integrity;
}

/** Tasks t01 … tNN with rewards from `f(i)`. */
export const tasks = (n: number, f: (i: number) => number): Record<string, number> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${String(i + 1).padStart(2, "0")}`, f(i)]));
