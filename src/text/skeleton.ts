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
  /** The characters whose skeleton changes when lower-cased first: "I" is an "i" lower-cased and an "l" to the eye. */
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
  table = { bmp, astral, longest, caseDependent: /$^/ };
  const upper = [...CONFUSABLES.map(([c]) => c), ..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"];
  const dependent = upper.filter((c) => skeleton(c.toLowerCase()).toLowerCase() !== skeleton(c).toLowerCase());
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
  const { bmp, astral, longest } = table ?? confusables();
  const decomposed = text.normalize("NFKD");
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

/** True when the text holds a character whose skeleton depends on lower-casing it first (a capital "I"). */
export function hasCaseDependentLookAlike(text: string): boolean {
  return (table ?? confusables()).caseDependent.test(text);
}
