/**
 * Run by tests/import-graph.test.ts in a child node: `node [--import tsx] loaded-packages.mjs <entry> [control]`.
 * Imports <entry> (the package root) and prints, as JSON, the npm packages that loaded: every URL
 * the ESM loader resolved (a resolve hook) plus every CommonJS file in require's cache (what
 * `createRequire(…)("openai")` loads never passes the ESM hooks). With `control`, it then builds
 * an OpenAI and an Anthropic provider and opens a Redis cache, which must load their libraries:
 * the proof that the listing sees lazy loads.
 */
import { createRequire, register } from "node:module";
import { MessageChannel } from "node:worker_threads";

const [entry, mode] = process.argv.slice(2);
const resolved = [];
const { port1, port2 } = new MessageChannel();
port1.on("message", (url) => resolved.push(url));
const hook = `let port; export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r; }`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, { data: { port: port2 }, transferList: [port2] });

const root = await import(entry);
if (mode === "control") {
  root.createProvider({ provider: "openai-compatible", base_url: "http://127.0.0.1:9/v1" });
  root.createProvider({ provider: "anthropic", api_key_env: "RUBRICATE_CONTROL_KEY" });
  await root.openCache({ path: "redis://127.0.0.1:9/0" }).close();
}
// Messages from the hook arrive in order: once this last resolution is seen, every earlier one is too.
const marker = "data:text/javascript,export%20default%20%22loaded-packages-marker%22";
const seen = new Promise((done) => port1.on("message", (url) => url === marker && done()));
await import(marker);
await seen;
const files = [...resolved, ...Object.keys(createRequire(import.meta.url).cache)];
const packages = new Set();
for (const f of files) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(decodeURIComponent(f));
  if (m) packages.add(m[1]);
}
process.stdout.write(JSON.stringify([...packages].sort()));
process.exit(0);
