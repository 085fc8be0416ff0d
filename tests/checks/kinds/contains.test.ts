import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { found, someOccurrence } from "../../../src/checks/kinds/contains.js";
import { runCheck } from "../../../src/checks/run.js";
import { parseRubric } from "../../../src/rubric/load.js";
import { score } from "../../../src/score/score.js";
import type { Check } from "../../../src/rubric/schema.js";
import { CONFUSABLES } from "../../../src/text/confusables-table.js";

const pass = async (check: Check, response: string) => (await runCheck(check, { response })).pass;
/** Both case settings, since each reads the text its own way. */
const bothCases = async (check: Check, response: string) => [await pass(check, response), await pass({ ...check, case_sensitive: true }, response)];

describe("contains / not_contains: a digit of a needle meets only a digit", () => {
  it.each([
    ["10", "hello world"],
    ["100", "look"],
    ["0", "no"],
    ["11", "I will not tell you."],
    ["1", "lol"],
    ["1101", "all old"],
    ["10", "heIlO"],
    ["2010", "The year was 2olo"],
    ["Answer: 10", "Answer: lo"],
    ["Answer: 10", "Answer: IO"],
    ["10", "\u0627\u0647"], // Arabic alef and heh, drawn like "l" and "o"
    ["10", "\u0399\u039F"], // Greek capital iota and omicron
    ["3", "\u0417\u043B\u043E"], // Cyrillic "Зло": З is drawn like a 3
    ["6", "\u043E\u0431\u0435\u0434"], // Cyrillic "обед": б is drawn like a 6
  ])("contains %j does not find it in the letters of %j, and not_contains lets them pass", async (needle, response) => {
    expect(await bothCases({ contains: needle }, response)).toEqual([false, false]);
    expect(await bothCases({ not_contains: needle }, response)).toEqual([true, true]);
  });

  it.each([
    ["10", "It costs 10 dollars."],
    ["10", "It costs \uFF11\uFF10 dollars."], // full-width
    ["10", "It costs \u{1D7CF}\u{1D7CE} dollars."], // mathematical bold
    ["10", "It costs 1\u0966 dollars."], // a Devanagari zero, drawn like one
    ["2010", "In \uFF12\uFF10\uFF11\uFF10."],
    ["Answer: 10", "Answer:\u00A010"],
  ])("a needle of digits is found in %j's digits and the digits drawn like them (%j)", async (needle, response) => {
    expect(await bothCases({ contains: needle }, response)).toEqual([true, true]);
    expect(await bothCases({ not_contains: needle }, response)).toEqual([false, false]);
  });

  it("a letter of a needle still meets a digit drawn like it: the disguise does not hide a banned word", async () => {
    for (const [needle, disguised] of [["kill", "I will ki11 it"], ["As an AI", "As an A1 model"], ["hello", "he11o"], ["LONDON", "Go to L0ND0N now"]]) {
      expect(await bothCases({ not_contains: needle }, disguised), disguised).toEqual([false, false]);
      expect(await bothCases({ contains: needle }, disguised), disguised).toEqual([true, true]);
    }
    // A "0" is drawn like an "O" and an "o" alike: a case-sensitive check finds either in it…
    for (const [needle, disguised] of [["London", "Go to L0nd0n now"], ["Oslo", "Fly to 0sl0"], ["Do NOT", "D0 N0T do it"], ["TODO", "T0D0: fix"]]) {
      expect(await bothCases({ not_contains: needle }, disguised), disguised).toEqual([false, false]);
      expect(await bothCases({ contains: needle }, disguised), disguised).toEqual([true, true]);
    }
    // …and still tells the letters' case apart: "o" is not "O", nor "n" "N".
    for (const [needle, other] of [["London", "Go to LOndOn now"], ["London", "Go to L0ND0N now"], ["Oslo", "Fly to osLO"], ["Do NOT", "D0 N0t do it"], ["TODO", "ToDo: fix"], ["NO", "Say No."]]) {
      expect(await pass({ not_contains: needle, case_sensitive: true }, other), other).toBe(true);
      expect(await pass({ contains: needle, case_sensitive: true }, other), other).toBe(false);
    }
  });

  it("a needle of digits and letters: each letter may meet a digit drawn like it, each digit only a digit", async () => {
    for (const disguised of ["Windows 10", "Wind0ws 10", "Wind0ws １０", "WINDOWS 10"]) {
      expect(await pass({ not_contains: "Windows 10" }, disguised), disguised).toBe(false);
      expect(await pass({ contains: "Windows 10" }, disguised), disguised).toBe(true);
    }
    for (const letters of ["Windows lO", "Windows IO", "Wind0ws lo", "Windows 1O"]) {
      expect(await pass({ contains: "Windows 10" }, letters), letters).toBe(false);
      expect(await pass({ not_contains: "Windows 10" }, letters), letters).toBe(true);
    }
    expect(await pass({ contains: "top 10 tools" }, "the t0p 10 t00ls")).toBe(true);
    expect(await pass({ contains: "top 10 tools" }, "the t0p lo t00ls")).toBe(false);
    // An occurrence whose digits are letters does not hide a later one whose digits are digits.
    expect(await pass({ contains: "o10o" }, "o1oo o10o")).toBe(true);
    expect(await pass({ contains: "o10o" }, "ol0o oloo")).toBe(false);
  });

  it("words of other scripts still match themselves, the letters drawn like digits included", async () => {
    expect(await pass({ contains: "Зло" }, "ЗЛО")).toBe(true);
    expect(await pass({ contains: "обед" }, "ОБЕД")).toBe(true);
    expect(await pass({ not_contains: "Зло" }, "это зло")).toBe(false);
  });

  it("any needle of digits is absent from any text of letters, of any script, drawn like digits or not", () => {
    const letters = CONFUSABLES.map(([c]) => c).filter((c) => !/\p{N}/u.test(c));
    const text = fc.array(fc.oneof(fc.constantFrom(...letters), fc.constantFrom(..."aeIlOoSsZzBg .,")), { maxLength: 30 }).map((cs) => cs.join(""));
    const digits = fc.array(fc.constantFrom(..."0123456789"), { minLength: 1, maxLength: 4 }).map((cs) => cs.join(""));
    fc.assert(fc.property(text, digits, fc.boolean(), (t, needle, sensitive) => found(needle, t, sensitive).hits.length === 0));
  });

  it("agrees with a character-by-character definition on short texts of look-alike letters and digits", () => {
    const alphabet = fc.constantFrom(..."01oOlIiLa2");
    const word = (max: number) => fc.array(alphabet, { minLength: 1, maxLength: max }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(word(5), word(14), fc.boolean(), (needle, text, sensitive) => {
        expect(found(needle, text, sensitive).hits.length === 1, `${JSON.stringify(needle)} in ${JSON.stringify(text)}`).toBe(definedToHold(needle, text, sensitive));
      }),
      { numRuns: 3000 },
    );
  });
});

