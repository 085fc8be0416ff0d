/**
 * Text as a markdown or HTML renderer shows it. A response is read on a page where markup shows
 * nothing of itself: `stu**p**id`, `stu<!-- -->pid`, `stu<b>p</b>id` and `stu&#112;id` all show
 * "stupid", and a right-to-left override shows "diputs" as "stupid"; an element a page hides
 * (`hidden`, `display: none`, a `<template>`, a `<style>` rule) shows nothing of its content, so
 * `stu<span hidden>x</span>pid` shows "stupid" too. A string check that bans a word reads this as
 * well, or the markup hides the word from it and not from the reader.
 */
import { createRequire } from "node:module";
import { stripInvisible } from "./invisible.js";
import { withoutEnclosed } from "./markers.js";
import { cssDeclarations, hidingRules, type HidingRules, type StyledElement } from "./stylesheet.js";

/** Elements that end a line where they open or close: what they separate a renderer shows apart. */
const BLOCK = new Set(["address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl", "dt", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul"]);
/**
 * A start or end tag: its name, and its attributes from the first white space. A quoted value may
 * hold a ">" (`title=">"` does not end the tag on a page) but no "<": from each "<", the search
 * stops at the next one, so the scan stays linear (a value quoted up to a far quote would be read
 * to its end from every "<"). A start tag may close itself with no space (`<br/>`, `<hr/>`), which a
 * page reads as the tag, not as text.
 */
const TAG = /<(\/?)([A-Za-z][A-Za-z0-9-]*)((?:\s(?:[^<>"']|"[^"<]*"|'[^'<]*')*)?)\/?>/g;
/** One attribute of a tag: its name, and its value quoted or bare. */
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
/** Elements that have no content, so hiding one hides nothing after it. */
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);
/** Elements whose content a page never shows. */
const UNSHOWN = new Set(["template", "script", "style"]);
/** A style declaration that hides its element: `display: none`, `visibility: hidden`, a font size or an opacity of 0 (in a `style` attribute, or one declaration of a `<style>` rule). */
const HIDING_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|(?:opacity|font-size)\s*:\s*[0.]+[a-z%]*\s*(?:!important\s*)?(?:;|$))/i;
/** A link shows its text, an image its picture (its alt text is not read on the page). */
const LINK = /(!?)\[([^[\]\n]*)\]\([^()\s]*(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;
/** Emphasis, strike-through and code-span markers; an underscore only at a word's edge (inside a word it shows). */
const EMPHASIS = /[*~`]+|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu;
const REFERENCE = /&(?:#(\d{1,7})|#[xX]([\da-fA-F]{1,6})|([A-Za-z]+));/g;
/**
 * Named references a reader sees nothing of, or markup characters: the ones that hide or split a
 * word, and the ones honest text uses, decoded without loading HTML's whole table. A text with any
 * other name is decoded with the whole table (`decodedAll`): `stup&iota;d` shows a Greek iota, which
 * the string checks read as the "i" it looks like, and `&sopf;` a double-struck "s".
 */
const NAMED: Readonly<Record<string, string>> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00A0", shy: "\u00AD", zwj: "\u200D", zwnj: "\u200C", lrm: "\u200E", rlm: "\u200F",
  ZeroWidthSpace: "\u200B", NegativeVeryThinSpace: "\u200B", NegativeThinSpace: "\u200B", NegativeMediumSpace: "\u200B", NegativeThickSpace: "\u200B",
  NoBreak: "\u2060", ApplyFunction: "\u2061", af: "\u2061", InvisibleTimes: "\u2062", it: "\u2062", InvisibleComma: "\u2063", ic: "\u2063",
};
/** A right-to-left override and what it reverses on screen: up to a pop, another directional control or the line's end. */
const RIGHT_TO_LEFT_OVERRIDE = /\u202E([^\u202A-\u202E\u2066-\u2069\n\r\u2029]*)/g;

/**
 * The text a renderer shows: HTML comments, and elements a page hides with their content, dropped;
 * other tags dropped (a block element's as a space), links as their text, emphasis and code markers
 * dropped, character references decoded, and what a right-to-left override reverses reversed. In
 * time linear in the text. A part of a response (a section `tags` reads) is read with the whole
 * response's `<style>` rules, `styles` (pageStyles of the whole), for a rule outside the part
 * hides elements inside it.
 * @example shownText("stu**p**id <!-- x --> &#65;") // "stupid  A"
 */
export function shownText(text: string, styles: PageStyles = pageStyles(text)): string {
  return withRightToLeftShown(
    decodedReferences(
      withoutHiddenMarkup(text, styles)
        .replace(TAG, (_tag, _closing: string, name: string) => (BLOCK.has(name.toLowerCase()) ? " " : ""))
        .replace(LINK, (_link, image: string, label: string) => (image ? "" : label))
        .replace(EMPHASIS, ""),
    ),
  );
}

/**
 * The text as written, less what a page hides or disguises: HTML comments and hidden elements
 * dropped with their content, character references decoded (`&#33;` is "!"), what a right-to-left
 * override reverses reversed, invisible characters dropped. Tags and markdown stay, unlike
 * shownText: a pattern may look for them (`<answer>`, a `* ` bullet). What `regex` reads beside
 * the text as written, so a match only a disguise makes, or hides, is not the reader's; and what
 * `final_answer`, `math`, `number` and `answer_uses` grade, so a hidden answer is none.
 * @example undisguisedText("Mar<!-- -->ch&#32;12 <b>!</b>") // "March 12 <b>!</b>"
 */
export function undisguisedText(text: string): string {
  if (!/[<&\u202E]|[\p{Default_Ignorable_Code_Point}\u2800]/u.test(text)) return text;
  return stripInvisible(withRightToLeftShown(decodedReferences(withoutHiddenMarkup(text))));
}

/**
 * The text as written without what a page hides: HTML comments, and elements hidden by an
 * attribute, an inline style or a `<style>` rule (`styles`, read from the whole response), dropped
 * with their content. Everything else stays as written, references undecoded: `&lt;answer&gt;`
 * shows as text, and is no tag. Where `tags` looks for its sections.
 * @example withoutHiddenMarkup("a<!-- <b>x</b> --><i hidden>y</i>&lt;c&gt;") // "a&lt;c&gt;"
 */
export function withoutHiddenMarkup(text: string, styles: PageStyles = pageStyles(text)): string {
  return text.includes("<") ? withoutHiddenElements(withoutEnclosed(text, "<!--", "-->"), styles) : text;
}

/** The text with its character references decoded: by NAMED and the numbers, or, when it names another, by HTML's whole table. */
function decodedReferences(text: string): string {
  let other = false;
  const decoded = text.replace(REFERENCE, (reference: string, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined && !Object.hasOwn(NAMED, name)) other = true;
    return decodeReference(reference, decimal, hex, name);
  });
  return other ? decodedAll(text) : decoded;
}

/** HTML's decoder of every reference (the `entities` package, as browsers decode text), loaded the first time a text needs it: ~6 ms that most programs never pay. */
let decodeHtml: ((text: string) => string) | undefined;
function decodedAll(text: string): string {
  decodeHtml ??= (createRequire(import.meta.url)("entities/lib/decode.js") as typeof import("entities/lib/decode.js")).decodeHTML;
  return decodeHtml(text);
}

/**
 * The rules of a text's `<style>` elements that hide (stylesheet.ts), or undefined when it has
 * none: a text with no "<style" pays one search for it.
 */
export type PageStyles = HidingRules | undefined;

/** Any text a `<style>` element could open in; what has none has no sheet to read. */
const STYLE_START = /<style[\s>]/i;
/** An HTML comment's start, or a tag (TAG): what the sheets' scan steps through. */
const COMMENT_OR_TAG = new RegExp(`<!--|${TAG.source}`, "g");
/** Elements whose content is text, not markup, up to their end tag (found by its regex): a "<style>" inside one is no element. */
const RAW_TEXT = new Map(["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"].map((name) => [name, new RegExp(`</${name}[\\s/>]`, "gi")]));

/** The `<style>` rules of a text that hide elements, read from every `<style>` element of it (see styleSheets). */
export function pageStyles(text: string): PageStyles {
  if (!STYLE_START.test(text)) return undefined;
  const sheets = styleSheets(text);
  return sheets.length === 0 ? undefined : hidingRules(sheets, HIDING_STYLE);
}

/**
 * The content of each `<style>` element a page applies, read from the text as written: its
 * content is text up to `</style`, so an HTML comment in it (`<style><!-- .x{display:none}
 * --></style>`) is CSS that applies, not a comment. Not one inside a `<template>` (inert until a
 * script uses it), nor inside an HTML comment or another element of raw text (`<script>`); one
 * inside a hidden element applies, as on a page. One pass: each raw text's end is searched for once.
 */
function styleSheets(text: string): string[] {
  const sheets: string[] = [];
  const scan = new RegExp(COMMENT_OR_TAG);
  let templates = 0;
  for (let tag = scan.exec(text); tag; tag = scan.exec(text)) {
    if (tag[0] === "<!--") {
      const end = text.indexOf("-->", scan.lastIndex);
      if (end === -1) break;
      scan.lastIndex = end + 3;
      continue;
    }
    const [, closing, rawName] = tag;
    const name = rawName.toLowerCase();
    if (name === "template") templates = Math.max(0, templates + (closing ? -1 : 1));
    const end = RAW_TEXT.get(name);
    if (closing || !end) continue;
    end.lastIndex = scan.lastIndex;
    const close = end.exec(text);
    if (name === "style" && templates === 0) sheets.push(text.slice(scan.lastIndex, close ? close.index : text.length));
    if (!close) break;
    scan.lastIndex = close.index;
  }
  return sheets;
}

/**
 * True when a start tag's element is one a page does not show: a `hidden` attribute, a hiding
 * `style`, a `<template>`, or a `<style>` rule's (its class, id and attributes read with their
 * character references decoded, as a page reads them: `class="&#120;"` is class "x").
 */
function hides(name: string, attributes: string, styles: PageStyles): boolean {
  if (UNSHOWN.has(name)) return true;
  const values = new Map<string, string>();
  for (const [, attribute, doubleQuoted, singleQuoted, bare] of attributes.matchAll(ATTRIBUTE)) {
    const key = attribute.toLowerCase();
    if (key === "hidden") return true;
    // The value as a page reads it, references decoded (`display&#58;none`); a style's CSS comments and escapes too (`disp\lay:/**/none`).
    const written = doubleQuoted ?? singleQuoted ?? bare ?? "";
    const value = written.includes("&") ? decodedReferences(written) : written;
    if (key === "style" && HIDING_STYLE.test(cssDeclarations(value))) return true;
    // The first of an attribute written twice counts, as on a page.
    if (styles && !values.has(key)) values.set(key, value);
  }
  return styles !== undefined && styles.hides(styledElement(name, values));
}

/** An element as a `<style>` rule matches it: its class attribute as its white-space-separated tokens. */
function styledElement(name: string, attributes: Map<string, string>): StyledElement {
  const classes = attributes.get("class");
  // Class and id in lower case, as a rule's (stylesheet.ts): a page in quirks mode matches them without case.
  return { name, id: attributes.get("id")?.toLowerCase(), classes: new Set(classes ? classes.toLowerCase().split(/[ \t\n\r\f]+/).filter(Boolean) : []), attributes };
}

/**
 * The text without the elements a page hides, their content included, up to the end tag that
 * closes each (the same name, counting those nested in it); one left open hides the rest, as on a
 * page. One pass over the tags. A rule that hides the whole page (`body`, `*`) leaves nothing.
 */
function withoutHiddenElements(text: string, styles: PageStyles): string {
  if (styles?.all) return "";
  if (!text.includes("<")) return text;
  let shown = "";
  let from = 0;
  let open: { name: string; depth: number } | undefined;
  for (const tag of text.matchAll(TAG)) {
    const [written, closing, rawName, attributes] = tag;
    const name = rawName.toLowerCase();
    if (open) {
      if (name !== open.name || VOID.has(name)) continue;
      if (!closing) open.depth++;
      else if (--open.depth === 0) {
        from = tag.index + written.length;
        open = undefined;
      }
    } else if (!closing && hides(name, attributes, styles)) {
      shown += text.slice(from, tag.index);
      from = tag.index + written.length;
      if (!VOID.has(name)) open = { name, depth: 1 };
    }
  }
  return open ? shown : shown + text.slice(from);
}

function decodeReference(reference: string, decimal: string | undefined, hex: string | undefined, name: string | undefined): string {
  if (name !== undefined) return Object.hasOwn(NAMED, name) ? NAMED[name] : reference;
  const code = decimal !== undefined ? Number(decimal) : parseInt(hex!, 16);
  // As HTML decodes them: nothing past Unicode, no surrogate, no NUL.
  return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? "\uFFFD" : String.fromCodePoint(code);
}

const withRightToLeftShown = (text: string): string => (text.includes("\u202E") ? text.replace(RIGHT_TO_LEFT_OVERRIDE, (_m, run: string) => [...run].reverse().join("")) : text);
