/** Builders for the hub tests: a HubResult from per-task rewards, environment packages in a test registry, a hub over an in-memory one. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HUB_RESULT_SCHEMA, type HubResult } from "../../src/hub/results.js";
import { createHubApp, type HubAppOptions } from "../../src/site/app.js";
import { RegistryClient } from "../../src/site/registry.js";
import { ResultStore } from "../../src/site/store.js";
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

/** The integrity `demoHub`'s registry publishes for demo-env@1.0.0. */
export const DEMO_INTEGRITY = "sha512-demo";
const DEMO_REGISTRY = "http://registry.test/";

/**
 * A hub app over an in-memory registry (no network): one package, `demo-env@1.0.0`, whose integrity
 * is `DEMO_INTEGRITY`, and one token it accepts (`alice-token`, user alice). `log` collects the
 * hub's log lines.
 */
export function demoHub(options: Partial<HubAppOptions> = {}) {
  const doc = {
    name: "demo-env",
    "dist-tags": { latest: "1.0.0" },
    versions: { "1.0.0": { name: "demo-env", version: "1.0.0", keywords: ["rubricate-env"], dist: { integrity: DEMO_INTEGRITY } } },
    time: { "1.0.0": "2026-01-01T00:00:00.000Z" },
  };
  const fetch = (async (url: string | URL, init?: RequestInit) => {
    const path = String(url).slice(DEMO_REGISTRY.length);
    const alice = new Headers(init?.headers).get("authorization") === "Bearer alice-token";
    if (path === "-/whoami") return alice ? Response.json({ username: "alice" }) : new Response("{}", { status: 401 });
    if (path === "demo-env") return Response.json(doc);
    if (path.startsWith("-/v1/search")) return Response.json({ objects: [{ package: { name: "demo-env", version: "1.0.0", keywords: ["rubricate-env"] } }] });
    return new Response("{}", { status: 404 });
  }) as typeof globalThis.fetch;
  const log: string[] = [];
  const store = new ResultStore(":memory:");
  const app = createHubApp({ registries: new RegistryClient({ registries: [DEMO_REGISTRY], fetch }), store, log: (line) => log.push(line), ...options });
  return { app, store, log, doc };
}
