import { Ajv } from "ajv";
import { describe, expect, it, vi } from "vitest";
import { COMPILE_CACHE_LIMIT, compileJsonSchema } from "../../src/checks/compile.js";
import { extractNumber, parseNumber } from "../../src/checks/number.js";
import type { CustomChecks } from "../../src/checks/custom.js";
import { normalizeText, runCheck, type RunCheckOptions } from "../../src/checks/run.js";
import { RubricateError } from "../../src/errors.js";
import type { Check } from "../../src/rubric/schema.js";

const pass = async (check: Check, response: unknown, extra: Record<string, unknown> = {}, options: RunCheckOptions = {}) => (await runCheck(check, { response, ...extra }, options)).pass;

async function checkError(check: Check, sample: Record<string, unknown>, options: RunCheckOptions = {}): Promise<RubricateError> {
  try {
    await runCheck(check, sample, options);
  } catch (e) {
    expect(e).toBeInstanceOf(RubricateError);
    return e as RubricateError;
  }
  throw new Error("expected the check to throw");
}

describe("regex", () => {
  it("matches, with flags, and says what it matched", async () => {
    expect(await pass({ regex: "^\\d+$" }, "123")).toBe(true);
    expect(await pass({ regex: "^\\d+$" }, "12a")).toBe(false);
    expect(await pass({ regex: "paris" }, "PARIS")).toBe(false);
    expect(await pass({ regex: { pattern: "paris", flags: "i" } }, "PARIS")).toBe(true);
    expect(await pass({ regex: { pattern: "^b", flags: "m" } }, "a\nb")).toBe(true);
    expect(await pass({ regex: { pattern: "^b" } }, "a\nb")).toBe(false);
    expect(await pass({ regex: { pattern: "a.b", flags: "s" } }, "a\nb")).toBe(true);
    expect(await runCheck({ regex: "x" }, { response: "y" })).toEqual({ pass: false, reasoning: "does not match /x/", source: "check" });
  });

  it("the g flag leaves no state between calls (lastIndex)", async () => {
    const check: Check = { regex: { pattern: "a", flags: "g" } };
    for (let i = 0; i < 4; i++) expect(await pass(check, "a")).toBe(true);
  });

  it("reads another field when told", async () => {
    expect(await runCheck({ regex: "^ok$", field: "status" }, { response: "no", status: "ok" })).toMatchObject({ pass: true });
  });
});

describe("contains / not_contains", () => {
  it("is case-insensitive by default; case_sensitive makes it exact", async () => {
    expect(await pass({ contains: "paris" }, "It is Paris.")).toBe(true);
    expect(await pass({ contains: "paris", case_sensitive: true }, "It is Paris.")).toBe(false);
    expect(await pass({ contains: "Paris", case_sensitive: true }, "It is Paris.")).toBe(true);
  });

  it("any (default) vs all", async () => {
    expect(await pass({ contains: ["london", "paris"] }, "paris")).toBe(true);
    expect(await pass({ contains: ["london", "paris"], match: "all" }, "paris")).toBe(false);
    expect(await pass({ contains: ["london", "paris"], match: "all" }, "Paris and London")).toBe(true);
    expect(await pass({ contains: ["london", "paris"] }, "rome")).toBe(false);
    const result = await runCheck({ contains: ["london", "paris"], match: "all" }, { response: "paris" });
    expect(result.reasoning).toBe('missing "london"');
  });

  it("not_contains passes only when none appear", async () => {
    expect(await pass({ not_contains: ["idiot", "stupid"] }, "a kind answer")).toBe(true);
    expect(await pass({ not_contains: ["idiot", "stupid"] }, "that is STUPID")).toBe(false);
    expect(await pass({ not_contains: "Stupid", case_sensitive: true }, "that is stupid")).toBe(true);
    expect((await runCheck({ not_contains: ["idiot", "stupid"] }, { response: "stupid idiot" })).reasoning).toBe('contains "idiot", "stupid"');
  });
});

