/**
 * `contains`: the text contains any (or all) of some strings.
 *
 * rubric:  check: { contains: [Paris, France], match: all }
 */
import * as z from "zod";
import { stripInvisible } from "../../text/invisible.js";
import { failureFunction, kmpStep } from "../../text/kmp.js";
import { shownText } from "../../text/markup.js";
import { asciiSkeletonKeepingDigits, digitsAsLetters, hasCaseDependentLookAlike, isAscii, skeletonKeepingDigits, withoutDecorativeMarks } from "../../text/skeleton.js";
import { defineCheck } from "../kind.js";
import { shownOnce, type CheckMemo } from "../memo.js";

export const Needles = z.union([z.string(), z.array(z.string()).min(1)]).describe("A string, or a list of strings");
export type Needles = z.infer<typeof Needles>;

export const caseSensitive = z.boolean().optional();

/**
 * Text as a reader sees it: NFKC (full-width "ｓｔｕｐｉｄ" is "stupid", a no-break space a space),
 * look-alike letters of other scripts read as the ASCII they imitate (a Cyrillic "і" in "stupіd",
 * skeleton.ts), digits kept as digits, invisible characters dropped ("stu\u200Bpid"), lines and
 * circles drawn over or around letters dropped ("s̲t̲u̲p̲i̲d̲"), white space runs as one space.
 */
// ASCII has no invisible characters or marks and is its own NFC: only its look-alikes and white space change.
const seen = (text: string) => (isAscii(text) ? asciiSkeletonKeepingDigits(text) : withoutDecorativeMarks(stripInvisible(skeletonKeepingDigits(text)).normalize("NFC"))).replace(/\s+/g, " ");

/**
 * The readings a string check compares. Case-sensitive: one. Otherwise two, since a capital "I"
 * is an "i" to lower-casing and an "l" to the eye: "IPHONE" must hold "iphone" (lower-cased first)
 * and "kiIl" must hold "kill" (read as written, then lower-cased). A needle is found when it is in
 * the text in either reading, each side read the same way (see holds).
 */
function readings(text: string, sensitive: boolean, memo?: CheckMemo): { name: string; reading: string }[] {
  const once = (name: string, read: (text: string) => string) => ({ name, reading: memo ? memo.text(name, text, read) : read(text) });
  if (sensitive) return [once("contains-seen", seen)];
  const lowered = once("contains-seen-lowered", (t) => seen(t.toLowerCase()).toLowerCase());
  // The second reading only differs where the text has a capital I or a twin of one (looked for once, with the memo).
  const second = once("contains-seen-then-lowered", (t) => (hasCaseDependentLookAlike(t) ? seen(t).toLowerCase() : lowered.reading));
  return [lowered, second.reading === lowered.reading ? lowered : second];
}

/** A reading of the text, and what holds needs of it, made when first asked for. */
interface Haystack {
  /** The reading: digits as digits. */
  kept: string;
  /** The reading with its digits read as the letters they are drawn like, in lower case ("L0nd0n" → "London"; see foldLetterLikes). */
  folded: () => string;
  /** For each position, where the run of letter-like digits ("0", "1") starting there ends (the position itself if none). */
  digitRunEnds: () => Int32Array;
}

/**
 * A reading with its letter-like digits read as the letters they are drawn like, and, in a
 * case-sensitive reading, its "O"s as "o"s too ("L0nd0n", "LOndOn" and "London" → "London"),
 * character for character: a "0" is drawn like an "O" and an "o" alike, a reader takes "L0nd0n"
 * for "London" and "T0D0" for "TODO", so it stands for either, and `holds` then checks that each
 * "o" or "O" of a needle met its own letter or a digit. A case-insensitive reading is lower case
 * already. (The "1" is read as "l", which a capital "I" already is in every reading.)
 */
const foldLetterLikes = (reading: string, sensitive: boolean): string => {
  const digits = digitsAsLetters(reading, true);
  return sensitive ? digits.replace(CAPITAL_O, "o") : digits;
};
const CAPITAL_O = /O/g;

function haystack({ name, reading }: { name: string; reading: string }, sensitive: boolean, text: string, memo?: CheckMemo): Haystack {
  let folded: string | undefined;
  let ends: Int32Array | undefined;
  const fold = () => foldLetterLikes(reading, sensitive);
  return {
    kept: reading,
    folded: () => (folded ??= memo ? memo.text(`${name}-digits-as-letters`, text, fold) : fold()),
    digitRunEnds: () => (ends ??= letterLikeDigitRunEnds(reading)),
  };
}

