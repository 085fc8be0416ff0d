import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/engine/key.js";

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
