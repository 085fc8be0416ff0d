import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ambiguity, readsAsAnother, replaceSpans, roundedVariants, jsonErrorOffset, nestingDepth, jsonSyntaxErrorOffset, parseJsonLine, parseJsonOrUndefined, parseJsonText } from "../../src/text/json.js";

describe("parseJsonOrUndefined", () => {
  it("parses JSON of any kind, falsy values included", () => {
    expect(parseJsonOrUndefined('{"error":{"message":"bad"}}')).toEqual({ error: { message: "bad" } });
    expect(parseJsonOrUndefined("null")).toBeNull();
    expect(parseJsonOrUndefined("0")).toBe(0);
    expect(parseJsonOrUndefined('""')).toBe("");
  });

  it("is undefined for text that is not JSON, the empty text included", () => {
    for (const text of ["<html>proxy</html>", "", "{not json", "upstream connect error"]) expect(parseJsonOrUndefined(text)).toBeUndefined();
  });
});

describe("parseJsonLine", () => {
  const colOf = (text: string) => (parseJsonLine(text) as { col: number }).col;

  it("parses a JSON line", () => {
    expect(parseJsonLine('{"a": [1, "b"]}')).toEqual({ value: { a: [1, "b"] } });
  });

  it("says at which column (1-based) a line stops being JSON, with V8's reason minus its position", () => {
    // V8 states a position
    expect(parseJsonLine('{"a": 1,}')).toEqual({ reason: "Expected double-quoted property name", col: 9 });
    expect(parseJsonLine('{"a":1}}')).toEqual({ reason: "Unexpected non-whitespace character after JSON", col: 8 });
    // V8 states none ("Unexpected token 'x', …"): found by scanning
    expect(parseJsonLine('{"x": x}')).toEqual({ reason: `Unexpected token 'x', "{"x": x}" is not valid JSON`, col: 7 });
    expect(colOf('{"key": "value", "other": tru }')).toBe(30);
    expect(colOf("NaN")).toBe(1);
  });

  it("an early end is the column after the last character", () => {
    expect(parseJsonLine('{"a": ')).toEqual({ reason: "Unexpected end of JSON input", col: 7 });
    expect(parseJsonLine("tru")).toEqual({ reason: "Unexpected end of JSON input", col: 4 });
  });

  it("counts characters as an editor does: an accented letter or an emoji is one column", () => {
    expect(colOf('{"é": 1 x}')).toBe(9);
    expect(colOf('{"😀": 1 x}')).toBe(9);
    expect(colOf('["😀", x]')).toBe(7);
  });

  it("reads the newer V8 form 'at position N (line L column C)' as the same column", () => {
    // What Node 22+ prints; the message is read, not the Node this test runs on.
    expect(jsonErrorOffset('{"a": 1 x}', "Expected ',' or '}' after property value in JSON at position 8 (line 1 column 9)")).toBe(8);
    expect(jsonErrorOffset('{"a": 1 x}', "Expected ',' or '}' after property value (line 1 column 9)")).toBe(8);
    expect(jsonErrorOffset('{"a": 1 x}', "something else entirely")).toBe(8);
  });
});

describe("parseJsonText", () => {
  it("parses a whole document of many lines", () => {
    expect(parseJsonText('{\n  "a": [1,\n    2]\n}\n')).toEqual({ value: { a: [1, 2] } });
  });

  it("says at which line and column (1-based) a document stops being JSON, with V8's reason minus its position", () => {
    // V8 states a position (an offset into the whole text): turned into the line and its column.
    expect(parseJsonText('{\n  "name": "x",\n  "version": "1.0.0",\n}\n')).toEqual({ reason: "Expected double-quoted property name", line: 4, col: 1 });
    expect(parseJsonText('{\n  "a": "é😀" y\n}')).toEqual({ reason: "Expected ',' or '}' after property value", line: 2, col: 13 });
    // V8 states none: found by scanning the whole text.
    expect(parseJsonText('{\n  "a": [1, 2,\n   x]\n}')).toMatchObject({ line: 3, col: 4 });
  });

  it("an early end is after the last character; a byte order mark is not a column", () => {
    expect(parseJsonText('{\n  "a": ')).toEqual({ reason: "Unexpected end of JSON input", line: 2, col: 8 });
    expect(parseJsonText("")).toEqual({ reason: "Unexpected end of JSON input", line: 1, col: 1 });
    expect(parseJsonText('\uFEFF{"a": 1}')).toEqual({ value: { a: 1 } });
    expect(parseJsonText('\uFEFF{"a" 1}')).toMatchObject({ line: 1, col: 6 });
  });
});

