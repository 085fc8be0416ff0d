/**
 * The elements a page's `<style>` rules hide (markup.ts reads the page): `<style>.x{display:none}
 * </style><span class=x>padding</span>` shows nothing of the span, so its words must not meet a
 * `length` min or a `contains`. A rule hides when a declaration of it is one `hiding` accepts (the
 * inline style's test); the elements it hides are those its selectors might match. Might: a reward
 * must not be bent, so where the page's full cascade is not computed the reading hides more, never
 * less. Of each selector only its last compound is matched (`div > .x` as `.x`), pseudo-classes
 * match anything (`.x:hover`, `.x:not(.y)` as `.x`), rules in `@media`, `@supports` or a nested
 * rule count, and a later rule that shows the element again is not read. Only what decorates an
 * element is left out (`.x::before`): hiding it hides none of the element's own text.
 *
 * Parsed by hand, each sheet once, in time linear in it (no regex that backtracks): a response is
 * adversarial and may be megabytes long. Matching an element costs a bounded number of tests per
 * class, id, attribute and name it has (see MAX_BUCKET, MAX_TESTS).
 */

/** An element as its start tag writes it: its name in lower case, its id, its class tokens, its attributes (names in lower case, first wins). */
export interface StyledElement {
  name: string;
  id: string | undefined;
  classes: ReadonlySet<string>;
  attributes: ReadonlyMap<string, string>;
}

/** The rules of a page's sheets that hide: `all` when one hides the whole page (`*`, `body`, `:root`). */
export interface HidingRules {
  all: boolean;
  hides(element: StyledElement): boolean;
}

/** An attribute selector: `[name]`, or `[name op "value"]`, its value in lower case (see matchesAttribute). */
interface AttributeTest {
  name: string;
  op: string;
  value: string;
}

/** A compound selector's simple selectors: an element matches when it has them all. */
interface Compound {
  type?: string;
  id?: string;
  classes: string[];
  attributes: AttributeTest[];
}

/** A rule of the sheet, for its nested rules: what its selectors match, and whether it hides. */
interface RuleContext {
  compounds: Compound[];
  /** A selector of it is `&` alone (or with pseudo-classes): it matches what its parent rule does. */
  refsParent: boolean;
  parent: RuleContext | undefined;
  hiding: boolean;
}

/** At-rules whose block holds rules that apply (under a condition, which the reading takes as met); any other's block is skipped (`@font-face`, `@keyframes`, `@page`). */
const GROUPING = new Set(["media", "supports", "layer", "container", "document", "-moz-document", "scope", "starting-style"]);
/** Pseudo-elements that decorate an element without holding its text: hiding one hides nothing the response wrote. */
const DECORATING = new Set(["before", "after", "marker", "placeholder", "selection", "backdrop", "file-selector-button", "-webkit-details-marker", "-webkit-scrollbar", "-webkit-scrollbar-thumb", "-webkit-scrollbar-track"]);
/** Element names that stand for the page around the response: a rule that hides one hides the response with it. */
const PAGE = new Set(["html", "body"]);
/**
 * A key (an id, a class, an attribute, a name) with more hiding compounds than this matches by
 * the key alone, a superset: an element then tests at most this many compounds per key it has,
 * whatever the sheet holds. No honest response has nine hiding rules that share a class.
 */
const MAX_BUCKET = 8;
/** Simple selectors kept of a compound besides its key; dropping the rest matches more, never less. */
const MAX_TESTS = 4;
/** An attribute value a substring or word test reads at most; a longer one passes the test (more hidden, never less). */
const MAX_VALUE = 1024;

/**
 * The rules of the sheets (each `<style>` element's text) that hide, or undefined when none does.
 * `hiding` is the inline style's test, given one declaration (markup.ts's HIDING_STYLE).
 */
export function hidingRules(sheets: readonly string[], hiding: RegExp): HidingRules | undefined {
  const index = new HidingIndex();
  for (const sheet of sheets) readSheet(withoutCssComments(sheet), hiding, index);
  return index.empty ? undefined : index;
}