/**
 * The rule, one character at a time (ASCII with no "m", no white space): each side is read the
 * same way (a capital I is an l to the eye; case-insensitive checks also read it lower-cased
 * first), then a needle's digit meets that digit, and a needle's letter meets that letter or the
 * digit drawn like it ("0" an "O" or an "o", "1" an "l").
 */
function definedToHold(needle: string, text: string, sensitive: boolean): boolean {
  const byEye = (c: string) => (c === "I" ? "l" : c);
  const reads = sensitive ? [byEye] : [(c: string) => byEye(c.toLowerCase()), (c: string) => byEye(c).toLowerCase()];
  const asLetters = (c: string) => ({ "0": ["O", "o"], "1": ["l"] })[c] ?? [c];
  const meets = (n: string, t: string) => n === t || (!/\d/.test(n) && asLetters(t).includes(n));
  return reads.some((read) => {
    const [n, t] = [[...needle].map(read), [...text].map(read)];
    for (let at = 0; at + n.length <= t.length; at++) if (n.every((c, i) => meets(c, t[at + i]))) return true;
    return false;
  });
}

describe("someOccurrence", () => {
  it("visits every occurrence, overlapping ones too, in order, until one is accepted", () => {
    const visited: number[] = [];
    expect(someOccurrence("aaaa", "aa", (at) => (visited.push(at), false))).toBe(false);
    expect(visited).toEqual([0, 1, 2]);
    expect(someOccurrence("abcabcab", "cab", (at) => at === 5)).toBe(true);
  });

  it("finds the positions indexOf finds", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "b"), maxLength: 20 }), fc.string({ unit: fc.constantFrom("a", "b"), minLength: 1, maxLength: 4 }), (text, pattern) => {
        const expected: number[] = [];
        for (let at = text.indexOf(pattern); at !== -1; at = text.indexOf(pattern, at + 1)) expected.push(at);
        const seen: number[] = [];
        someOccurrence(text, pattern, (at) => (seen.push(at), false));
        expect(seen).toEqual(expected);
      }),
    );
  });
});