describe("contains / not_contains under attack: the text as a reader sees it", () => {
  it("a forbidden phrase hidden by zero-width or invisible characters, full-width letters or other spaces is still found", async () => {
    for (const disguised of ["As an\u200B AI model", "As an A\u200CI", "As an\u00A0AI", "As an\nAI", "As  an AI", "Ａｓ ａｎ ＡＩ", "As an A\u00ADI", "\u202EAs an AI", "As\u2060 an\uFEFF AI"]) {
      expect(await pass({ not_contains: "As an AI" }, disguised), JSON.stringify(disguised)).toBe(false);
      expect(await pass({ not_contains: "As an AI", case_sensitive: true }, disguised), JSON.stringify(disguised)).toBe(false);
    }
  });

  it("a forbidden phrase written with look-alike letters of other scripts (Cyrillic, Greek, Cherokee) or a capital I for an l is still found", async () => {
    // Cyrillic А ѕ а І, Greek Α Ι, Cherokee Ꭺ: each drawn like the Latin letter it replaces.
    for (const disguised of ["\u0410\u0455 \u0430n \u0410\u0406 model", "As an \u0391\u0399", "As an A\u0406", "As an \u13AAI"]) {
      expect(await pass({ not_contains: "As an AI" }, disguised), JSON.stringify(disguised)).toBe(false);
      expect(await pass({ not_contains: "As an AI", case_sensitive: true }, disguised), JSON.stringify(disguised)).toBe(false);
    }
    // A small capital (Cyrillic т is drawn as ᴛ) is its letter to a case-insensitive check.
    expect(await pass({ not_contains: "As an AI" }, "As an \u1D00I")).toBe(false);
    expect(await pass({ not_contains: "stupid" }, "\u0455\u0442upid")).toBe(false);
    expect(await pass({ not_contains: "stupid" }, "You are stup\u0456d.")).toBe(false);
    expect(await pass({ not_contains: "kill" }, "I will kiIl it")).toBe(false);
    expect(await pass({ not_contains: "kill" }, "I will ki|| it")).toBe(false);
  });

  it("the same reading for contains: a required word written in full-width or split by a soft hyphen counts, as a reader sees it", async () => {
    expect(await pass({ contains: "Paris" }, "It is Ｐａｒｉｓ.")).toBe(true);
    expect(await pass({ contains: "Paris", case_sensitive: true }, "It is Par\u00ADis.")).toBe(true);
    expect(await pass({ contains: "Paris", case_sensitive: true }, "It is paris.")).toBe(false);
  });

  it("honest text is unaffected; an invisible needle is still looked for as written", async () => {
    expect(await pass({ not_contains: "As an AI" }, "As an engineer, I would use a lock.")).toBe(true);
    expect(await pass({ not_contains: "\u200B" }, "plain text")).toBe(true);
    expect(await pass({ not_contains: "\u200B" }, "hidden\u200Bmark")).toBe(false);
  });

  it("honest text reads as before: case folds, accents count, other scripts match themselves, near-spellings stay apart", async () => {
    expect(await pass({ contains: "iphone" }, "THE IPHONE 15")).toBe(true);
    expect(await pass({ contains: "Istanbul" }, "istanbul")).toBe(true);
    expect(await pass({ contains: "нет" }, "Ответ: НЕТ.")).toBe(true);
    expect(await pass({ contains: "Ελλάδα" }, "στην ΕΛΛΆΔΑ")).toBe(true);
    expect(await pass({ not_contains: "fire" }, "the flre alarm")).toBe(true);
    expect(await pass({ not_contains: "cafe" }, "un café")).toBe(true);
    expect(await pass({ not_contains: "As an AI" }, "As an engineer, I would use a lock.")).toBe(true);
  });
});

