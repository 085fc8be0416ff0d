/**
 * The Evaluate button's path end to end: POST /api/evals on the hub → one `rubricate eval
 * --queue` coordinator per model → a real `rubricate worker` on a real redis-server plays the
 * wordle environment (published to Verdaccio) against the local OpenAI-format server → each
 * model's result lands on the leaderboard, with progress readable while it runs.
 */
import { type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { nextGuess } from "../../examples/wordle/solver.js";
import { createHubApp } from "../../src/site/app.js";
import type { EvalProgress } from "../../src/site/evals.js";
import { loadModelsFile, QueueEvalRunner } from "../../src/site/queue-evals.js";
import { RegistryClient } from "../../src/site/registry.js";
import { ResultStore } from "../../src/site/store.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { cliEntry, ROOT, spawnCli, tempDir, writeJudgeFile } from "../helpers/cli.js";
import { packDirs, publishTarball } from "../helpers/npm-seed.js";
import { redisServer, startRedis, type LiveRedis } from "../helpers/redis.js";
import { startVerdaccio, type Registry } from "../helpers/verdaccio.js";
import { startWorld, type WireMessage } from "../env/world.js";

const KEY = "sk-hub-eval-test";
const NAME = "@acme/wordle-env";
const guessFrom = (m: WireMessage[]) => `GUESS: ${nextGuess(m.filter((x) => x.role === "user").map((x) => x.content ?? ""))}`;

redisServer.describe("hub Evaluate through the queue [Verdaccio + redis-server + worker]", () => {
  let work: string;
  let registry: Registry;
  let redis: LiveRedis;
  let world: TestServer<unknown>;
  let store: ResultStore;
  let worker: ChildProcess;
  let token: string;
  let integrity: string;

  beforeAll(async () => {
    work = tempDir("rubricate-hub-evals-");
    registry = await startVerdaccio(join(work, "registry"), { users: { alice: "alice-pass-1" }, privateScope: "@private" });
    token = await registry.login("alice", "alice-pass-1");
    // The wordle example published under a name of our own.
    const pkgDir = join(work, "pkg");
    cpSync(join(ROOT, "examples", "wordle"), pkgDir, { recursive: true });
    const manifest = { ...(JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as Record<string, unknown>), name: NAME, version: "1.0.0" };
    writeFileSync(join(pkgDir, "package.json"), JSON.stringify(manifest, null, 2));
    await publishTarball(registry.url, token, packDirs([pkgDir], join(work, "tgz"))[0], manifest);
    const doc = (await (await fetch(`${registry.url}${NAME.replace("/", "%2f")}`)).json()) as { versions: Record<string, { dist: { integrity: string } }> };
    integrity = doc.versions["1.0.0"].dist.integrity;
    // Installed where coordinator and worker look before asking npm (what a first `eval` would leave), with the registry's hash.
    const envs = join(work, "envs");
    const root = join(envs, "@acme+wordle-env@1.0.0");
    mkdirSync(join(root, "node_modules", "@acme"), { recursive: true });
    cpSync(pkgDir, join(root, "node_modules", NAME), { recursive: true });
    writeFileSync(join(root, "package-lock.json"), JSON.stringify({ packages: { [`node_modules/${NAME}`]: { version: "1.0.0", integrity } } }));

    redis = await startRedis();
    world = await startWorld({ solver: guessFrom, blunder: () => "GUESS: zzzzz" }, () => true);
    writeJudgeFile(work, world.url);
    writeFileSync(join(work, "models.yaml"), `models:\n  solver: "openai-compatible:solver@${world.url}"\n  blunder: "openai-compatible:blunder@${world.url}"\njudge: judge.yaml\ntasks: 3\nrollouts: 2\n`);
    worker = spawnCli(["worker", "--queue", redis.url, "--envs-dir", envs, "-q"], { cwd: work, env: { RUBRICATE_TEST_KEY: KEY } });
    store = new ResultStore(join(work, "hub.db"));
  }, 180_000);

  afterAll(async () => {
    if (worker && worker.exitCode === null) worker.kill("SIGKILL");
    store?.close();
    await world?.close();
    await redis?.stop();
    await registry?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("queues an eval of the version on the chosen models; progress shows while it runs; both models reach the leaderboard", async () => {
    const evals = new QueueEvalRunner({
      models: loadModelsFile(join(work, "models.yaml")),
      queue: redis.url,
      store,
      cli: [process.execPath, ...cliEntry()],
      workDir: join(work, "hub-evals"),
      cwd: work,
      // The coordinator holds no key: the worker plays.
      env: { RUBRICATE_ENVS_DIR: join(work, "envs"), RUBRICATE_TEST_KEY: "" },
      rubricateVersion: "0.1.0",
    });
    const app = createHubApp({ registries: new RegistryClient({ registries: [registry.url] }), store, evals });
    const post = (body: unknown, auth: string | null = token) =>
      app.request("/api/evals", { method: "POST", headers: { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${auth}` } : {}) }, body: JSON.stringify(body) });

    expect((await post({ env: NAME, version: "1.0.0", models: ["solver"] }, null)).status).toBe(401);
    expect((await post({ env: NAME, version: "9.0.0", models: ["solver"] })).status).toBe(422);
    expect((await post({ env: NAME, version: "1.0.0", models: ["gpt-9"] })).status).toBe(422);
    // The page offers the Evaluate form to a signed-in visitor.
    const page = await (await app.request(`/envs/${NAME}`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(page).toContain('id="evaluate"');
    expect(page).toMatch(/<script nonce="[^"]+">/);

    const res = await post({ env: NAME, version: "1.0.0", models: ["solver", "blunder"] });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const seen: EvalProgress[] = [];
    const until = Date.now() + 240_000;
    for (;;) {
      const p = (await (await app.request(`/api/evals/${id}`)).json()) as EvalProgress;
      seen.push(p);
      if (p.state === "done" || p.state === "failed" || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const last = seen.at(-1)!;
    expect(last.error).toBeUndefined();
    expect(last.state).toBe("done");
    expect(last).toMatchObject({ done: 12, total: 12, models: ["solver", "blunder"] });
    // Progress moved through intermediate counts before the end.
    expect(seen.some((p) => p.state === "running" && p.done > 0 && p.done < 12)).toBe(true);

    const board = (await (await app.request(`/api/envs/${NAME}/1.0.0/results`)).json()) as { leaderboard: { model: string; reward: { mean: number }; passAtK: Record<string, number>; tasks: number; rollouts: number; byHub: boolean; submittedBy: string }[]; results: { result: { env: { integrity: string } } }[] };
    expect(board.leaderboard.map((r) => r.model)).toEqual(["solver", "blunder"]);
    expect(board.leaderboard[0]).toMatchObject({ tasks: 3, rollouts: 6, byHub: true, submittedBy: "hub-eval:alice" });
    expect(board.leaderboard[0].reward.mean).toBe(1);
    expect(board.leaderboard[0].passAtK["2"]).toBe(1);
    expect(board.leaderboard[1].reward.mean).toBeLessThan(1);
    expect(board.results.every((r) => r.result.env.integrity === integrity)).toBe(true);
  }, 300_000);

  it("refuses a models file with unknown fields (a key, say) at file:line:col", () => {
    writeFileSync(join(work, "bad-models.yaml"), "models:\n  solver: openai:gpt-4.1-mini\napi_key: sk-live-123\n");
    expect(() => loadModelsFile(join(work, "bad-models.yaml"))).toThrow(/bad-models\.yaml:3:1/);
  });
});
