/**
 * The Node programs of a `tests` run (JavaScript, and TypeScript once esbuild stripped its
 * types): the candidate process, which loads the solution in its own main context (Node's normal
 * globals: Buffer, timers, require) and answers calls, and the judge process, which runs the
 * tests against stubs that forward each call. See harness.ts for who sees what.
 */

/**
 * Plain values both ways: null, booleans, strings, finite numbers and arrays as JSON; undefined,
 * NaN, ±Infinity, -0, bigint, Map, Set, Date, RegExp, Error, Buffer, typed arrays and objects
 * (own enumerable keys) tagged as {"$": type, "v": …}. The decoder builds fresh values of the
 * judge's own realm, so assert's comparisons never run a getter, `valueOf` or `toJSON` of the
 * solution's.
 */
const NODE_CODEC = String.raw`
const MAX_DEPTH = 100;
function encode(v, depth = 0) {
  if (depth > MAX_DEPTH) throw new TypeError("the value is nested more than " + MAX_DEPTH + " levels deep");
  const d = depth + 1;
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return Number.isFinite(v) && !Object.is(v, -0) ? v : { $: "number", v: Object.is(v, -0) ? "-0" : String(v) };
  if (v === undefined) return { $: "undefined" };
  if (typeof v === "bigint") return { $: "bigint", v: v.toString() };
  if (typeof v !== "object") throw new TypeError("a " + typeof v + " cannot cross to the other process (only plain values do)");
  if (Array.isArray(v)) return Array.from(v, (x) => encode(x, d));
  if (v instanceof Map) return { $: "Map", v: Array.from(v, ([k, x]) => [encode(k, d), encode(x, d)]) };
  if (v instanceof Set) return { $: "Set", v: Array.from(v, (x) => encode(x, d)) };
  if (v instanceof Date) return { $: "Date", v: String(v.getTime()) };
  if (v instanceof RegExp) return { $: "RegExp", v: [v.source, v.flags] };
  if (v instanceof Error) return { $: "Error", v: [String(v.name), String(v.message)] };
  if (Buffer.isBuffer(v)) return { $: "Buffer", v: v.toString("base64") };
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return { $: v.constructor.name, v: Array.from(v, (x) => encode(x, d)) };
  if (typeof v.then === "function") throw new TypeError("a promise cannot cross to the other process");
  return { $: "object", v: Object.keys(v).map((k) => [k, encode(v[k], d)]) };
}
const TYPED = ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"];
function decode(v) {
  if (v === null || typeof v === "boolean" || typeof v === "string" || typeof v === "number") return v;
  if (Array.isArray(v)) return v.map(decode);
  if (typeof v !== "object") throw new TypeError("not a value");
  const x = v.v;
  switch (v.$) {
    case "number": return Number(x);
    case "undefined": return undefined;
    case "bigint": return BigInt(String(x));
    case "Map": return new Map(x.map(([k, i]) => [decode(k), decode(i)]));
    case "Set": return new Set(x.map(decode));
    case "Date": return new Date(Number(x));
    case "RegExp": return new RegExp(String(x[0]), String(x[1]));
    case "Error": { const e = new Error(String(x[1])); e.name = String(x[0]); return e; }
    case "Buffer": return Buffer.from(String(x), "base64");
    case "object": { const o = {}; for (const [k, i] of x) Object.defineProperty(o, String(k), { value: decode(i), enumerable: true, writable: true, configurable: true }); return o; }
    default:
      if (TYPED.includes(v.$)) return globalThis[v.$].from(x.map(decode));
      throw new TypeError("unknown value tag " + JSON.stringify(v.$));
  }
}
`;

/**
 * The candidate process: runs solution.js as a script of its own main context (so its top-level
 * functions are globals, as in a browser or the REPL), with module/exports/require for CommonJS,
 * lists what it defines, then answers calls (awaiting a promise a function returns). console and
 * process.stdout go to stderr; the protocol is written with the fd kept before the solution ran.
 */
