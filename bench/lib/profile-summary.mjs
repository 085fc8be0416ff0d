/**
 * Summarises a V8 .cpuprofile: the functions with the most self time and the most inclusive
 * time, as shares of the samples. Usage: node bench/lib/profile-summary.mjs <file.cpuprofile>
 */
import { readFileSync } from "node:fs";
const f = process.argv[2];
if (!f) throw new Error("usage: node bench/lib/profile-summary.mjs <file.cpuprofile>");
const p = JSON.parse(readFileSync(f, "utf8"));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = p.timeDeltas; let total = 0;
const counts = new Map();
p.samples.forEach((id, i) => { counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)); total += dt[i] ?? 0; });
const parent = new Map(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const key = (n) => `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").slice(-3).join("/")}:${n.callFrame.lineNumber}`;
const selfT = new Map(), incl = new Map();
for (const [id, t] of counts) {
  const n = byId.get(id); selfT.set(key(n), (selfT.get(key(n)) ?? 0) + t);
  const seen = new Set(); let cur = id;
  while (cur !== undefined) { const k = key(byId.get(cur)); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + t); } cur = parent.get(cur); }
}
const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, t]) => `${(100 * t / total).toFixed(1).padStart(5)}% ${k}`).join("\n");
console.log("total ms", (total / 1000).toFixed(0)); console.log("--- self"); console.log(top(selfT, 35)); console.log("--- inclusive"); console.log(top(incl, 60));