/** A reading of a needle, kept (see needleReadings) for every sample the rubric scores. */
interface NeedleReading {
  kept: string;
  folded: string;
  /** The [start, end) runs of letter-like digits ("0", "1") in `kept`: each must fall on digits of the text. */
  digitRuns: [number, number][];
  /**
   * Case-sensitive: where `kept` has an "o" or an "O", which `folded` made one letter. Each must
   * fall on its own letter of the text or on a digit (a "0" stands for either); empty otherwise.
   */
  oLetters: number[];
  /** True when `kept` has a letter a digit is drawn like ("o", "O", "l"), which a digit of the text may stand for. */
  hasLetterOfDigit: boolean;
}

/** Runs of the digits `digitsAsLetters` reads as letters, and the letters they become (either case). */
const LETTER_LIKE_DIGITS = /[01]+/g;
const LETTER_OF_DIGIT = /[Ool]/;

function needleReading(kept: string, sensitive: boolean): NeedleReading {
  const digitRuns = [...kept.matchAll(LETTER_LIKE_DIGITS)].map((m): [number, number] => [m.index, m.index + m[0].length]);
  const oLetters = sensitive ? [...kept.matchAll(LETTER_O)].map((m) => m.index) : [];
  return { kept, folded: foldLetterLikes(kept, sensitive), digitRuns, oLetters, hasLetterOfDigit: LETTER_OF_DIGIT.test(kept) };
}
const LETTER_O = /[Oo]/g;

function letterLikeDigitRunEnds(reading: string): Int32Array {
  const ends = new Int32Array(reading.length + 1);
  ends[reading.length] = reading.length;
  for (let i = reading.length - 1; i >= 0; i--) {
    const unit = reading.charCodeAt(i);
    ends[i] = unit === 0x30 || unit === 0x31 ? ends[i + 1] : i;
  }
  return ends;
}

/**
 * Whether a needle's reading is in the text's. A letter of the needle meets its own letter or a
 * digit drawn like it (a needle "London" is in "L0nd0n", case-sensitive or not, so the disguise
 * does not hide it from `not_contains`); a digit of the needle meets only a digit (a needle "10"
 * is not in "lo", "IO" or "hello": letters are never read as digits, so they earn no `contains`
 * and trip no `not_contains`).
 */
function holds(text: Haystack, needle: NeedleReading): boolean {
  // A needle without letter-like digits or, case-sensitive, "o"s: each of the text's digits may be read as its letter.
  if (needle.digitRuns.length === 0 && needle.oLetters.length === 0) return text.folded().includes(needle.folded);
  if (text.kept.includes(needle.kept)) return true;
  // Nothing a digit of the text could stand for, or no place where the letters match: not there.
  if (!needle.hasLetterOfDigit || !text.folded().includes(needle.folded)) return false;
  // Where the letters match, the needle's digits must fall on digits ("Windows 10" in "Wind0ws 10"),
  // and its "o"s and "O"s on their own letter or a "0" ("Oslo" in "0sl0", not in "osLO").
  const ends = text.digitRunEnds();
  const kept = text.kept;
  return someOccurrence(
    text.folded(),
    needle.folded,
    (at) => needle.digitRuns.every(([start, end]) => ends[at + start] >= at + end) && needle.oLetters.every((i) => kept.charCodeAt(at + i) === ZERO || kept.charCodeAt(at + i) === needle.kept.charCodeAt(i)),
  );
}
const ZERO = 0x30;

/**
 * Whether `accept` holds at some position where `pattern` occurs in `text`, trying every
 * occurrence, overlapping ones included, in time linear in the two lengths (Knuth–Morris–Pratt:
 * calling indexOf again after each one could take their product).
 */
export function someOccurrence(text: string, pattern: string, accept: (at: number) => boolean): boolean {
  if (pattern.length === 0) return false;
  const border = failureFunction(pattern);
  for (let i = 0, k = 0; i < text.length; i++) {
    k = kmpStep(pattern, border, k, text.charCodeAt(i));
    if (k === pattern.length && accept(i - k + 1)) return true;
  }
  return false;
}

/**
 * Which of `needles` the text holds, honouring case sensitivity, compared as a reader sees them
 * (readings, holds). With `shown`, the text as a renderer shows it is read too (markup.ts: a word
 * split by `**`, a comment or a tag is whole on the page), and a needle in either counts: what
 * `not_contains` needs, not `contains` (`2*3` must not hold "23"). With a memo, the text is read
 * once for all the sample's criteria.
 */
export function found(needles: Needles, text: string, sensitive: boolean, memo?: CheckMemo, shown = false) {
  const list = needleList(needles);
  const texts = [text];
  if (shown) {
    const page = shownOnce(text, memo);
    if (page !== text) texts.push(page);
  }
  const haystacks = texts.map((t) => readings(t, sensitive, memo).map((r) => haystack(r, sensitive, t, memo)));
  const holdsNeedle = (needle: string) => {
    const needleRead = needleReadings(needle, sensitive);
    // A needle that is itself invisible ("\u200B") is looked for as written.
    return needleRead === undefined ? texts.some((t) => t.includes(needle)) : haystacks.some((read) => needleRead.some((n, i) => holds(read[i], n)));
  };
  return { list, hits: list.filter(holdsNeedle) };
}