export const NODE_CANDIDATE = NODE_CODEC + String.raw`
const fs = require("node:fs");
const vm = require("node:vm");
const { Console } = require("node:console");
const writeSync = fs.writeSync;
const send = (message) => writeSync(1, JSON.stringify(message) + "\n");
globalThis.console = new Console(process.stderr, process.stderr);
process.stdout.write = process.stderr.write.bind(process.stderr);
const describe = (e) => String(e && typeof e === "object" && "message" in e ? (e.name || "Error") + ": " + String(e.message).split("\n").filter(Boolean).join(" ") : e).slice(0, 2000);
const source = fs.readFileSync("solution.js", "utf8");
const before = new Set(Object.getOwnPropertyNames(globalThis));
const mod = { exports: {} };
Object.assign(globalThis, { module: mod, exports: mod.exports, require });
const table = new Map();
try {
  vm.runInThisContext(source, { filename: "solution.js" });
} catch (e) {
  send({ load_error: describe(e) });
  process.exit(0);
}
const exported = globalThis.module && globalThis.module.exports;
for (const name of Object.getOwnPropertyNames(globalThis)) if (!before.has(name) && !["module", "exports", "require"].includes(name)) table.set(name, globalThis[name]);
// Top-level const/let/class live in the script scope, not on globalThis: look up each declared name.
for (const m of source.matchAll(/^[ \t]*(?:export[ \t]+)?(?:async[ \t]+)?(?:function\*?|class|const|let|var)[ \t]+([A-Za-z_$][\w$]*)/gm)) {
  try { if (!table.has(m[1])) table.set(m[1], vm.runInThisContext(m[1])); } catch {}
}
if (exported && (typeof exported === "object" || typeof exported === "function")) for (const name of Object.keys(exported)) table.set(name, exported[name]);
const names = {};
for (const [name, value] of table) {
  if (typeof value === "function") names[name] = { kind: "function" };
  else try { names[name] = { kind: "value", v: encode(value) }; } catch {}
}
send({ ready: names });
async function answer(call) {
  try {
    const args = decode(call.args);
    let result = table.get(call.name)(...args);
    if (result && typeof result.then === "function") result = await result;
    send({ id: call.id, ok: encode(result), args: args.map((a) => (a !== null && typeof a === "object" ? encode(a) : null)) });
  } catch (e) {
    send({ id: call.id, raise: { type: e && e.name ? String(e.name) : "Error", message: describe(e) } });
  }
}
let pending = "";
let queue = Promise.resolve();
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let i;
  while ((i = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, i);
    pending = pending.slice(i + 1);
    queue = queue.then(() => answer(JSON.parse(line)));
  }
});
process.stdin.on("end", () => queue.then(() => process.exit(0)));
`;

/**
 * The judge process: reads the job, asks the referee to load the solution, defines a stub per
 * function the solution defines (never over a global the judge has: assert, console, JSON,
 * require, …, except the entry point), then runs each test in its own function scope with
 * `assert` (node:assert) at hand. Calls are synchronous: a stub writes the call and blocks on
 * the reply.
 */
