import { canonicalJson } from "../../src/engine/key.js";
import fc from "fast-check";
function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value === null || typeof value !== "object") return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return sortDeep((value as { toJSON(): unknown }).toJSON());
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined && typeof v !== "function") out[k] = sortDeep(v);
  }
  return out;
}
const old = (v: unknown) => JSON.stringify(sortDeep(v)) ?? "null";
fc.assert(fc.property(fc.anything({ withDate: true, withNullPrototype: true, withObjectString: true, withSparseArray: true, withMap: true, withSet: true, withBoxedValues: false }), (v) => canonicalJson(v).includes("__proto__") || old(v) === canonicalJson(v)), { numRuns: 20000 });
fc.assert(fc.property(fc.dictionary(fc.oneof(fc.string(), fc.nat().map(String), fc.constant("4294967295"), fc.constant("01")), fc.jsonValue()), (v) => canonicalJson(v).includes("__proto__") || old(v) === canonicalJson(v)), { numRuns: 20000 });
console.log("same", old({ b: [1, undefined, () => 1, { d: undefined, c: new Date(0) }], a: "x", 10: 1, 9: 2 }), canonicalJson({ b: [1, undefined, () => 1, { d: undefined, c: new Date(0) }], a: "x", 10: 1, 9: 2 }));
import { buildJudgeRequest } from "../../src/judge/prompt.js";
import { sample, tenQuestions } from "../lib/common.js";
const rubric = tenQuestions();
const qs = rubric.criteria.map((c) => ({ id: c.id, question: c.question!, version: c.version }));
const req = buildJudgeRequest(rubric, sample(1), qs, true, { model: "m", temperature: 0, maxTokens: 1024, logprobs: false, structuredOutput: true });
const parts = { provider: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", request: req, voteIndex: 0, extra: { attempt: 0, versions: qs.map(() => null) } };
const time = (fn: () => unknown) => { const t = performance.now(); for (let i = 0; i < 5000; i++) fn(); return (performance.now() - t) * 1000 / 5000; };
const a: number[] = [], b: number[] = [], c: number[] = [];
for (let r = 0; r < 10; r++) { a.push(time(() => old(parts))); b.push(time(() => canonicalJson(parts))); c.push(time(() => JSON.stringify(parts))); }
const med = (x: number[]) => x.sort((p, q) => p - q)[5].toFixed(2);
console.log("old", med(a), "new", med(b), "plain stringify", med(c));
