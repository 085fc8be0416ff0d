/**
 * The languages search understands: a Snowball stemmer each (from @orama/stemmers) and the
 * commonest words, which tell a document's language and carry no meaning in a query.
 */
import { stemmer as english } from "@orama/stemmers/english";
import { stemmer as german } from "@orama/stemmers/german";

interface Language {
  stem: (word: string) => string;
  /** Function words: frequent in any text of the language, so they detect it and are not indexed. */
  stopWords: ReadonlySet<string>;
}

/** By ISO 639-1 code. Adding a language is one entry (its stemmer and stop words). */
export const LANGUAGES: Readonly<Record<string, Language>> = {
  en: {
    stem: english,
    stopWords: new Set(
      "a an and are as at be been but by can do does for from has have how i if in into is it its may must of on or our should that the their there this to was we what when where which who why will with you your".split(" "),
    ),
  },
  de: {
    stem: german,
    stopWords: new Set(
      "aber als am an auch auf aus bei bin bis da das dass dem den der des die du ein eine einem einen einer es für hat ich ihr im in ist kann man mit muss nach nicht noch oder sich sie sind so um und uns von vor wann was welche welcher wer werden wie wir wird wo zu zum zur über".split(
        " ",
      ),
    ),
  },
};

/** The language whose stop words are most frequent in `text` (at least 3 and 2% of its words), or undefined. */
export function detectLanguage(text: string): string | undefined {
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  let best: { code: string; hits: number } | undefined;
  for (const [code, lang] of Object.entries(LANGUAGES)) {
    const hits = words.reduce((n, w) => n + (lang.stopWords.has(w) ? 1 : 0), 0);
    if (!best || hits > best.hits) best = { code, hits };
  }
  return best && best.hits >= 3 && best.hits >= words.length * 0.02 ? best.code : undefined;
}

/**
 * The index terms of one word: its stems under every language, so a query matches a document
 * whatever language either is written in (a German query word stems as German, an English one as
 * English; a stem one language gives a foreign word is rarely another word's). Stop words of any
 * language give none.
 */
export function termsOf(word: string): string[] {
  const w = word.normalize("NFC").toLowerCase();
  let terms = stemCache.get(w);
  if (!terms) {
    const langs = Object.values(LANGUAGES);
    terms = (w.length < 2 && !/\p{N}/u.test(w)) || langs.some((l) => l.stopWords.has(w)) ? [] : [...new Set(langs.map((l) => l.stem(w)))];
    // Stemming is most of indexing time and a corpus repeats its words; bounded, as a server sees any query.
    if (stemCache.size >= STEM_CACHE_MAX) stemCache.clear();
    stemCache.set(w, terms);
  }
  return terms;
}

const STEM_CACHE_MAX = 200_000;
const stemCache = new Map<string, string[]>();