/**
 * The sheet with each comment a space; one left open runs to the end, as in CSS. A "/*" inside a
 * quoted string opens none (`content: "/*"` must not hide the rules after it). In one pass.
 */
function withoutCssComments(sheet: string): string {
  if (!sheet.includes("/*")) return sheet;
  let out = "";
  let from = 0;
  for (let i = 0; i < sheet.length; i++) {
    const c = sheet[i];
    if (c === "\\") i++;
    else if (c === '"' || c === "'") i = stringEnd(sheet, i) - 1;
    else if (c === "/" && sheet[i + 1] === "*") {
      const end = sheet.indexOf("*/", i + 2);
      out += `${sheet.slice(from, i)} `;
      if (end === -1) return out;
      from = end + 2;
      i = end + 1;
    }
  }
  return out + sheet.slice(from);
}

/** A frame of the sheet's blocks: a rule's declarations, a group (`@media`) of rules, or a block skipped whole. */
interface Frame {
  kind: "rule" | "group" | "skip";
  rule: RuleContext | undefined;
}

/**
 * Reads a sheet's blocks with an explicit stack (no recursion, however deep the nesting): each
 * prelude before a `{` opens a rule, a group or a skipped block; each declaration (up to `;` or
 * `}`) of a rule that hides marks the rule's selectors hiding. Quoted strings and escapes hold no
 * brace. An unclosed block closes at the end, as in CSS.
 */
function readSheet(sheet: string, hiding: RegExp, index: HidingIndex): void {
  const stack: Frame[] = [];
  const top = (): Frame | undefined => stack[stack.length - 1];
  const declaration = (chunk: string) => {
    const frame = top();
    // Escapes decoded first: `disp\\lay: none` is `display: none` to CSS.
    if (frame && frame.kind !== "skip" && frame.rule && hiding.test(chunk.includes("\\") ? cssString(chunk) : chunk)) index.hide(frame.rule);
  };
  let from = 0;
  for (let i = 0; i < sheet.length; i++) {
    const c = sheet[i];
    if (c === "\\") i++;
    else if (c === '"' || c === "'") i = stringEnd(sheet, i) - 1;
    else if (c === "{") {
      stack.push(opened(sheet.slice(from, i).trim(), top()));
      from = i + 1;
    } else if (c === ";" || c === "}") {
      declaration(sheet.slice(from, i));
      if (c === "}") stack.pop();
      from = i + 1;
    }
  }
  declaration(sheet.slice(from));
}

/** The frame a block opens, given its prelude and the frame it is in. */
function opened(prelude: string, parent: Frame | undefined): Frame {
  if (parent?.kind === "skip") return parent;
  const rule = parent?.rule;
  if (prelude.startsWith("@")) {
    const name = /^@([-\w]*)/.exec(prelude)![1].toLowerCase();
    return GROUPING.has(name) ? { kind: "group", rule } : { kind: "skip", rule: undefined };
  }
  return { kind: "rule", rule: { ...selectorList(prelude), parent: rule, hiding: false } };
}

/** Where a quoted string that starts at `at` ends (past its closing quote), or at its line's end, as in CSS. */
function stringEnd(text: string, at: number): number {
  const quote = text[at];
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === quote) return i + 1;
    else if (c === "\n") return i;
  }
  return text.length;
}

const isSpace = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f";

/**
 * The last compound of each selector of a list (`a b, .c > .d:hover` → `b`, `.d`), as compounds,
 * and whether one is the parent rule's `&` alone. One pass: a comma, white space or combinator
 * outside brackets, parentheses and strings ends a compound.
 */
