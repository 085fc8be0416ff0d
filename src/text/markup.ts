/**
 * Text as a markdown or HTML renderer shows it. A response is read on a page where markup shows
 * nothing of itself: `stu**p**id`, `stu<!-- -->pid`, `stu<b>p</b>id` and `stu&#112;id` all show
 * "stupid", and a right-to-left override shows "diputs" as "stupid". A string check that bans a
 * word reads this too, or the markup hides the word from it and not from the reader.
 */
import { withoutEnclosed } from "./markers.js";

/** Elements that end a line where they open or close: what they separate a renderer shows apart. */
const BLOCK = new Set(["address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl", "dt", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul"]);
// A tag ends at the first ">", and no "<" is inside it: from each "<", the search stops at the next one.
const TAG = /<\/?([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?\/?>/g;
/** A link shows its text, an image its picture (its alt text is not read on the page). */
const LINK = /(!?)\[([^[\]\n]*)\]\([^()\s]*(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;
/** Emphasis, strike-through and code-span markers; an underscore only at a word's edge (inside a word it shows). */
const EMPHASIS = /[*~`]+|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu;
const REFERENCE = /&(?:#(\d{1,7})|#[xX]([\da-fA-F]{1,6})|([A-Za-z]+));/g;
/** Named references a reader sees nothing of, or markup characters: the ones that hide or split a word. */
const NAMED: Readonly<Record<string, string>> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00A0", shy: "\u00AD", zwj: "\u200D", zwnj: "\u200C", lrm: "\u200E", rlm: "\u200F",
  ZeroWidthSpace: "\u200B", NegativeVeryThinSpace: "\u200B", NegativeThinSpace: "\u200B", NegativeMediumSpace: "\u200B", NegativeThickSpace: "\u200B",
  NoBreak: "\u2060", ApplyFunction: "\u2061", af: "\u2061", InvisibleTimes: "\u2062", it: "\u2062", InvisibleComma: "\u2063", ic: "\u2063",
};
/** A right-to-left override and what it reverses on screen: up to a pop, another directional control or the line's end. */
const RIGHT_TO_LEFT_OVERRIDE = /\u202E([^\u202A-\u202E\u2066-\u2069\n\r\u2029]*)/g;

/**
 * The text a renderer shows: HTML comments and tags dropped (a block element's as a space),
 * links as their text, emphasis and code markers dropped, character references decoded, and
 * what a right-to-left override reverses reversed. In time linear in the text.
 * @example shownText("stu**p**id <!-- x --> &#65;") // "stupid  A"
 */
export function shownText(text: string): string {
  return withRightToLeftShown(
    withoutEnclosed(text, "<!--", "-->")
      .replace(TAG, (_tag, name: string) => (BLOCK.has(name.toLowerCase()) ? " " : ""))
      .replace(LINK, (_link, image: string, label: string) => (image ? "" : label))
      .replace(EMPHASIS, "")
      .replace(REFERENCE, decodeReference),
  );
}

function decodeReference(reference: string, decimal: string | undefined, hex: string | undefined, name: string | undefined): string {
  if (name !== undefined) return NAMED[name] ?? reference;
  const code = decimal !== undefined ? Number(decimal) : parseInt(hex!, 16);
  // As HTML decodes them: nothing past Unicode, no surrogate, no NUL.
  return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? "\uFFFD" : String.fromCodePoint(code);
}

const withRightToLeftShown = (text: string): string => (text.includes("\u202E") ? text.replace(RIGHT_TO_LEFT_OVERRIDE, (_m, run: string) => [...run].reverse().join("")) : text);
