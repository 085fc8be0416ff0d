import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ASCII_LOOK_ALIKES, digitsAsLetters, hasCaseDependentLookAlike, skeleton, skeletonKeepingDigits } from "../../src/text/skeleton.js";
import { CONFUSABLES } from "../../src/text/confusables-table.js";
import { renderTable, SOURCE, TABLE } from "../../scripts/write-confusables.js";
import { ROOT } from "../helpers/cli.js";

describe("the look-alike table", () => {
  it("is what scripts/write-confusables.ts makes of the shipped confusables.txt (Unicode 14.0.0)", () => {
    const source = readFileSync(join(ROOT, SOURCE), "utf8");
    expect(source).toMatch(/^\uFEFF?# confusables\.txt\n# Date: 2021-05-29[^\n]*\n(?:#[^\n]*\n)*# Version: 14\.0\.0/);
    expect(readFileSync(join(ROOT, TABLE), "utf8")).toBe(renderTable(source));
  });

  it("maps every character to ASCII, and no prototype is itself mapped (one pass is the whole skeleton)", () => {
    const mapped = new Set(CONFUSABLES.map(([c]) => c));
    for (const [character, prototype] of CONFUSABLES) {
      expect(prototype, character).toMatch(/^[\x20-\x7e]+$/);
      expect([...prototype].filter((c) => mapped.has(c) && skeleton(c) !== c), `${character} → ${prototype}`).toEqual([]);
    }
  });
});

describe("skeleton", () => {
  it("reads letters of other scripts drawn like Latin ones as the Latin letters", () => {
    expect(skeleton("stup\u0456d")).toBe("stupid"); // Cyrillic і
    expect(skeleton("\u0391\u0399")).toBe("Al"); // Greek Alpha, Iota (an I is an l to the eye)
    expect(skeleton("\u0455\u0442upid")).toBe("stupid"); // Cyrillic ѕ, т (a small capital T)
    expect(skeleton("\u13A0\u13AC\u13B7")).toBe("DEM"); // Cherokee
    expect(skeleton("ё")).toBe("e\u0308"); // decomposed first: Cyrillic ё is e with a diaeresis
  });

  it("leaves text with no look-alike as it was (decomposed), and changes only the ASCII look-alikes of ASCII", () => {
    expect(skeleton("The quick brown fox, 42.")).toBe("The quick brown fox, 42.");
    expect(skeleton("café")).toBe("cafe\u0301");
    expect(skeleton("I 1 0 m |")).toBe("l l O rn l");
    expect(skeleton("日本語 한국어")).toBe("日本語 한국어".normalize("NFKD"));
  });

  it("reads ASCII through its own five look-alikes (a shortcut): exactly the table's ASCII rows, and the same skeleton as the table's path gives", () => {
    expect(Object.entries(ASCII_LOOK_ALIKES).sort()).toEqual(CONFUSABLES.filter(([c]) => c.charCodeAt(0) < 0x80).sort());
    // A non-ASCII character anywhere sends the text down the table's path: the ASCII around it must read the same.
    fc.assert(
      fc.property(fc.string({ unit: "binary-ascii", maxLength: 40 }), (ascii) => {
        expect(skeleton(ascii)).toBe(skeleton(`${ascii}é`).slice(0, -2));
      }),
    );
  });

  it("keeps characters outside the Basic Multilingual Plane whole, mapped or not", () => {
    expect(skeleton("a\u{1F600}b")).toBe("a\u{1F600}b");
    expect(skeleton("\u{10300}")).toBe(skeleton("\u{10300}")); // Old Italic A: stable
    expect(skeleton("x\u{102A0}y")).toBe("xAy"); // CARIAN LETTER A
  });

  it("tells which texts read differently when lower-cased first: a capital I, and its Cyrillic and Greek twins", () => {
    expect(hasCaseDependentLookAlike("kiIl")).toBe(true);
    expect(hasCaseDependentLookAlike("\u0406")).toBe(true);
    expect(hasCaseDependentLookAlike("\u0399")).toBe(true);
    expect(hasCaseDependentLookAlike("kill the lights, then Open it")).toBe(false);
  });

  it("any ASCII word, its letters swapped for any look-alike of theirs, has the skeleton of the word", () => {
    const twins = new Map<string, string[]>();
    for (const [character, prototype] of CONFUSABLES) if (/^[a-zA-Z]$/.test(prototype) && character !== prototype) twins.set(prototype, [...(twins.get(prototype) ?? []), character]);
    const letter = fc.constantFrom(..."abcdeghknopqrsuvwxyzABCDEFGHJKLMNOPQRSTUVWXYZ");
    fc.assert(
      fc.property(fc.array(fc.tuple(letter, fc.nat()), { minLength: 1, maxLength: 12 }), (picks) => {
        const word = picks.map(([c]) => c).join("");
        const disguised = picks.map(([c, n]) => { const options = twins.get(c) ?? [c]; return options[n % options.length]; }).join("");
        return skeleton(disguised).normalize("NFC") === skeleton(word).normalize("NFC");
      }),
    );
  });
});

describe("skeletonKeepingDigits", () => {
  it("reads look-alike letters as skeleton does, but keeps digits as digits", () => {
    expect(skeletonKeepingDigits("I 1 0 m |")).toBe("l 1 0 rn l");
    expect(skeletonKeepingDigits("stup\u0456d 2010")).toBe("stupid 2010");
    expect(skeletonKeepingDigits("\uFF11\uFF10 \u{1D7CF}")).toBe("10 1"); // full-width and mathematical digits (NFKD)
    expect(skeletonKeepingDigits("1\u0966 \u0661")).toBe("10 1"); // Devanagari zero, Arabic-Indic one: digits drawn like 0 and 1
  });

  it("never reads a letter (or any character that is not a number) as a digit", () => {
    expect(skeletonKeepingDigits("\u0417\u043B\u043E \u0431")).toBe("\u0417\u043B\u043E \u0431".normalize("NFKD").replace("\u043E", "o")); // Cyrillic З and б read as written
    expect(skeletonKeepingDigits("\u0627\u0647 \u0399\u039F")).toBe("lo lO"); // Arabic alef and heh, Greek iota and omicron: letters
    const misread = CONFUSABLES.filter(([c]) => !/^\p{N}$/u.test(c)).filter(([c]) => /[0-9]/.test(skeletonKeepingDigits(c)));
    expect(misread).toEqual([]);
  });

  it("with its digits read as letters, is skeleton's reading of ASCII", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary-ascii", maxLength: 40 }), (ascii) => {
        expect(digitsAsLetters(skeletonKeepingDigits(ascii), false)).toBe(skeleton(ascii));
        expect(digitsAsLetters(skeletonKeepingDigits(ascii.toLowerCase()), true)).toBe(skeleton(ascii.toLowerCase()).toLowerCase());
        expect(skeletonKeepingDigits(ascii)).toBe(skeletonKeepingDigits(`${ascii}é`).slice(0, -2));
      }),
    );
  });
});