function selectorList(prelude: string): { compounds: Compound[]; refsParent: boolean } {
  const compounds: Compound[] = [];
  let refsParent = false;
  let depth = 0;
  let start = 0;
  let end = 0;
  let between = true;
  const finish = () => {
    if (end <= start) return;
    const compound = parseCompound(prelude.slice(start, end));
    if (compound === "parent") refsParent = true;
    else if (compound) compounds.push(compound);
  };
  for (let i = 0; i < prelude.length; i++) {
    const c = prelude[i];
    if (depth === 0 && c === ",") {
      finish();
      start = end = i + 1;
      between = true;
      continue;
    }
    if (depth === 0 && (isSpace(c) || c === ">" || c === "+" || c === "~")) {
      between = true;
      continue;
    }
    if (between) {
      start = i;
      between = false;
    }
    // An escape's hex digits and the white space that ends them are part of the name (`.\\70 ad` is `.pad`).
    if (c === "\\") i = readEscape(prelude, i + 1)[1] - 1;
    else if (c === '"' || c === "'") i = stringEnd(prelude, i) - 1;
    else if (c === "(" || c === "[") depth++;
    else if ((c === ")" || c === "]") && depth > 0) depth--;
    end = Math.min(i + 1, prelude.length);
  }
  finish();
  return { compounds, refsParent };
}

/**
 * A compound's simple selectors: a name, `.class`, `#id`, `[attribute]`; `*` and pseudo-classes
 * match anything. Undefined for one that only decorates (`::before`), "parent" for `&` with
 * nothing else (it matches what the parent rule does; `&.x` is read as `.x`, a superset).
 */
function parseCompound(text: string): Compound | "parent" | undefined {
  const compound: Compound = { classes: [], attributes: [] };
  let parent = false;
  for (let i = 0; i < text.length; ) {
    const c = text[i];
    if (c === ".") {
      const [name, next] = readIdent(text, i + 1);
      // In lower case, as the element's (markup.ts): a page without a doctype (quirks mode) matches
      // class and id without case, so `.X` might hide `class=x`, and might is enough to hide.
      if (name) compound.classes.push(name.toLowerCase());
      i = next;
    } else if (c === "#") {
      const [name, next] = readIdent(text, i + 1);
      if (name) compound.id ??= name.toLowerCase();
      i = next;
    } else if (c === "[") {
      const [test, next] = readAttribute(text, i + 1);
      if (test) compound.attributes.push(test);
      i = next;
    } else if (c === ":") {
      const element = text[i + 1] === ":";
      const [name, next] = readIdent(text, i + (element ? 2 : 1));
      // A legacy one-colon pseudo-element (`:before`) decorates as its two-colon form does.
      const pseudo = name.toLowerCase();
      if (DECORATING.has(pseudo) && (element || pseudo === "before" || pseudo === "after")) return undefined;
      i = text[next] === "(" ? parenthesesEnd(text, next) : next;
    } else if (c === "&") {
      parent = true;
      i++;
    } else if (startsIdent(c)) {
      const [name, next] = readIdent(text, i);
      // `ns|name`: the name after the bar.
      if (text[next] !== "|") compound.type = name.toLowerCase();
      i = next;
    } else i++;
  }
  const empty = compound.type === undefined && compound.id === undefined && compound.classes.length === 0 && compound.attributes.length === 0;
  return parent && empty ? "parent" : compound;
}

/** Where the parenthesized argument that opens at `at` ends (past its ")"), nested ones and strings skipped. */
function parenthesesEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === '"' || c === "'") i = stringEnd(text, i) - 1;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1;
  }
  return text.length;
}

/** A character of a name: an ASCII letter or digit, "-", "_", or any non-ASCII one. */
const isNameChar = (c: string): boolean => {
  const code = c.charCodeAt(0);
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || c === "-" || c === "_" || code >= 0x80;
};
const startsIdent = (c: string): boolean => c === "\\" || (isNameChar(c) && !(c >= "0" && c <= "9"));
const isHex = (c: string | undefined): boolean => c !== undefined && ((c >= "0" && c <= "9") || (c >= "a" && c <= "f") || (c >= "A" && c <= "F"));

