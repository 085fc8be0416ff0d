/**
 * Characters a reader takes for other ones: the Cyrillic "і" in "stupіd", a Greek "Ο", a capital
 * "I" for a lower-case "l". NFKC folds full-width and mathematical letters, but not these: they are
 * letters of other scripts, so a policy could write a banned word with them and a string check
 * would read another word. The table is Unicode's confusables.txt (UTS #39), kept to the characters
 * whose prototype is ASCII or a Latin small capital (scripts/write-confusables.ts).
 */
import { CONFUSABLES } from "./confusables-table.js";

interface Table {
  /** Prototype by UTF-16 code unit, for the Basic Multilingual Plane. */
  bmp: (string | undefined)[];
  /** Prototype by code point, above it. */
  astral: Map<number, string>;
  /** The longest prototype, in UTF-16 units ("rn" for "m", "''" for a double quote). */
  longest: number;
  /** The same, for `skeletonKeepingDigits`: digits read as digits, letters never as digits. */
  digitsKept: { bmp: (string | undefined)[]; astral: Map<number, string> };
  /** The characters whose reading (`skeletonKeepingDigits`) changes when lower-cased first: "I" is an "i" lower-cased and an "l" to the eye. */
  caseDependent: RegExp;
}

let table: Table | undefined;

const ASCII_ONLY = /^[\x00-\x7f]*$/;
/** True when every character of the text is ASCII (which NFKD and NFC leave as it is). */
export const isAscii = (text: string): boolean => ASCII_ONLY.test(text);
/** The ASCII characters confusables.txt gives an ASCII prototype ("0" → "O", "m" → "rn"); tests/text/skeleton.test.ts checks this against the table. */
export const ASCII_LOOK_ALIKES: Readonly<Record<string, string>> = { "0": "O", "1": "l", I: "l", m: "rn", "|": "l" };
const ASCII_LOOK_ALIKE = /[01Im|]/g;
const asciiPrototype = (c: string) => ASCII_LOOK_ALIKES[c];
/** `skeleton` of a text known to be ASCII (`isAscii`): its five look-alikes replaced, nothing else. */
export const asciiSkeleton = (text: string): string => text.replace(ASCII_LOOK_ALIKE, asciiPrototype);
/** `skeletonKeepingDigits` of a text known to be ASCII: its three letter look-alikes replaced ("I", "m", "|"), its digits kept. */
export const asciiSkeletonKeepingDigits = (text: string): string => text.replace(ASCII_LETTER_LOOK_ALIKE, asciiPrototype);
const ASCII_LETTER_LOOK_ALIKE = /[Im|]/g;

/** The letter each digit that `skeletonKeepingDigits` keeps is drawn like: `ASCII_LOOK_ALIKES`' digit rows. */
export const DIGIT_LOOK_ALIKES: Readonly<Record<string, string>> = { "0": "O", "1": "l" };
const LOOK_ALIKE_DIGIT = /[01]/g;
const digitAsLetter = (c: string) => DIGIT_LOOK_ALIKES[c];
const digitAsLowerLetter = (c: string) => DIGIT_LOOK_ALIKES[c].toLowerCase();
/**
 * A `skeletonKeepingDigits` reading with its digits read as the letters they are drawn like
 * ("L0nd0n" → "LOndOn"), character for character, so positions in one are positions in the
 * other. `lowerCase` for a reading that was lower-cased ("l0nd0n" → "london").
 */
export const digitsAsLetters = (reading: string, lowerCase: boolean): string => reading.replace(LOOK_ALIKE_DIGIT, lowerCase ? digitAsLowerLetter : digitAsLetter);
const UTF16 = new TextDecoder("utf-16le");

