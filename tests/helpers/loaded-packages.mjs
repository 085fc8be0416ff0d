/**
 * Run by tests/import-graph.test.ts in a child node: `node [--import tsx] loaded-packages.mjs <entry> [stages]`.
 * Imports <entry> (the package root) and prints, as JSON, `{ packages, files }`: the npm packages
 * that loaded and the project's own files (paths relative to the working directory), from every
 * URL the ESM loader resolved (a resolve hook) plus every CommonJS file in require's cache (what
 * `createRequire(…)("better-sqlite3")` loads never passes the ESM hooks). A file of a built dist/
 * also counts as the packages esbuild bundled into it (its `// node_modules/<package>/…` markers):
 * dist/ carries zod, yaml and the provider SDKs inside its chunks. With `stages`, it prints three
 * listings, each of all that loaded so far: `root` (the import), `openai-call` (then one OpenAI call
 * the default way, without the SDK) and `control` (then an OpenAI and an Anthropic provider built
 * and called (to a closed port: the SDKs load on a provider's first call; the OpenAI one through
 * its SDK, which `OPENAI_LOG` asks for), a Redis and a SQLite cache opened and two lazy entry points
 * called, which must load their libraries and areas: the proof that the listing sees lazy loads).
 * One child for the three instead of one each: a child through tsx costs ~1 s of CPU.
 */
import { createRequire, register } from "node:module";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { MessageChannel } from "node:worker_threads";

const [entry, mode] = process.argv.slice(2);
const resolved = [];
const { port1, port2 } = new MessageChannel();
port1.on("message", (url) => resolved.push(url));
const hook = `let port; export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r; }`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, { data: { port: port2 }, transferList: [port2] });

const root = await import(entry);

let snapshots = 0;
/** The packages and project files loaded so far. */
async function listing() {
  // Messages from the hook arrive in order: once this last resolution is seen, every earlier one is too.
  const marker = `data:text/javascript,export%20default%20%22loaded-packages-marker-${++snapshots}%22`;
  const seen = new Promise((done) => port1.on("message", (url) => url === marker && done()));
  await import(marker);
  await seen;
  const files = [...resolved, ...Object.keys(createRequire(import.meta.url).cache)].map((f) => (f.startsWith("file:") ? fileURLToPath(f) : f));
  const packages = new Set();
  const own = new Set();
  for (const f of files) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f);
    if (m) {
      packages.add(m[1]);
      continue;
    }
    if (/[\\/]dist[\\/].*\.c?js$/.test(f)) for (const p of bundledIn(f)) packages.add(p);
    if (isAbsolute(f) && !relative(process.cwd(), f).startsWith("..")) own.add(relative(process.cwd(), f).split(sep).join("/"));
  }
  return { packages: [...packages].sort(), files: [...own].sort() };
}
/** The packages esbuild bundled into a built file, by the path comments it leaves before each module. */
const bundledIn = (file) => [...readFileSync(file, "utf8").matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map((b) => b[1]);

if (mode !== "stages") {
  process.stdout.write(JSON.stringify(await listing()));
  process.exit(0);
}
const stages = { root: await listing() };
const call = { model: "m", messages: [{ role: "user", content: "hi" }] };
await root.createProvider({ provider: "openai-compatible", base_url: "http://127.0.0.1:9/v1" }).complete(call).catch(() => {});
stages["openai-call"] = await listing();
process.env.OPENAI_LOG = "off";
await root.createProvider({ provider: "openai-compatible", base_url: "http://127.0.0.1:9/v1" }).complete(call).catch(() => {});
await root.createProvider({ provider: "anthropic", base_url: "http://127.0.0.1:9", api_key_env: "RUBRICATE_CONTROL_KEY" }).complete(call).catch(() => {});
await root.openCache({ path: "redis://127.0.0.1:9/0" }).close();
const dir = mkdtempSync(join(tmpdir(), "rubricate-loaded-"));
await root.openCache({ path: join(dir, "cache.db") }).close();
// Lazy areas load on their first call, whatever the call then does (here: fail on a missing file).
await root.loadEnvironment(join(dir, "missing.yaml")).catch(() => {});
await root.runDistill({ input: join(dir, "missing.jsonl"), output: join(dir, "out.jsonl") }).catch(() => {});
rmSync(dir, { recursive: true, force: true });
stages.control = await listing();
process.stdout.write(JSON.stringify(stages));
process.exit(0);