/** The identifier at `at` (letters, digits, `-`, `_`, any non-ASCII, escapes decoded: `\78` and `\x` are "x"), and where it ends. */
function readIdent(text: string, at: number): [string, number] {
  let name = "";
  let i = at;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\") {
      const [decoded, next] = readEscape(text, i + 1);
      name += decoded;
      i = next;
    } else if (isNameChar(c)) {
      name += c;
      i++;
    } else break;
  }
  return [name, i];
}

/** The character an escape after a backslash at `at - 1` stands for, and where it ends: up to six hex digits and one white space, or the next character. */
function readEscape(text: string, at: number): [string, number] {
  let i = at;
  while (i < text.length && i - at < 6 && isHex(text[i])) i++;
  if (i === at) return [text[at] ?? "", Math.min(at + 1, text.length)];
  const code = parseInt(text.slice(at, i), 16);
  if (i < text.length && isSpace(text[i])) i++;
  return [code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? "\uFFFD" : String.fromCodePoint(code), i];
}

/**
 * The attribute selector whose content starts at `at` (after "["), and where it ends (past "]"):
 * `name`, then optionally an operator, a value quoted or bare and a case flag. One that does not
 * parse tests its name alone, or nothing.
 */
function readAttribute(text: string, at: number): [AttributeTest | undefined, number] {
  let i = skipSpace(text, at);
  let [name, next] = readIdent(text, i);
  // `[ns|name]` and `[*|name]`: the name after the bar.
  if (text[next] === "|" && text[next + 1] !== "=") [name, next] = readIdent(text, next + 1);
  else if (name === "" && text[i] === "*" && text[i + 1] === "|") [name, next] = readIdent(text, i + 2);
  i = skipSpace(text, next);
  let op = "";
  let value = "";
  if (text[i] === "=") op = "=";
  else if ("~|^$*".includes(text[i] ?? "x") && text[i + 1] === "=") op = `${text[i]}=`;
  if (op) {
    i = skipSpace(text, i + op.length);
    if (text[i] === '"' || text[i] === "'") {
      const end = stringEnd(text, i);
      value = cssString(text.slice(i + 1, text[end - 1] === text[i] && end - 1 > i ? end - 1 : end));
      i = end;
    } else [value, i] = readIdent(text, i);
  }
  const close = text.indexOf("]", i);
  const end = close === -1 ? text.length : close + 1;
  if (!name) return [undefined, end];
  // A value too long to test is dropped: the test of the name alone matches more.
  return [value.length > MAX_VALUE ? { name: name.toLowerCase(), op: "", value: "" } : { name: name.toLowerCase(), op, value: value.toLowerCase() }, end];
}

const skipSpace = (text: string, at: number): number => {
  let i = at;
  while (i < text.length && isSpace(text[i])) i++;
  return i;
};

/**
 * An inline `style` attribute's declarations as CSS reads them, comments dropped and escapes
 * decoded (`disp\lay: none` is `display: none`, and so is a comment between its words), for the
 * inline style's test.
 */
export function cssDeclarations(style: string): string {
  return cssString(withoutCssComments(style));
}

/** A quoted string's content, or a declaration, with its escapes decoded (an escaped newline is dropped). */
function cssString(content: string): string {
  if (!content.includes("\\")) return content;
  let out = "";
  for (let i = 0; i < content.length; ) {
    if (content[i] !== "\\") out += content[i++];
    else if (content[i + 1] === "\n") i += 2;
    else {
      const [decoded, next] = readEscape(content, i + 1);
      out += decoded;
      i = next;
    }
  }
  return out;
}

/**
 * The hiding compounds by a key each has (its id, else a class, else an attribute's name, else
 * its name), so an element tests only those that could match it. A key that fills its bucket
 * past MAX_BUCKET matches by itself ("any").
 */
