// scratch (not committed): CLI start timeline. usage: npx tsx bench/_startup-scratch.ts ROUNDS [extra node args...]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, builtCli, samples, tenQuestions } from "./lib/common.js";
import { bareClientRun, judgeBodies, writeBodies } from "./lib/floor.js";
import { startServerChild } from "./lib/server.js";
const rounds = Number(process.argv[2] ?? 3);
const extra = process.argv.slice(3);
const n = 2000;
const server = await startServerChild({ latencyMs: 50 });
const dir = mkdtempSync(join(tmpdir(), "su-"));
writeFileSync(join(dir, "rubric.yaml"), readFileSync(join(ROOT, "tests/fixtures/rubrics/ten-questions.yaml")));
writeFileSync(join(dir, "judge.yaml"), `provider: openai-compatible\nmodel: bench-judge\nbase_url: ${server.url}\nmode: batched\nmax_concurrency: 64\nmax_retries: 5\ntimeout_ms: 30000\n`);
await bareClientRun(server.url, await judgeBodies(tenQuestions(), samples(n, 600), "batched"), 64);
async function run(args: string[]) {
  await server.reset();
  const t0 = Date.now(); const p0 = performance.now();
  const c = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  await once(c, "close");
  const wall = performance.now() - p0;
  const t = (await server.stats()).times;
  const first = t[0] - t0, at500 = t[499] - t0, last = t.at(-1)! - t0;
  return { wall: Math.round(wall), first, at64: t[63] - t0, at500, last, ratio: +(1562 / wall).toFixed(3) };
}
let from = 0;
for (let r = 0; r < rounds; r++) {
  const file = join(dir, `s${r}.jsonl`);
  writeFileSync(file, [...samples(n, 600, (from += 1_000_000))].map((s) => JSON.stringify(s)).join("\n") + "\n");
  const cli = await run([...extra, builtCli(), "score", join(dir, "rubric.yaml"), file, "--judge", join(dir, "judge.yaml"), "--no-cache", "-c", "64", "-q", "-o", join(dir, `o${r}.jsonl`)]);
  const bodies = join(dir, `b${r}.jsonl`);
  writeBodies(bodies, await judgeBodies(tenQuestions(), samples(n, 600, from), "batched"));
  const floor = await run([join(ROOT, "bench", "floor-client.mjs"), server.url, bodies, "64"]);
  console.log("cli  ", JSON.stringify(cli)); console.log("floor", JSON.stringify(floor));
}
await server.close();
