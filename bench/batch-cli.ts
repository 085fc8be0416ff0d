/**
 * Peak memory of the real client: the built CLI (`rubricate score … --batch`) over N samples
 * against the local batch server in a child process. Reads the CLI's VmHWM (Linux) while it runs.
 * Build first (`npm run build`), then: npx tsx bench/batch-cli.ts [samples] [openai|anthropic]
 */
import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const total = Number(process.argv[2] ?? 100_000);
const kind = process.argv[3] === "anthropic" ? "anthropic" : "openai";
const cli = join(import.meta.dirname, "..", "dist", "cli", "main.js");
if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "batch-server-child.ts")], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));

const dir = mkdtempSync(join(tmpdir(), "rubricate-batch-cli-"));
const samples = join(dir, "samples.jsonl");
const out = createWriteStream(samples);
for (let i = 0; i < total; i++) if (!out.write(`${JSON.stringify({ id: i, response: `Response number ${i} about the topic at hand.` })}\n`)) await once(out, "drain");
await new Promise<void>((resolve) => out.end(resolve));
writeFileSync(join(dir, "rubric.yaml"), "id: bench\ninputs: [response]\ncriteria:\n  - { id: relevant, question: Is the response on topic?, points: 1 }\n");
writeFileSync(join(dir, "judge.yaml"), `provider: ${kind}\nmodel: bench-model\nbase_url: ${kind === "openai" ? `${url}/v1` : url}\napi_key_env: RUBRICATE_BENCH_KEY\nprice: { input: 0.4, output: 1.6 }\n`);

const started = performance.now();
// Extra node flags for the CLI alone (e.g. RUBRICATE_BENCH_CLI_FLAGS=--max-old-space-size=160), not for the server child.
const flags = (process.env.RUBRICATE_BENCH_CLI_FLAGS ?? "").split(" ").filter(Boolean);
const run = spawn(process.execPath, [...flags, cli, "score", join(dir, "rubric.yaml"), samples, "--judge", join(dir, "judge.yaml"), "--cache", join(dir, "cache.db"), "--batch", "--poll-ms", "20", "-o", join(dir, "out.jsonl")], {
  env: { ...process.env, RUBRICATE_BENCH_KEY: "sk-bench" },
  stdio: ["ignore", "ignore", "pipe"],
});
// A server that dies (out of memory, say) would leave the CLI retrying forever: stop, and say so.
const serverExit = (code: number | null) => {
  process.stderr.write(`batch server exited (${code}) during the run: no figure\n`);
  run.kill("SIGKILL");
  process.exit(1);
};
child.once("exit", serverExit);
let stderr = "";
let peakKb = 0;
let phase = "first pass";
const phasePeaks: Record<string, number> = {};
// Seconds spent in each phase (from the first log line of the next one).
const phaseSeconds: Record<string, number> = {};
let phaseStarted = performance.now();
const enter = (next: string) => {
  if (next === phase) return;
  phaseSeconds[phase] = Number(((performance.now() - phaseStarted) / 1000).toFixed(1));
  phaseStarted = performance.now();
  phase = next;
};
run.stderr!.on("data", (c: Buffer) => {
  stderr += c.toString();
  // Phases from the CLI's own log lines: spill pass, upload+create, polling+collecting, the scoring pass after.
  for (const line of c.toString().split("\n")) {
    if (line.startsWith("batch: submitted")) enter("submit");
    else if (line.startsWith("batch: batch ")) enter("collect and later passes");
    else if (line.startsWith("batch: ") && line.includes("job(s) submitted")) enter("scoring pass (cache hits)");
  }
});
const probe = setInterval(() => {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${run.pid}/status`, "utf8"));
    if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${run.pid}/status`, "utf8"));
    if (rss) phasePeaks[phase] = Math.max(phasePeaks[phase] ?? 0, Math.round(Number(rss[1]) / 1024));
  } catch {
    /* the process has exited */
  }
}, 100);
const [code] = (await once(run, "close")) as [number];
clearInterval(probe);
enter("done");
child.off("exit", serverExit);
child.kill("SIGTERM");
const row = { provider: kind, samples: total, flags: flags.join(" "), exit: code, seconds: Number(((performance.now() - started) / 1000).toFixed(1)), cliPeakRssMb: Math.round(peakKb / 1024), ...Object.fromEntries(Object.entries(phasePeaks).map(([k, v]) => [`rss MB: ${k}`, v])) };
console.table([row]);
console.table([Object.fromEntries(Object.entries(phaseSeconds).map(([k, v]) => [`seconds: ${k}`, v]))]);
process.stderr.write(stderr.split("\n").filter((l) => l.startsWith("batch:")).slice(-1).join("\n") + "\n");
rmSync(dir, { recursive: true, force: true });
mkdirSync(join(import.meta.dirname, "results"), { recursive: true });
writeFileSync(join(import.meta.dirname, "results", "batch-cli.json"), `${JSON.stringify({ bench: "batch-cli", date: new Date().toISOString(), ...row, phaseSeconds }, null, 2)}\n`);