/** Needles' readings by case sensitivity and text: a rubric's needles are the same for every sample. */
const needleMemo = new Map<string, NeedleReading[] | undefined>();
/**
 * Bounds of the memo: a reward server's clients bring needles of their own, request after
 * request, so it keeps at most this many, and none longer than a phrase (a longer one is read
 * each time): 4,096 × 256 characters at most, whatever the clients send.
 */
const MEMO_NEEDLES = 4096;
const MEMO_NEEDLE_CHARS = 256;

/** The needle's readings, or undefined for a needle a reader does not see (looked for as written). */
function needleReadings(needle: string, sensitive: boolean): NeedleReading[] | undefined {
  const read = (): NeedleReading[] | undefined => (seen(needle).trim() === "" ? undefined : readings(needle, sensitive).map(({ reading }) => needleReading(reading, sensitive)));
  if (needle.length > MEMO_NEEDLE_CHARS) return read();
  const key = `${sensitive ? "s" : "i"}${needle}`;
  if (needleMemo.has(key)) return needleMemo.get(key);
  if (needleMemo.size >= MEMO_NEEDLES) needleMemo.clear();
  const value = read();
  needleMemo.set(key, value);
  return value;
}

/** A check's needles as a list: one string, or several. */
const needleList = (needles: Needles): string[] => (Array.isArray(needles) ? needles : [needles]);

export const quoteList = (items: string[]) => items.map((i) => `"${i}"`).join(", ");

/**
 * Of the needles found in the text as written, those a page does not show: each, read as a page
 * shows it (`**Note:**` as "Note:"), is looked for in the text as a page shows it (markup.ts). A
 * required phrase only inside an HTML comment, a hidden element or a link's address is in the
 * text, not before its reader. A needle that shows as nothing (markup itself: "<br>") is left to
 * the text as written.
 */
function hiddenFromPage(hits: string[], text: string, sensitive: boolean, memo?: CheckMemo): string[] {
  const page = shownOnce(text, memo);
  if (page === text) return [];
  const shown = hits.map((needle) => ({ needle, shown: shownText(needle) })).filter((n) => n.shown.trim() !== "");
  if (shown.length === 0) return [];
  // One search of the page for all of them: its readings are made once.
  const onPage = new Set(found(shown.map((n) => n.shown), page, sensitive, memo).hits);
  return shown.filter((n) => !onPage.has(n.shown)).map((n) => n.needle);
}

export const contains = defineCheck<Needles>({
  key: "contains",
  spec: Needles,
  summary: "the text contains a string, any or all of several",
  options: { match: z.enum(["any", "all"]).optional(), case_sensitive: caseSensitive },
  pure: true,
  keywords: needleList,
  fix: (_spec, { criterionId }) => `Code check "${criterionId}" only looks for strings, which keyword stuffing supplies: pair it with an LLM question about whether the strings are used meaningfully, or make it \`when:\` a correctness gate.`,
  hacks: [
    {
      id: "contains-hidden",
      description: "the required strings inside an HTML comment, which a page does not show",
      build: (spec) => ({ response: `Here is my answer. <!-- ${needleList(spec).join(" ")} -->` }),
    },
    {
      id: "contains-stylesheet-hidden",
      description: "the required strings inside an element a `<style>` rule hides (display: none), which a page does not show",
      build: (spec) => ({ response: `Here is my answer. <style>.note{display:none}</style><span class="note">${needleList(spec).join(" ")}</span>` }),
    },
  ],
  run(spec, { text, options, memo }) {
    const sensitive = options.case_sensitive === true;
    const { list, hits: written } = found(spec, text, sensitive, memo);
    // A string counts where the reader sees it: in the text as written and on the page it makes.
    const hidden = new Set(hiddenFromPage(written, text, sensitive, memo));
    const hits = written.filter((n) => !hidden.has(n));
    const passes = (found: string[]) => (options.match === "all" ? found.length === list.length : found.length > 0);
    const pass = passes(hits);
    const hit = new Set(hits);
    const missing = list.filter((n) => !hit.has(n));
    const unseen = hidden.size > 0 ? ` (${quoteList([...hidden])} only where a page does not show it: a comment, a hidden element, a link's address)` : "";
    // A pitfall counts the hidden ones too (score.ts): `unshown` says they alone made the no.
    return { pass, reasoning: pass ? `contains ${quoteList(hits)}` : `missing ${quoteList(options.match === "all" ? missing : list)}${unseen}`, ...(!pass && passes(written) ? { unshown: true } : {}) };
  },
});
