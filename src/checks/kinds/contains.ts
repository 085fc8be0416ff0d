/**
 * `contains`: the text contains any (or all) of some strings.
 *
 * rubric:  check: { contains: [Paris, France], match: all }
 */
import * as z from "zod";
import { stripInvisible } from "../../text/invisible.js";
import { asciiSkeleton, hasCaseDependentLookAlike, isAscii, skeleton } from "../../text/skeleton.js";
import { defineCheck } from "../kind.js";
import type { CheckMemo } from "../memo.js";

export const Needles = z.union([z.string(), z.array(z.string()).min(1)]).describe("A string, or a list of strings");
export type Needles = z.infer<typeof Needles>;

export const caseSensitive = z.boolean().optional();

/**
 * Text as a reader sees it: NFKC (full-width "ｓｔｕｐｉｄ" is "stupid", a no-break space a space),
 * look-alike letters of other scripts read as the ASCII they imitate (a Cyrillic "і" in "stupіd",
 * skeleton.ts), invisible characters dropped ("stu\u200Bpid"), white space runs as one space.
 */
// ASCII has no invisible characters and is its own NFC: only its look-alikes and white space change.
const seen = (text: string) => (isAscii(text) ? asciiSkeleton(text) : stripInvisible(skeleton(text)).normalize("NFC")).replace(/\s+/g, " ");

/**
 * The readings a string check compares. Case-sensitive: one. Otherwise two, since a capital "I"
 * is an "i" to lower-casing and an "l" to the eye: "IPHONE" must hold "iphone" (lower-cased first)
 * and "kiIl" must hold "kill" (read as written, then lower-cased). A needle is found when it is in
 * the text in either reading, each side read the same way.
 */
function readings(text: string, sensitive: boolean, memo?: CheckMemo): string[] {
  const once = (name: string, read: (text: string) => string) => (memo ? memo.text(name, text, read) : read(text));
  if (sensitive) return [once("contains-seen", seen)];
  const lowered = once("contains-seen-lowered", (t) => seen(t.toLowerCase()).toLowerCase());
  // The second reading only differs where the text has a capital I or a twin of one (looked for once, with the memo).
  return [lowered, once("contains-seen-then-lowered", (t) => (hasCaseDependentLookAlike(t) ? seen(t).toLowerCase() : lowered))];
}

/**
 * Which of `needles` the text holds, honouring case sensitivity, compared as a reader sees them
 * (readings). With a memo, the text is read once for all the sample's criteria.
 */
export function found(needles: Needles, text: string, sensitive: boolean, memo?: CheckMemo) {
  const list = Array.isArray(needles) ? needles : [needles];
  const haystacks = readings(text, sensitive, memo);
  const holds = (needle: string) => {
    const read = needleReadings(needle, sensitive);
    // A needle that is itself invisible ("\u200B") is looked for as written.
    return read === undefined ? text.includes(needle) : read.some((n, i) => haystacks[i].includes(n));
  };
  return { list, hits: list.filter(holds) };
}

/** Needles' readings by case sensitivity and text: a rubric's needles are the same for every sample. */
const needleMemo = new Map<string, string[] | undefined>();
/**
 * Bounds of the memo: a reward server's clients bring needles of their own, request after
 * request, so it keeps at most this many, and none longer than a phrase (a longer one is read
 * each time): 4,096 × 256 characters at most, whatever the clients send.
 */
const MEMO_NEEDLES = 4096;
const MEMO_NEEDLE_CHARS = 256;

/** The needle's readings, or undefined for a needle a reader does not see (looked for as written). */
function needleReadings(needle: string, sensitive: boolean): string[] | undefined {
  const read = (): string[] | undefined => (seen(needle).trim() === "" ? undefined : readings(needle, sensitive));
  if (needle.length > MEMO_NEEDLE_CHARS) return read();
  const key = `${sensitive ? "s" : "i"}${needle}`;
  if (needleMemo.has(key)) return needleMemo.get(key);
  if (needleMemo.size >= MEMO_NEEDLES) needleMemo.clear();
  const value = read();
  needleMemo.set(key, value);
  return value;
}

export const quoteList = (items: string[]) => items.map((i) => `"${i}"`).join(", ");

export const contains = defineCheck<Needles>({
  key: "contains",
  spec: Needles,
  summary: "the text contains a string, any or all of several",
  options: { match: z.enum(["any", "all"]).optional(), case_sensitive: caseSensitive },
  pure: true,
  keywords: (spec) => (Array.isArray(spec) ? spec : [spec]),
  fix: (_spec, { criterionId }) => `Code check "${criterionId}" only looks for strings, which keyword stuffing supplies: pair it with an LLM question about whether the strings are used meaningfully, or make it \`when:\` a correctness gate.`,
  run(spec, { text, options, memo }) {
    const { list, hits } = found(spec, text, options.case_sensitive === true, memo);
    const all = options.match === "all";
    const pass = all ? hits.length === list.length : hits.length > 0;
    const hit = new Set(hits);
    const missing = list.filter((n) => !hit.has(n));
    return { pass, reasoning: pass ? `contains ${quoteList(hits)}` : `missing ${quoteList(all ? missing : list)}` };
  },
});