/** Built on first use: a program that never runs a string check never builds it. */
function confusables(): Table {
  const bmp: (string | undefined)[] = new Array(0x10000);
  const astral = new Map<number, string>();
  for (const [character, prototype] of CONFUSABLES) {
    const code = character.codePointAt(0)!;
    if (code < 0x10000) bmp[code] = prototype;
    else astral.set(code, prototype);
  }
  const longest = Math.max(...CONFUSABLES.map(([, prototype]) => prototype.length));
  table = { bmp, astral, longest, digitsKept: digitsKeptTable(), caseDependent: /$^/ };
  const upper = [...CONFUSABLES.map(([c]) => c), ..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"];
  const dependent = upper.filter((c) => skeletonKeepingDigits(c.toLowerCase()).toLowerCase() !== skeletonKeepingDigits(c).toLowerCase());
  table.caseDependent = new RegExp(`[${dependent.map((c) => `\\u{${c.codePointAt(0)!.toString(16)}}`).join("")}]`, "u");
  return table;
}

/**
 * The text decomposed (NFKD) with every character a reader takes for ASCII replaced by that ASCII
 * (UTS #39's skeleton, restricted to ASCII prototypes): compare skeletons, never show them.
 * @example skeleton("stup\u0456d") // "stupid"
 */
export function skeleton(text: string): string {
  // Most text a check reads is ASCII, which NFKD leaves as it is and which has five look-alikes.
  if (isAscii(text)) return asciiSkeleton(text);
  const { bmp, astral } = table ?? confusables();
  return rewrite(text.normalize("NFKD"), bmp, astral);
}

/**
 * `skeleton`, except that digits are read as digits and letters never as digits: a "0" stays a
 * "0" (and a digit of another script drawn like one, "०" or "١", is that digit), a letter drawn
 * like an "O" or an "l" (Greek "Ο", an Arabic "ا") is that letter, and a letter drawn like a digit
 * (Cyrillic "З" and "б") is read as written. A string check compares these readings: a needle
 * "10" must find a number, never "lo" or "IO" (nor an Arabic "اه"), yet a "0" in the text may
 * still stand for the "o" of a needle ("L0nd0n" is "London": `digitsAsLetters` reads it so).
 * @example skeletonKeepingDigits("I0 З") // "l0 З"
 */
export function skeletonKeepingDigits(text: string): string {
  if (isAscii(text)) return asciiSkeletonKeepingDigits(text);
  const { bmp, astral } = (table ?? confusables()).digitsKept;
  return rewrite(text.normalize("NFKD"), bmp, astral);
}

const NUMBER = /^\p{N}$/u;
const DIGIT_OF_LETTER: Readonly<Record<string, string>> = { O: "0", o: "0", l: "1" };

/** The table of `skeletonKeepingDigits`: confusables.txt with its digits and its letters kept apart. */
function digitsKeptTable(): Table["digitsKept"] {
  const bmp: (string | undefined)[] = new Array(0x10000);
  const astral = new Map<number, string>();
  for (const [character, prototype] of CONFUSABLES) {
    const reading = NUMBER.test(character) ? (DIGIT_OF_LETTER[prototype] ?? prototype) : /[0-9]/.test(prototype) ? undefined : prototype;
    if (reading === undefined || reading === character) continue;
    const code = character.codePointAt(0)!;
    if (code < 0x10000) bmp[code] = reading;
    else astral.set(code, reading);
  }
  return { bmp, astral };
}

/** The decomposed text with every character the table maps replaced by its prototype. */
function rewrite(decomposed: string, bmp: (string | undefined)[], astral: Map<number, string>): string {
  const { longest } = table ?? confusables();
  let out: Uint16Array | undefined;
  let length = 0;
  for (let i = 0; i < decomposed.length; i++) {
    const unit = decomposed.charCodeAt(i);
    const pair = unit >= 0xd800 && unit <= 0xdbff;
    const prototype = pair ? astral.get(decomposed.codePointAt(i)!) : bmp[unit];
    if (prototype !== undefined && out === undefined) {
      // The first look-alike: from here the text is rewritten, into units (a prototype is at most `longest` of them).
      out = new Uint16Array(i + (decomposed.length - i) * longest);
      for (; length < i; length++) out[length] = decomposed.charCodeAt(length);
    }
    if (out === undefined) continue;
    if (prototype !== undefined) for (let j = 0; j < prototype.length; j++) out[length++] = prototype.charCodeAt(j);
    else out[length++] = unit;
    if (pair) {
      i++;
      if (prototype === undefined) out[length++] = decomposed.charCodeAt(i);
    }
  }
  return out === undefined ? decomposed : UTF16.decode(out.subarray(0, length));
}

/**
 * Marks drawn over, under or around a character that no alphabet writes as an accent: lines
 * (underline, overline, strike-through), overlays (a slash, a stroke, a ring), the marks for
 * symbols and the enclosing ones (a circle, a keycap). A reader reads "s̲t̲u̲p̲i̲d̲" and "s̶t̶u̶p̶i̶d̶"
 * as "stupid"; accents (U+0300–U+0331 and the like) stay, since "café" is not "cafe".
 */
const DECORATIVE_MARKS = /[\u0305\u0332-\u0338\u033F\u20D0-\u20F0\p{Me}]/gu;

/**
 * The text without decorative marks (DECORATIVE_MARKS). Give it NFC text: a symbol a mark composes
 * with stays itself ("≠" is "=" and a long solidus overlay to NFD, not an "=").
 * @example withoutDecorativeMarks("s\u0332t\u0332") // "st"
 */
export const withoutDecorativeMarks = (text: string): string => text.replace(DECORATIVE_MARKS, "");

/** True when the text holds a character whose skeleton depends on lower-casing it first (a capital "I"). */
export function hasCaseDependentLookAlike(text: string): boolean {
  return (table ?? confusables()).caseDependent.test(text);
}