class HidingIndex implements HidingRules {
  all = false;
  empty = true;
  private readonly byId = new Map<string, Compound[] | "any">();
  private readonly byClass = new Map<string, Compound[] | "any">();
  private readonly byAttribute = new Map<string, Compound[] | "any">();
  private readonly byType = new Map<string, Compound[] | "any">();

  /** Marks a rule hiding: its compounds, and its parent's where a selector is `&` (a top-level `&` is the page), each rule once. */
  hide(rule: RuleContext): void {
    for (let at: RuleContext | undefined = rule; at && !at.hiding; at = at.refsParent ? at.parent : undefined) {
      at.hiding = true;
      this.empty = false;
      for (const compound of at.compounds) this.add(compound);
      if (at.refsParent && !at.parent) this.all = true;
    }
  }

  private add(compound: Compound): void {
    const tests = [...(compound.id === undefined ? [] : [compound.id]), ...compound.classes, ...compound.attributes, ...(compound.type ? [compound.type] : [])];
    if (tests.length === 0 || (tests.length === 1 && compound.type !== undefined && PAGE.has(compound.type))) {
      this.all = true;
      return;
    }
    const kept: Compound = {
      type: compound.type,
      id: compound.id,
      classes: compound.classes.slice(0, MAX_TESTS),
      attributes: compound.attributes.slice(0, MAX_TESTS),
    };
    if (compound.id !== undefined) this.file(this.byId, compound.id, kept);
    else if (compound.classes.length) this.file(this.byClass, compound.classes[0], kept);
    else if (compound.attributes.length) this.file(this.byAttribute, compound.attributes[0].name, kept);
    else this.file(this.byType, compound.type!, kept);
  }

  private file(map: Map<string, Compound[] | "any">, key: string, compound: Compound): void {
    const bucket = map.get(key);
    if (bucket === "any") return;
    if (bucket && bucket.length >= MAX_BUCKET) map.set(key, "any");
    else if (bucket) bucket.push(compound);
    else map.set(key, [compound]);
  }

  hides(element: StyledElement): boolean {
    if (this.all) return true;
    const any = (bucket: Compound[] | "any" | undefined) => bucket !== undefined && (bucket === "any" || bucket.some((c) => matches(c, element)));
    if (element.id !== undefined && any(this.byId.get(element.id))) return true;
    for (const token of element.classes) if (any(this.byClass.get(token))) return true;
    for (const name of element.attributes.keys()) if (any(this.byAttribute.get(name))) return true;
    return any(this.byType.get(element.name));
  }
}

function matches(compound: Compound, element: StyledElement): boolean {
  if (compound.type !== undefined && compound.type !== element.name) return false;
  if (compound.id !== undefined && compound.id !== element.id) return false;
  if (!compound.classes.every((c) => element.classes.has(c))) return false;
  return compound.attributes.every((test) => matchesAttribute(test, element.attributes.get(test.name)));
}

/**
 * True when an attribute's value passes a test, read case-insensitively (HTML reads some values
 * so, `type` and `lang`; reading all so matches more, never less). Only as much of a long value as
 * the test needs is read; one longer than MAX_VALUE passes a substring or word test unread.
 */
function matchesAttribute({ op, value }: AttributeTest, actual: string | undefined): boolean {
  if (actual === undefined) return false;
  if (op === "") return true;
  if (actual.length > MAX_VALUE && (op === "*=" || op === "~=")) return true;
  const head = (n: number) => actual.slice(0, n).toLowerCase();
  switch (op) {
    case "=":
      return actual.length === value.length && actual.toLowerCase() === value;
    case "|=":
      return actual.length === value.length ? head(value.length) === value : head(value.length + 1) === `${value}-`;
    case "^=":
      return value !== "" && head(value.length) === value;
    case "$=":
      return value !== "" && actual.slice(-value.length).toLowerCase() === value;
    case "~=":
      return value !== "" && actual.toLowerCase().split(/[ \t\n\r\f]+/).includes(value);
    default:
      return value !== "" && actual.toLowerCase().includes(value);
  }
}