describe("equals", () => {
  it("normalises by default: trim, white space, case, trailing punctuation, NFKC", async () => {
    expect(await pass({ equals: "Paris" }, "  paris.  ")).toBe(true);
    expect(await pass({ equals: "New York" }, "new   york!")).toBe(true);
    expect(await pass({ equals: "ﬁne" }, "fine")).toBe(true);
    expect(await pass({ equals: "Paris" }, "Paris, France")).toBe(false);
    expect(normalizeText("  A\tB\n C?! ")).toBe("a b c");
  });

  it("normalize: false compares exactly", async () => {
    expect(await pass({ equals: "Paris", normalize: false }, "paris")).toBe(false);
    expect(await pass({ equals: "Paris", normalize: false }, "Paris ")).toBe(false);
    expect(await pass({ equals: "Paris", normalize: false }, "Paris")).toBe(true);
  });

  it("templates the expected value from the sample, numbers and booleans as text", async () => {
    expect(await pass({ equals: "{{reference}}" }, "Lyon", { reference: "lyon" })).toBe(true);
    expect(await pass({ equals: "{{reference}}" }, "Lyon", { reference: "Nice" })).toBe(false);
    expect(await pass({ equals: 42 }, "42")).toBe(true);
    expect(await pass({ equals: true }, "True")).toBe(true);
    const error = await checkError({ equals: "{{reference}}" }, { response: "x" });
    expect(error.code).toBe("TEMPLATE_MISSING_VAR");
  });
});

