/**
 * RE2's program for a pattern, estimated from its text (src/checks/regex-cost.ts): the units of
 * known shapes, repetition counts multiplying through nesting, class sizes, and an estimate that
 * never throws whatever the text (a reward server runs it on every client pattern before compiling).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classCost, PROPERTY_CLASS_COST, regexCost, regexShape, searchWork } from "../../src/checks/regex-cost.js";

describe("regexCost", () => {
  it.each([
    ["a", "", 1],
    ["abc", "", 3],
    ["é", "", 2],
    ["\\d{3}-\\d{4}", "", 17],
    ["a{1000}", "", 1001],
    ["(?:a{10}){10}", "", 111],
    ["^.{0,280}$", "", 7773],
    ["^[\\s\\S]{0,280}$", "", 6373],
    ["(a|b)", "", 5],
  ])("/%s/%s is %i units", (pattern, flags, units) => {
    expect(regexCost(pattern, flags)).toBe(units);
  });

  it("repetition counts multiply through nesting", () => {
    const two = regexCost("(?:a{10}){10}");
    const three = regexCost("(?:(?:a{10}){10}){10}");
    expect(three).toBeGreaterThanOrEqual(10 * two);
    // The audit's 72-character pattern (~20 s to compile), and its shorter cousin (~340 ms).
    expect(regexCost("(?:(?:(?:a{1,1000}){1,1000}){1,1000})")).toBeGreaterThan(1e9);
    expect(regexCost("[a-h]{1,1000}x")).toBeGreaterThan(30_000);
  });

  it("nested optionals cost more than their copies: a{0,1000} compiles ~30 times slower than a{1000}", () => {
    expect(regexCost("a{0,1000}")).toBeGreaterThan(30 * regexCost("a{1000}"));
    expect(regexCost("a{1000,}")).toBe(regexCost("a{1000}") + 1);
    expect(regexCost("a*")).toBe(2);
    expect(regexCost("a{2,5}?")).toBe(regexCost("a{2,5}"));
  });

  it("a class counts the UTF-8 lengths its ranges span; a repetition multiplies it", () => {
    expect(regexCost("[a-h]")).toBe(2);
    expect(regexCost("[a-h]{100}")).toBe(201);
    expect(regexCost(".")).toBe(19); // everything but line ends: every UTF-8 length, split twice
    expect(regexCost(".", "s")).toBe(14);
    expect(regexCost("[\\s\\S]")).toBe(regexCost(".", "s"));
    expect(regexCost("[^a]")).toBe(15);
    expect(regexCost("[\\u0100-\\uffff]")).toBe(9);
    expect(regexCost("\\p{L}", "u")).toBe(PROPERTY_CLASS_COST);
    expect(regexCost("[\\p{L}\\d]", "u")).toBe(PROPERTY_CLASS_COST + 2);
    expect(regexCost("[a-z]", "i")).toBe(2 * regexCost("[a-z]"));
    expect(regexCost("é", "i")).toBe(4);
    expect(classCost([[0x61, 0x7a]], true)).toBe(regexCost("[^a-z]"));
  });

  it("reads JavaScript's syntax: escapes, ranges, groups, a literal {", () => {
    expect(regexCost("[a\\-z]")).toBe(4); // a, - and z: three ranges of one byte
    expect(regexCost("\\u{1F600}", "u")).toBe(4);
    expect(regexCost("\\x41")).toBe(1);
    expect(regexCost("(?<year>\\d{4})")).toBe(11);
    expect(regexCost("(?=a)")).toBe(1);
    expect(regexCost("a{")).toBe(2);
    expect(regexCost("\\1")).toBe(1);
  });

  it("never throws and stays a finite whole number, whatever the text: unbalanced, unterminated, 100,000 open groups, counts past RE2's", () => {
    for (const pattern of ["(".repeat(100_000), ")".repeat(1000), "[a-", "\\", "x{99999999999999999999999}", "(?:(?:(?:a{1000000}){1000000}){1000000}){1000000}".repeat(3), "[".repeat(1000)]) {
      const units = regexCost(pattern);
      expect(Number.isSafeInteger(units), pattern.slice(0, 30)).toBe(true);
      expect(units).toBeGreaterThan(0);
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 40, unit: fc.constantFrom("a", "(", ")", "[", "]", "{", "}", "1", ",", "0", "\\", "d", "s", "S", "^", "-", "|", "*", "+", "?", ".", "p", "u", "é") }), fc.constantFrom("", "i", "s", "u"), (pattern, flags) => {
        const units = regexCost(pattern, flags);
        return Number.isSafeInteger(units) && units >= 0;
      }),
      { numRuns: 2000, seed: 7 },
    );
  });

  it("more of a pattern never costs less", () => {
    fc.assert(
      fc.property(fc.constantFrom("a", "\\d", "[a-z]", ".", "(?:ab)", "\\s"), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 50 }), (atom, count, extra) => regexCost(`${atom}{${count + extra}}`) >= regexCost(`${atom}{${count}}`) && regexCost(`${atom}{0,${count + extra}}`) >= regexCost(`${atom}{0,${count}}`)),
      { numRuns: 300, seed: 3 },
    );
  });
});

describe("regexShape and searchWork: the work of a search, for where a test runs (checks/regex.ts)", () => {
  it.each([
    // Classes in a counted repetition are states to remember: one per character of a/b text.
    ["a.{20}x", "", 2 ** 20 + 22],
    ["\\d{3}-\\d{4}", "", 2 ** 7 + 8],
    // A loop counts its body once; characters and alternations of them are linear (Aho-Corasick).
    ["^\\s*\\{[\\s\\S]*\\}\\s*$", "", 2 ** 3 + 5],
    ["\\b(?:paris|lyon)\\b", "i", 1 + 9],
    ["\\b(12(th)? (of )?March|March 12(th)?)\\b", "i", 1 + 23],
    // An alternation repeated is a class: (?:a|b){20} is [ab]{20}.
    ["a(?:a|b){20}x", "", 2 ** 40 + 42],
    ["(?:\\S+\\s+){0,100}answer", "", 2 ** 40 + 206],
  ])("/%s/%s may build %i states", (pattern, flags, states) => {
    expect(regexShape(pattern, flags).states).toBe(states);
  });

  it("the work is a new state per character while states are left, plus the reading", () => {
    const shape = regexShape("a.{20}x");
    expect(shape.units).toBe(regexCost("a.{20}x"));
    expect(searchWork(shape, 10_000)).toBe(shape.units * 10_000 + 10_000);
    const small = regexShape("\\d{3}-\\d{4}");
    expect(searchWork(small, 1_000_000)).toBe(small.units * small.states + 1_000_000);
    expect(searchWork(small, 0)).toBe(0);
  });

  it("never throws and stays a finite whole number, whatever the text", () => {
    for (const pattern of ["(".repeat(100_000), "(?:(?:(?:a{1000000}){1000000}){1000000}){1000000}".repeat(3), "(?:a|b){99999999999}"]) {
      const { units, states } = regexShape(pattern);
      expect([Number.isSafeInteger(units), Number.isSafeInteger(states), Number.isSafeInteger(searchWork({ units, states }, 1_000_000))], pattern.slice(0, 30)).toEqual([true, true, true]);
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 40, unit: fc.constantFrom("a", "(", ")", "[", "]", "{", "}", "1", ",", "0", "\\", "d", "|", "*", "+", "?", ".", "é") }), (pattern) => {
        const { states } = regexShape(pattern);
        return Number.isSafeInteger(states) && states >= 1;
      }),
      { numRuns: 1000, seed: 9 },
    );
  });
});
