import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cacheKey, canonicalJson } from "../../src/engine/key.js";
import { buildJudgeRequest } from "../../src/judge/prompt.js";
import { sharedCanonical } from "../../src/text/canonical-json.js";
import { loadRubricSync } from "../../src/rubric/load.js";

/** The previous recipe (a sorted deep copy, then JSON.stringify): existing cache keys were hashed from its text. */
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
const previous = (v: unknown) => JSON.stringify(sortDeep(v)) ?? "null";
// The old copy turned an own "__proto__" key into a prototype (and lost it); the direct writer keeps it.
const hasProtoKey = (v: unknown) => canonicalJson(v).includes('"__proto__"');

describe("canonicalJson (written directly, for the cache-lookup hot path)", () => {
  it("gives the same text as the sorted-copy recipe, so existing cache keys stay valid", () => {
    fc.assert(
      fc.property(fc.anything({ withDate: true, withNullPrototype: true, withSparseArray: true, withMap: true, withSet: true }), (v) => hasProtoKey(v) || previous(v) === canonicalJson(v)),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.dictionary(fc.oneof(fc.string(), fc.nat().map(String), fc.constantFrom("4294967295", "4294967294", "01", "-1")), fc.jsonValue()), (v) => hasProtoKey(v) || previous(v) === canonicalJson(v)),
      { numRuns: 3000 },
    );
  });

  it("sorts keys, lists integer-like keys first as JSON.stringify does, and drops undefined and functions", () => {
    const v = { b: [1, undefined, () => 1, { d: undefined, c: new Date(0) }], a: "x", 10: 1, 9: 2 };
    expect(canonicalJson(v)).toBe('{"9":2,"10":1,"a":"x","b":[1,null,null,{"c":"1970-01-01T00:00:00.000Z"}]}');
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson({ z: 1, a: { y: 2, b: 3 } })).toBe(canonicalJson({ a: { b: 3, y: 2 }, z: 1 }));
  });
});

describe("sharedCanonical (a value in many keys, written once)", () => {
  it("gives the text of the value it remembers, wherever the value sits, as an unshared copy would", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (part, around, key) => {
        const plain = structuredClone(part);
        const shared = typeof part === "object" && part !== null ? sharedCanonical(structuredClone(part)) : plain;
        const withShared = { ...around, [key]: [shared, { shared }] };
        const withPlain = { ...around, [key]: [plain, { shared: plain }] };
        return canonicalJson(withShared) === canonicalJson(withPlain) && (hasProtoKey(withPlain) || canonicalJson(withShared) === previous(withPlain));
      }),
      { numRuns: 2000 },
    );
  });

  it("freezes the value all the way down, so its remembered text cannot go stale", () => {
    const schema = sharedCanonical({ type: "object", properties: { verdict: { type: "boolean", enum: [true, false] } } });
    expect(() => {
      (schema.properties.verdict as { type: string }).type = "string";
    }).toThrow(TypeError);
    expect(() => (schema.properties.verdict.enum as boolean[]).push(true)).toThrow(TypeError);
    expect(canonicalJson(schema)).toBe('{"properties":{"verdict":{"enum":[true,false],"type":"boolean"}},"type":"object"}');
  });

  it("freezes the members of an object that was frozen already", () => {
    const inner = { type: "string" };
    const outer = Object.freeze({ a: inner, b: inner });
    sharedCanonical(outer);
    expect(() => {
      inner.type = "number";
    }).toThrow(TypeError);
    expect(canonicalJson(outer)).toBe('{"a":{"type":"string"},"b":{"type":"string"}}');
  });

  it("leaves a judge request's cache key as it was: the key of a plain copy of the request", () => {
    const rubric = loadRubricSync(new URL("../fixtures/rubrics/ten-questions.yaml", import.meta.url).pathname);
    const questions = rubric.criteria.map((c) => ({ id: c.id, question: String(c.question) }));
    for (const batched of [true, false]) {
      const request = buildJudgeRequest(rubric, { question: "q", answer: "a" }, batched ? questions : questions.slice(0, 1), batched, { model: "m", temperature: 0, maxTokens: 512, logprobs: false, structuredOutput: true });
      expect(Object.isFrozen(request.jsonSchema!.schema)).toBe(true);
      const key = (r: unknown) => cacheKey({ provider: "openai", baseURL: "https://api.openai.com/v1", request: r as typeof request, voteIndex: 0 });
      expect(key(request)).toBe(key(JSON.parse(JSON.stringify(request))));
    }
  });
});