describe("jsonSyntaxErrorOffset", () => {
  it("is undefined for JSON", () => {
    for (const text of ['{"a": [1, -2.5e+3, true, false, null, "x\\u00e9\\n"]}', " [] ", "0", '""', "[[[[]]]]", '{"a":{"b":{}}}']) expect(jsonSyntaxErrorOffset(text), text).toBeUndefined();
  });

  it("finds the position V8 states, on thousands of broken lines", () => {
    // Valid lines with one character deleted, replaced or inserted: wherever V8 names a position, the scan finds the same one.
    const lines = ['{"id": 1, "response": "a \\"quoted\\" word", "tags": ["x", "y"], "score": -0.25e-3, "ok": true, "none": null}', '[{"a": {}}, [], "\\u00e9", 12, false]'];
    const alphabet = ['"', "{", "}", "[", "]", ",", ":", " ", "\\", "-", "0", "1", ".", "e", "+", "x", "u", "t", "n", "\t"];
    let compared = 0;
    for (const line of lines)
      for (let at = 0; at <= line.length; at++)
        for (const variant of [line.slice(0, at) + line.slice(at + 1), ...alphabet.flatMap((c) => [line.slice(0, at) + c + line.slice(at + 1), line.slice(0, at) + c + line.slice(at)])]) {
          let position: number | undefined;
          let message = "";
          try {
            JSON.parse(variant);
          } catch (e) {
            message = (e as Error).message;
            const stated = / at position (\d+)/.exec(message);
            position = stated ? Number(stated[1]) : /Unexpected end of JSON input/.test(message) ? variant.length : -1;
          }
          if (position === -1) {
            // "Unexpected token 'x', …": the scan must stop at that character.
            const token = /^Unexpected token '(.)'/su.exec(message)?.[1];
            const offset = jsonSyntaxErrorOffset(variant);
            expect(offset, variant).toBeDefined();
            if (token !== undefined) expect(variant[offset!], variant).toBe(token);
            continue;
          }
          expect(jsonSyntaxErrorOffset(variant), variant).toBe(position);
          compared++;
        }
    expect(compared).toBeGreaterThan(3000);
  });
});

describe("ambiguity", () => {
  it("JSON that JSON.stringify writes is never ambiguous; the same text with a key repeated always is", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => ambiguity(JSON.stringify(value)) === undefined));
    const object = fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1, maxKeys: 6 });
    fc.assert(
      fc.property(object, fc.nat(), fc.jsonValue(), (value, pick, extra) => {
        const keys = Object.keys(value);
        const repeated = keys[pick % keys.length];
        const text = `${JSON.stringify(value).slice(0, -1)},${JSON.stringify(repeated)}:${JSON.stringify(extra)}}`;
        return ambiguity(text) === `the key ${JSON.stringify(repeated.length > 40 ? `${repeated.slice(0, 40)}…` : repeated)} appears twice in one object`;
      }),
    );
  });
});

describe("nestingDepth", () => {
  it("counts objects and arrays, not scalars, by a loop, and stops at the cap", () => {
    expect(nestingDepth("x", 10)).toBe(0);
    expect(nestingDepth({ a: [1, { b: [] }], c: "d" }, 10)).toBe(4);
    expect(nestingDepth({ a: [1, { b: [] }] }, 4)).toBe(4);
    expect(nestingDepth({ a: [1, { b: [] }] }, 5)).toBe(4);
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(nestingDepth(deep, 129)).toBe(129);
  });
});


describe("roundedVariants", () => {
  it("finds the integers JSON.parse rounds, and writes each as the doubles beside the one it reads as", () => {
    const json = '{"a": 18446744073709551615, "b": 9007199254740993, "c": 18446744073709551616, "d": 1.5e300, "e": "18446744073709551615"}';
    const unsafe: [number, number][] = [];
    expect(ambiguity(json, { unsafeIntegers: unsafe })).toBeUndefined();
    expect(unsafe.map(([start, end]) => json.slice(start, end))).toEqual(["18446744073709551615", "9007199254740993", "18446744073709551616"]);
    const rounded = unsafe.filter(([start, end]) => readsAsAnother(json.slice(start, end)));
    expect(rounded.map(([start, end]) => json.slice(start, end))).toEqual(["18446744073709551615", "9007199254740993"]);
    const variants = roundedVariants(json, rounded).map((v) => JSON.parse(v) as { a: number; b: number });
    expect(variants.map((v) => [BigInt(v.a), BigInt(v.b)])).toEqual([
      [18446744073709555712n, 9007199254740992n],
      [18446744073709547520n, 9007199254740992n], // 2^64 − 4096: below a power of two, two doubles down
      [18446744073709551616n, 9007199254740994n],
      [18446744073709551616n, 9007199254740990n],
    ]);
  });

  it("every variant differs from what JSON.parse read, and is otherwise the same text", () => {
    const big = fc.bigInt({ min: 2n ** 53n + 1n, max: 2n ** 80n }).filter((n) => BigInt(Number(n)) !== n);
    fc.assert(
      fc.property(big, fc.boolean(), (n, negative) => {
        const written = `${negative ? -n : n}`;
        const json = `{"x": ${written}, "y": "keep"}`;
        const unsafe: [number, number][] = [];
        ambiguity(json, { unsafeIntegers: unsafe });
        const rounded = unsafe.filter(([start, end]) => readsAsAnother(json.slice(start, end)));
        const read = Number(written);
        return rounded.length === 1 && roundedVariants(json, rounded).every((v) => {
          const parsed = JSON.parse(v) as { x: number; y: string };
          return parsed.x !== read && parsed.y === "keep";
        });
      }),
    );
  });
});

describe("replaceSpans", () => {
  it("writes each span as given, keeps the rest and the spans it gets undefined for", () => {
    expect(replaceSpans("a 12 b 345 c", [[2, 4], [7, 10]], (written) => `<${written}>`)).toBe("a <12> b <345> c");
    expect(replaceSpans("a 12 b 345 c", [[2, 4], [7, 10]], (_w, i) => (i === 1 ? "x" : undefined))).toBe("a 12 b x c");
    expect(replaceSpans("abc", [], () => "x")).toBe("abc");
  });
});