describe("json_schema", () => {
  const schema = { type: "object", required: ["name"], properties: { name: { type: "string" }, email: { type: "string", format: "email" } } };

  it("valid, invalid, fenced, not JSON", async () => {
    expect(await runCheck({ json_schema: schema }, { response: '{"name": "Ada"}' })).toEqual({ pass: true, reasoning: "valid against the schema", source: "check" });
    const invalid = await runCheck({ json_schema: schema }, { response: '{"email": "not-an-email"}' });
    expect(invalid.pass).toBe(false);
    expect(invalid.reasoning).toBe("schema violations: / must have required property 'name'; /email must match format \"email\"");
    expect(await pass({ json_schema: schema }, '```json\n{"name": "Ada"}\n```')).toBe(true);
    expect(await pass({ json_schema: schema }, '```\n{"name": "Ada"}\n```')).toBe(true);
    const prose = await runCheck({ json_schema: schema }, { response: 'Here: {"name": "Ada"}' });
    expect(prose.pass).toBe(false);
    expect(prose.reasoning).toMatch(/^not valid JSON: /);
  });

  it("a structured (non-string) input is checked as its JSON", async () => {
    expect(await pass({ json_schema: schema }, { name: "Ada" })).toBe(true);
  });

  it("compiles each distinct schema once and reuses the validator", async () => {
    const spy = vi.spyOn(Ajv.prototype, "compile");
    try {
      const fresh = { type: "object", required: ["only-in-this-test-" + Math.random()] };
      for (let i = 0; i < 5; i++) await runCheck({ json_schema: fresh }, { response: "{}" });
      expect(spy).toHaveBeenCalledTimes(1);
      expect(compileJsonSchema(fresh)).toBe(compileJsonSchema(structuredClone(fresh)));
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });

  it("the cache is bounded: past COMPILE_CACHE_LIMIT distinct schemas the least recently used is dropped (and recompiled if needed)", () => {
    const tag = Math.random();
    const schemaN = (n: number) => ({ type: "object", properties: { [`p${n}`]: { const: tag } } });
    const first = compileJsonSchema(schemaN(0));
    for (let n = 1; n < COMPILE_CACHE_LIMIT; n++) compileJsonSchema(schemaN(n));
    expect(compileJsonSchema(schemaN(0))).toBe(first); // still cached, and now most recently used
    compileJsonSchema(schemaN(COMPILE_CACHE_LIMIT)); // evicts schema 1, the least recently used
    const spy = vi.spyOn(Ajv.prototype, "compile");
    try {
      expect(compileJsonSchema(schemaN(0))).toBe(first);
      expect(spy).toHaveBeenCalledTimes(0);
      const again = compileJsonSchema(schemaN(1));
      expect(spy).toHaveBeenCalledTimes(1);
      expect(again({ p1: tag })).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it("an evicted schema with an $id can be compiled again (ajv forgets it too)", () => {
    const withId = { $id: `urn:test:evict-${Math.random()}`, type: "string" };
    const v1 = compileJsonSchema(withId);
    for (let n = 0; n < COMPILE_CACHE_LIMIT; n++) compileJsonSchema({ type: "number", minimum: n, description: String(withId.$id) });
    const v2 = compileJsonSchema(withId);
    expect(v2).not.toBe(v1);
    expect(v2("x")).toBe(true);
    expect(v2(1)).toBe(false);
  });

  it("two different schemas with the same $id both work", async () => {
    expect(await pass({ json_schema: { $id: "urn:test:same", type: "object" } }, "{}")).toBe(true);
    expect(await pass({ json_schema: { $id: "urn:test:same", type: "array" } }, "{}")).toBe(false);
    expect(await pass({ json_schema: { $id: "urn:test:same", type: "array" } }, "[]")).toBe(true);
  });

  it("a required property named like an Object.prototype member is not met by inheritance", async () => {
    for (const name of ["constructor", "toString", "valueOf", "hasOwnProperty"]) {
      expect(await pass({ json_schema: { type: "object", required: [name] } }, '{"a": 1}'), name).toBe(false);
      expect(await pass({ json_schema: { type: "object", dependencies: { a: [name] } } }, '{"a": 1}'), name).toBe(false);
      expect(await pass({ json_schema: { type: "object", required: [name] } }, `{"${name}": "Ferrari"}`), name).toBe(true);
    }
    expect(await pass({ tool_calls: { arguments: { tool: "search", schema: { type: "object", required: ["constructor"] } } } }, "x", { tool_calls: [{ name: "search", arguments: "{}" }] })).toBe(false);
  });

  it("an invalid schema is a SCHEMA error, not a 'no'", async () => {
    const error = await checkError({ json_schema: { type: "objekt" } }, { response: "{}" });
    expect(error.code).toBe("SCHEMA");
    expect(error.message).toMatch(/^invalid JSON Schema: /);
  });
});

describe("number", () => {
  it("extracts boxed, else last; first and last on request", () => {
    expect(extractNumber("x = 3, so \\boxed{12} and then 99", undefined)).toBe(12);
    expect(extractNumber("\\boxed{1} then \\boxed{2}", undefined)).toBe(2);
    expect(extractNumber("first 3 then 5 then 8", undefined)).toBe(8);
    expect(extractNumber("first 3 then 5 then 8", "first")).toBe(3);
    expect(extractNumber("first 3 then \\boxed{5} then 8", "last")).toBe(8);
    expect(extractNumber("3 then 8", "boxed")).toBeUndefined();
    expect(extractNumber("\\boxed{\\frac{3}{4}}", undefined)).toBe(0.75);
    expect(extractNumber("\\boxed{-\\dfrac{1}{2}}", "boxed")).toBe(-0.5);
    expect(extractNumber("no digits here", undefined)).toBeUndefined();
  });

  it("parses commas, negatives (also U+2212), decimals, exponents, fractions", () => {
    expect(extractNumber("there were 1,234,567 people", undefined)).toBe(1234567);
    expect(extractNumber("cost $1,000.50 total", undefined)).toBe(1000.5);
    expect(extractNumber("it fell to -7 degrees", undefined)).toBe(-7);
    expect(extractNumber("it fell to −7 degrees", undefined)).toBe(-7);
    expect(extractNumber("the answer is 3/4.", undefined)).toBe(0.75);
    expect(extractNumber("about 6.02e23 atoms", undefined)).toBe(6.02e23);
    expect(extractNumber("a half is .5", undefined)).toBe(0.5);
    expect(parseNumber("-3 / 4")).toBe(-0.75);
    expect(parseNumber("abc")).toBeNaN();
  });

  it("reads a long run of digits that is not a number in linear time (a reference from a sample, say)", () => {
    expect(parseNumber(`${"1".repeat(200_000)}x`)).toBeNaN();
    expect(parseNumber(`${"1".repeat(200_000)}e`)).toBeNaN();
    expect(parseNumber(`${"1".repeat(5)}.25`)).toBe(11111.25);
  });

  it("compares with absolute (default 1e-6) and relative tolerance", async () => {
    expect(await pass({ number: { expected: 12 } }, "The answer is 12.")).toBe(true);
    expect(await pass({ number: { expected: 12 } }, "The answer is 12.001")).toBe(false);
    expect(await pass({ number: { expected: 12, tolerance: 0.01 } }, "The answer is 12.001")).toBe(true);
    expect(await pass({ number: { expected: 1000, tolerance: 0.01, relative: true } }, "about 1,009")).toBe(true);
    expect(await pass({ number: { expected: 1000, tolerance: 0.01, relative: true } }, "about 1,011")).toBe(false);
    expect(await pass({ number: { expected: -0.75 } }, "so x = -3/4")).toBe(true);
  });

  it("templates expected from the sample", async () => {
    expect(await pass({ number: { expected: "{{answer}}" } }, "so \\boxed{1,024}", { answer: "1024" })).toBe(true);
    expect(await pass({ number: { expected: "{{answer}}" } }, "so \\boxed{1,025}", { answer: "1024" })).toBe(false);
    expect(await pass({ number: { expected: "{{answer}}" } }, "7", { answer: 7 })).toBe(true);
    expect((await checkError({ number: { expected: "{{answer}}" } }, { response: "7" })).code).toBe("TEMPLATE_MISSING_VAR");
    const notNumber = await checkError({ number: { expected: "{{answer}}" } }, { response: "7", answer: "seven" });
    expect(notNumber.code).toBe("CHECK_FAILED");
    expect(notNumber.message).toBe('expected value "{{answer}}" is not a number');
  });

  it("no number in the response is a 'no' with a reason (a real answer, not an error)", async () => {
    expect(await runCheck({ number: { expected: 3 } }, { response: "I do not know" })).toEqual({ pass: false, reasoning: "no number found in the response", source: "check" });
  });
});

describe("length", () => {
  it("counts characters (code points) and words against min and max", async () => {
    expect(await pass({ length: { max: 5 } }, "12345")).toBe(true);
    expect(await pass({ length: { max: 5 } }, "123456")).toBe(false);
    expect(await pass({ length: { min: 3 } }, "ab")).toBe(false);
    expect(await pass({ length: { max: 2 } }, "😀😀")).toBe(true);
    expect(await pass({ length: { min: 2, max: 3, unit: "words" } }, "  one   two\nthree ")).toBe(true);
    expect(await pass({ length: { min: 2, max: 3, unit: "words" } }, "one")).toBe(false);
    expect(await pass({ length: { min: 2, max: 3, unit: "words" } }, "a b c d")).toBe(false);
    expect(await pass({ length: { min: 1, unit: "words" } }, "   ")).toBe(false);
    expect((await runCheck({ length: { min: 2, max: 3, unit: "words" } }, { response: "a b c d" })).reasoning).toBe("4 words (allowed 2–3)");
  });
});

describe("number under attack: hedging inside the one box", () => {
  it.each([
    ["\\boxed{3 or 5}", 5],
    ["\\boxed{3, 5}", 5],
    ["\\boxed{3; 5}", 3],
    ["\\boxed{5 or 3}", 3],
    ["\\boxed{4-5}", 5],
    ["\\boxed{\\pm 5}", 5],
    ["\\boxed{\\pm 5}", -5],
    ["\\boxed{±5}", 5],
    ["\\boxed{x = 3 or x = 5}", 5],
  ])("%s does not earn expected %d: several different numbers (or ±) in the box are a hedge", async (response, expected) => {
    expect(await runCheck({ number: { expected } }, { response })).toMatchObject({ pass: false, reasoning: expect.stringMatching(/not one number/) });
    expect(await pass({ number: { expected, pick: "boxed" } }, response)).toBe(false);
  });

  it("one number in the box still passes, written with separators, a sign, a unit, a fraction or an exponent beside it", async () => {
    expect(await pass({ number: { expected: 1024 } }, "so \\boxed{1,024}")).toBe(true);
    expect(await pass({ number: { expected: -3 } }, "so \\boxed{x = -3}")).toBe(true);
    expect(await pass({ number: { expected: 0.75 } }, "so \\boxed{\\frac{3}{4}}")).toBe(true);
    expect(await pass({ number: { expected: 5 } }, "so \\boxed{5 = 5.0}")).toBe(true);
    expect(await pass({ number: { expected: 5 } }, "so \\boxed{5 m^2}")).toBe(true);
    expect(await pass({ number: { expected: 5 } }, "so \\boxed{x_1 = 5}")).toBe(true);
    expect(await pass({ number: { expected: 5 } }, "3 or 5? I compute 2 + 3 = \\boxed{5}")).toBe(true);
  });
});

describe("length under attack", () => {
  it("a long answer whose words are joined by invisible or blank-looking non-space characters is still many words", async () => {
    const words = ["one", "two", "three", "four", "five", "six", "seven"];
    for (const joiner of ["\u200B", "\u2800", "\u3164", "\u2060", "\u00AD", "\u180E", "\uFFA0", " \u200B "]) {
      expect(await runCheck({ length: { max: 5, unit: "words" } }, { response: words.join(joiner) }), JSON.stringify(joiner)).toMatchObject({ pass: false, reasoning: "7 words (allowed 0–5)" });
    }
  });

  it("a long answer whose words are joined by punctuation is still many words", async () => {
    const words = ["one", "two", "three", "four", "five", "six", "seven"];
    for (const joiner of ["/", "-", "_", ".", ",", "'", "|", "+", "…", "·", "\u2014", "\u3001"]) {
      expect(await runCheck({ length: { max: 5, unit: "words" } }, { response: words.join(joiner) }), JSON.stringify(joiner)).toMatchObject({ pass: false, reasoning: "7 words (allowed 0–5)" });
    }
  });

  it("padding of marks or punctuation is no words under a min", async () => {
    for (const pad of [" \u0301", " .", " -", " \u3164", " \u2800"]) {
      expect((await runCheck({ length: { min: 5, unit: "words" } }, { response: `ok${pad.repeat(300)}` })).reasoning, JSON.stringify(pad)).toBe("1 words (allowed 5–∞)");
    }
  });

  it("honest text: white space of any kind and punctuation separate words; a number is one; each CJK character is one", async () => {
    const words = (response: string) => runCheck({ length: { max: 5, unit: "words" } }, { response }).then((r) => r.reasoning);
    expect(await words(" one two\u00A0three\nfour\tfive ")).toBe("5 words (allowed 0–5)");
    expect(await words("well-known, state-of-the-art")).toBe("6 words (allowed 0–5)");
    expect(await words("It's 3.14, not 1,000,000.")).toBe("5 words (allowed 0–5)");
    expect(await words("Ça coûte 20 €, naïvement")).toBe("4 words (allowed 0–5)");
    expect(await words("cafe\u0301 Москва")).toBe("2 words (allowed 0–5)");
    expect(await words("東京タワーは2024年")).toBe("8 words (allowed 0–5)");
  });
});

describe("attacks that hold (each a policy's try that must not earn the reward)", () => {
  it("equals: a zero-width space, a right-to-left override or trailing words are not the value", async () => {
    expect(await pass({ equals: "Paris" }, "Paris\u200B")).toBe(false);
    expect(await pass({ equals: "Paris" }, "\u202EParis")).toBe(false);
    expect(await pass({ equals: "5" }, "5 or 6")).toBe(false);
  });

  it("number: Infinity, an overflowing exponent, NaN and hex are no answer for a finite value", async () => {
    expect(await pass({ number: { expected: 5, tolerance: 0.1, relative: true } }, "\\boxed{1e309}")).toBe(false);
    expect(await pass({ number: { expected: "{{a}}" } }, "1e309", { a: "1e309" })).toBe(false);
    expect(await pass({ number: { expected: 5 } }, "NaN")).toBe(false);
    expect(await pass({ number: { expected: 255 } }, "0xff")).toBe(false);
    expect(await pass({ number: { expected: 1000 } }, "1.000")).toBe(false);
  });

  it("json_schema: __proto__ and constructor keys do not supply or hide properties; a BOM or two fences are not JSON", async () => {
    expect(await pass({ json_schema: { type: "object", required: ["a"] } }, '{"__proto__": {"a": 1}}')).toBe(false);
    expect(await pass({ json_schema: { type: "object", properties: { a: { type: "number" } }, additionalProperties: false } }, '{"a": 1, "__proto__": {"x": 1}}')).toBe(false);
    expect(await pass({ json_schema: { type: "object", properties: { a: { type: "number" } }, additionalProperties: false } }, '{"a": 1, "constructor": 2}')).toBe(false);
    expect(await pass({ json_schema: { type: "object", required: ["a"] } }, '\uFEFF{"a":1}')).toBe(false);
    expect(await pass({ json_schema: { type: "object", required: ["a"] } }, '```json\n{"a":1}\n```\nand\n```json\n{"b":1}\n```')).toBe(false);
  });

  it("regex: a trailing newline does not satisfy $ without the m flag", async () => {
    expect(await pass({ regex: "^\\d+$" }, "12\n")).toBe(false);
  });
});

describe("custom", () => {
  // Passed where they are used: no process-wide registry to clean up between tests.
  const checks: CustomChecks = {
    "t-bool": (text) => text.length % 2 === 0,
    "t-object": (text) => ({ pass: text.includes("!"), reasoning: "looked for !" }),
    "t-args": (text, ctx) => text === `${String(ctx.args.prefix)}${String(ctx.sample.name)}`,
    "t-async": async (text) => text === "later",
    "t-throws": () => {
      throw new TypeError("boom");
    },
    "t-bad-return": () => "yes" as unknown as boolean,
  };
  const withChecks = { checks };

  it("runs a passed function returning a boolean or { pass, reasoning }, with args and sample", async () => {
    expect(await runCheck({ custom: "t-bool" }, { response: "ab" }, withChecks)).toEqual({ pass: true, source: "check" });
    expect(await pass({ custom: "t-bool" }, "abc", {}, withChecks)).toBe(false);
    expect(await runCheck({ custom: "t-object" }, { response: "hi!" }, withChecks)).toEqual({ pass: true, reasoning: "looked for !", source: "check" });
    expect(await pass({ custom: "t-args", args: { prefix: "Dr. " } }, "Dr. Who", { name: "Who" }, withChecks)).toBe(true);
    expect(await pass({ custom: "t-async" }, "later", {}, withChecks)).toBe(true);
  });

  it("a throwing check is an error verdict (CHECK_FAILED), never a 'no'", async () => {
    const error = await checkError({ custom: "t-throws" }, { response: "x" }, withChecks);
    expect(error.code).toBe("CHECK_FAILED");
    expect(error.message).toBe("boom");
  });

  it("a return that is neither boolean nor { pass } is CHECK_FAILED", async () => {
    const error = await checkError({ custom: "t-bad-return" }, { response: "x" }, withChecks);
    expect(error.code).toBe("CHECK_FAILED");
    expect(error.message).toBe('custom check "t-bad-return" returned "yes", not a boolean or { pass }');
  });

  it("an unknown name is UNKNOWN_CHECK", async () => {
    const error = await checkError({ custom: "t-never-registered" }, { response: "x" });
    expect(error.code).toBe("UNKNOWN_CHECK");
    expect(error.message).toMatch(/^no custom check named "t-never-registered" is registered/);
  });

  it("two scorings in one process use their own functions under the same name; the built-in needs no passing", async () => {
    const a: CustomChecks = { same: (text) => text === "a" };
    const b: CustomChecks = { same: (text) => text === "b" };
    const [ra, rb] = await Promise.all([pass({ custom: "same" }, "a", {}, { checks: a }), pass({ custom: "same" }, "a", {}, { checks: b })]);
    expect([ra, rb]).toEqual([true, false]);
    // Neither leaks into a scoring that did not pass it.
    expect((await checkError({ custom: "same" }, { response: "a" })).code).toBe("UNKNOWN_CHECK");
    // Names are looked up as own keys only: an object's inherited members are not checks.
    expect((await checkError({ custom: "constructor" }, { response: "a" }, withChecks)).code).toBe("UNKNOWN_CHECK");
    const sql = await runCheck({ custom: "sql-result-matches", args: { database: "nowhere.sql", reference: "SELECT 1" } }, { response: "DROP TABLE t" });
    expect(sql).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^rejected: /) });
  });
});

describe("inputs", () => {
  it("a missing (or null) input field is MISSING_INPUT", async () => {
    expect((await checkError({ contains: "x" }, {})).code).toBe("MISSING_INPUT");
    expect((await checkError({ contains: "x", field: "answer" }, { response: "x" })).message).toBe('the sample has no "answer" input for this check');
    expect((await checkError({ contains: "x" }, { response: null })).code).toBe("MISSING_INPUT");
  });

  it("defaultField picks the rubric's response field", async () => {
    expect(await runCheck({ contains: "x" }, { output: "x" }, { defaultField: "output" })).toMatchObject({ pass: true });
  });
});

describe("number: a box is read with its braces matched", () => {
  it.each([
    ["So the total is \\boxed{1{,}000}.", 1000],
    ["\\boxed{5\\text{ m}} (from step 2)", 5],
    ["\\boxed{1.5 \\times 10^{3}}", 1500],
    ["\\boxed{1.5 \\times 10^3}", 1500],
    ["\\boxed{\\text{3,000,000}}", 3000000],
    ["\\boxed{1\\,000}", 1000],
    ["the value is 6 \\times 10^{-2}", 0.06],
  ])("%j reads as %s", (text, value) => {
    expect(extractNumber(text, undefined)).toBe(value);
  });
  it.each(["\\boxed{5 \\text{ or } 3}", "\\boxed{3 \\text{ or more}}", "\\boxed{3 or more}"])("%j is a hedge, not one number", async (response) => {
    expect(extractNumber(response, undefined)).toBeNaN();
    expect((await runCheck({ number: { expected: 3 } }, { response })).pass).toBe(false);
  });
  it("a unit in \\text{} does not hide the box from pick: boxed", async () => {
    expect((await runCheck({ number: { expected: 5, pick: "boxed" } }, { response: "\\boxed{5\\text{ m}}" })).pass).toBe(true);
    expect((await runCheck({ number: { expected: 1000 } }, { response: "So the total is \\boxed{1{,}000}." })).pass).toBe(true);
  });
});

describe("number extraction edge cases", () => {
  it("does not read a hyphen between numbers as a minus sign", async () => {
    const { extractNumber } = await import("../../src/checks/number.js");
    expect(extractNumber("The date is 2024-01-05", "last")).toBe(5);
    expect(extractNumber("pages 3-4", "last")).toBe(4);
    expect(extractNumber("the answer is -7", "last")).toBe(-7);
    expect(extractNumber("x = (-2.5)", "last")).toBe(-2.5);
  });
});

describe("number: the decimal comma rule (issue 28)", () => {
  it.each([
    ["Das Ergebnis ist 12,5", 12.5],
    ["π ≈ 3,1415", 3.1415],
    ["about -0,25 left", -0.25],
    ["1,000 people", 1000],
    ["12,345,678", 12345678],
    ["1,234", 1234],
    ["pages 1,2,3", 3],
    ["1,234.5", 1234.5],
  ])("%j reads as %s", (text, value) => {
    expect(extractNumber(text, undefined)).toBe(value);
  });
  it("a number check passes a decimal-comma answer and an expected value written with one", async () => {
    expect((await runCheck({ number: { expected: 12.5 } }, { response: "Das Ergebnis ist 12,5" })).pass).toBe(true);
    expect((await runCheck({ number: { expected: "12,5" } }, { response: "12.5" })).pass).toBe(true);
    expect((await runCheck({ number: { expected: 125 } }, { response: "Das Ergebnis ist 12,5" })).pass).toBe(false);
    expect(parseNumber("12,5")).toBe(12.5);
  });
});