export const NODE_JUDGE = NODE_CODEC + String.raw`
const fs = require("node:fs");
const vm = require("node:vm");
const assert = require("node:assert");
const write = (message) => fs.writeSync(1, JSON.stringify(message) + "\n");
let pending = Buffer.alloc(0);
const pause = new Int32Array(new SharedArrayBuffer(4));
function readLine() {
  const chunk = Buffer.alloc(65536);
  for (;;) {
    const i = pending.indexOf(10);
    if (i >= 0) {
      const line = pending.subarray(0, i).toString("utf8");
      pending = pending.subarray(i + 1);
      return line;
    }
    let n;
    try {
      n = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (e) {
      if (e.code === "EAGAIN") { Atomics.wait(pause, 0, 0, 5); continue; }
      throw e;
    }
    if (n === 0) process.exit(0);
    pending = Buffer.concat([pending, chunk.subarray(0, n)]);
  }
}
const receive = () => JSON.parse(readLine());
const job = receive();
const describe = (e) => String(e && typeof e === "object" && "message" in e ? (e.name || "Error") + ": " + String(e.message).split("\n").filter(Boolean).join(" ") : e).slice(0, 2000);
class TestTimeout extends Error { constructor(m) { super(m); this.name = "TestTimeout"; } }
class SolutionCrashed extends Error { constructor(m) { super(m); this.name = "SolutionCrashed"; } }
const ERRORS = { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError };
function raised(info) {
  const Kind = Object.hasOwn(ERRORS, info.type) ? ERRORS[info.type] : Error;
  const e = new Kind(String(info.message));
  if (Kind === Error && info.type !== "Error") e.name = "SolutionError";
  return e;
}
let ids = 0;
function stub(name) {
  const call = (...args) => {
    const id = ++ids;
    write({ call: { id, name, args: encode(args) } });
    let reply;
    do reply = receive(); while (reply.id !== id);
    if ("timeout" in reply) throw new TestTimeout("the solution ran past " + job.per_test_s + "s");
    if ("lost" in reply) throw new SolutionCrashed(String(reply.lost));
    if ("raise" in reply) throw raised(reply.raise);
    (reply.args || []).forEach((back, i) => {
      const sent = args[i];
      if (back === null || sent === null || typeof sent !== "object") return;
      const value = decode(back);
      if (Array.isArray(sent) && Array.isArray(value)) sent.splice(0, sent.length, ...value);
      else if (sent instanceof Map && value instanceof Map) { sent.clear(); for (const [k, v] of value) sent.set(k, v); }
      else if (sent instanceof Set && value instanceof Set) { sent.clear(); for (const v of value) sent.add(v); }
      else if (Object.getPrototypeOf(sent) === Object.prototype && Object.getPrototypeOf(value) === Object.prototype) { for (const k of Object.keys(sent)) delete sent[k]; Object.assign(sent, value); }
    });
    return decode(reply.ok);
  };
  Object.defineProperty(call, "name", { value: name });
  return call;
}
write({ load: true });
const ready = receive();
if ("load_error" in ready) {
  write({ load_error: String(ready.load_error).slice(0, 2000) });
  write({ done: true });
  process.exit(0);
}
const silent = { log() {}, info() {}, warn() {}, error() {}, debug() {}, dir() {}, table() {} };
Object.assign(globalThis, { assert, console: silent, require });
const taken = new Set(Object.getOwnPropertyNames(globalThis));
for (const [name, info] of Object.entries(ready.ready || {})) {
  if (!/^[A-Za-z_$][\w$]*$/.test(name) || (taken.has(name) && name !== job.entry_point)) continue;
  if (info && info.kind === "function") globalThis[name] = stub(name);
  else if (info && info.kind === "value") try { globalThis[name] = decode(info.v); } catch {}
}
// A test may await (its body is an async function's). Its verdict waits for its promise, and a
// promise it started without awaiting (an async IIFE) fails it by rejecting: before, the verdict
// was written as soon as the synchronous part returned, so every async test passed, any code.
const unhandled = [];
process.on("unhandledRejection", (e) => unhandled.push(e));
async function runTest(test, index) {
  unhandled.length = 0;
  const limitMs = (job.per_test_s + 1) * 1000;
  const ran = vm.runInThisContext("(async function () {\n" + test + "\n}).call(globalThis)", { filename: "test " + (index + 1), timeout: limitMs });
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new TestTimeout("the test ran past " + job.per_test_s + "s")), limitMs)));
  try {
    await Promise.race([ran, late]);
  } finally {
    clearTimeout(timer);
  }
  await new Promise((resolve) => setImmediate(resolve));
  if (unhandled.length) throw unhandled[0];
}
(async () => {
  for (const [index, test] of job.tests.entries()) {
    try {
      await runTest(test, index);
      write({ test: index, ok: true });
    } catch (e) {
      write({ test: index, ok: false, error: describe(e) });
    }
  }
  write({ done: true });
})();
`;