describe("contains: a required string counts where the reader sees it", () => {
  it.each([
    ["an HTML comment", "consult a doctor", "Rest well. <!-- consult a doctor -->"],
    ["a hidden element", "consult a doctor", "Rest well. <span hidden>consult a doctor</span>"],
    ["an element a <style> rule hides", "consult a doctor", "Rest well. <style>.note{display:none}</style><span class=\"note\">consult a doctor</span>"],
    ["an element a <style> rule after it hides", "consult a doctor", "Rest well. <p class=note>consult a doctor</p><style>p.note{font-size:0 !important}</style>"],
    ["a link's address", "doctor", "Rest well. [More](https://example.com/doctor)"],
  ])("a string only in %s is missing, and the reason says where it was", async (_, needle, response) => {
    const verdict = await runCheck({ contains: needle }, { response });
    expect(verdict).toMatchObject({ pass: false, unshown: true, reasoning: expect.stringContaining("only where a page does not show it") });
  });

  it("shown strings pass as before: in emphasis, a code span, a link's text; a needle written in markup is read as its page shows it", async () => {
    expect(await pass({ contains: "consult a doctor" }, "Rest well, and **consult a doctor**.")).toBe(true);
    expect(await pass({ contains: "Paris" }, "[Paris](https://example.com) and `Lyon`")).toBe(true);
    expect(await pass({ contains: "**Note:**" }, "**Note:** keep it dry.")).toBe(true);
    expect(await pass({ contains: "<br>" }, "one<br>two")).toBe(true);
    // A <style> rule that colours it, or hides something else, leaves it shown.
    expect(await pass({ contains: "consult a doctor" }, "<style>.note{color:red} .aside{display:none}</style>Rest well, and <span class=note>consult a doctor</span>.")).toBe(true);
    // Not found as written stays not found (a string split by markup was never a contains).
    expect(await runCheck({ contains: "Paris" }, { response: "Pa**r**is" })).toMatchObject({ pass: false });
    expect((await runCheck({ contains: "Paris" }, { response: "Pa**r**is" })).unshown).toBeUndefined();
  });

  it("match: all needs every string shown; one hidden is missing", async () => {
    expect(await runCheck({ contains: ["Paris", "Lyon"], match: "all" }, { response: "Lyon <!-- Paris -->" })).toMatchObject({ pass: false, unshown: true, reasoning: 'missing "Paris" ("Paris" only where a page does not show it: a comment, a hidden element, a link\'s address)' });
    expect(await pass({ contains: ["Paris", "Lyon"] }, "Lyon <!-- Paris -->")).toBe(true);
  });

  it("a contains pitfall still counts a banned string a page hides: the response gets its penalty", async () => {
    const rubric = parseRubric("id: r\ncriteria:\n  - { id: polite, check: { contains: please }, points: 1 }\n  - { id: rude, check: { contains: stupid }, points: -2 }\n");
    const [hidden, shown, clean] = await score(rubric, [{ response: "please <!-- stupid -->" }, { response: "please, stupid" }, { response: "please" }]);
    const rude = (result: typeof hidden) => result.verdicts.find((v) => v.id === "rude")!;
    // A pitfall's "met" is the penalty applied.
    expect(rude(hidden)).toMatchObject({ status: "met", reasoning: expect.stringContaining("a pitfall counts what a page hides as hit") });
    expect(rude(shown)).toMatchObject({ status: "met" });
    expect(rude(clean)).toMatchObject({ status: "unmet" });
    expect(hidden.reward).toBe(shown.reward);
    expect(hidden.reward!).toBeLessThan(clean.reward!);
  });
});
