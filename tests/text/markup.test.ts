import { describe, expect, it } from "vitest";
import { pageStyles, shownText } from "../../src/text/markup.js";

describe("shownText: the text a markdown or HTML renderer shows", () => {
  it.each([
    ["stu**p**id", "stupid"],
    ["*stu*pid and `code` and ~~gone~~", "stupid and code and gone"],
    ["_stu_pid, snake_case and __init__", "stu_pid, snake_case and init"],
    ["[the text](https://example.com \"title\") ![alt](img.png)", "the text "],
    ["a<!-- hidden -->b<!---->c", "abc"],
    ["stu<b>p</b>id<span class=\"x\"></span>", "stupid"],
    ["one<br>two<p>three</P>four", "one two three four"],
    ["&#112;&#x70;&#X50;&amp;&lt;b&gt;&shy;&unknown;&#0;&#xD800;&#1114112;", "ppP&<b>\u00AD&unknown;\uFFFD\uFFFD\uFFFD"],
    ["&amp;#112;", "&#112;"],
    ["x\u202Eabc\u202Cy \u202Edef\nghi", "xcba\u202Cy fed\nghi"],
    ["plain text, 2 < 3 > 1, a_b", "plain text, 2 < 3 > 1, a_b"],
    // A quoted ">" does not end a tag on a page.
    ["stu<span title=\">\">p</span>id", "stupid"],
  ])("%j shows %j", (text, shown) => {
    expect(shownText(text)).toBe(shown);
  });

  it.each([
    ["stup&iota;d", "stup\u03B9d"], // a Greek iota, which the string checks read as the "i" it looks like
    ["&sopf;tupid &Sscr;", "\u{1D564}tupid \u{1D4AE}"],
    ["a &hellip; b &mdash; &period;", "a \u2026 b \u2014 ."],
    ["&notit; and &amp;#112; and &unknown;", "\u00ACit; and &#112; and &unknown;"],
    // Names of Object's prototype are no references: they stay as written, never a function's text.
    ["x &constructor; &toString; &valueOf;", "x &constructor; &toString; &valueOf;"],
  ])("a reference HTML names, any of its 2,231: %j shows %j", (text, shown) => {
    expect(shownText(text)).toBe(shown);
  });

  it.each([
    ["stu<span hidden>x</span>pid", "stupid"],
    ["stu<span style=\"display:none\">x</span>pid", "stupid"],
    ["stu<i style='color: red; display : none !important'>x</i>pid", "stupid"],
    ["stu<b style=\"visibility:hidden\">x</b>pid", "stupid"],
    ["a<span style=\"opacity:0\">b</span>c<span style=\"font-size: 0px\">d</span>e", "ace"],
    ["a<template>b</template>c<script>if (x<y) z()</script>d<style>p{}</style>e", "acde"],
    ["a<div hidden><div>b</div>c</div>d", "ad"],
    ["a<SPAN HIDDEN>b</span>c", "ac"],
    ["a<img hidden src=x>b", "ab"],
    ["a<span hidden>the rest, never closed", "a"],
  ])("an element a page hides shows none of its content: %j shows %j", (text, shown) => {
    expect(shownText(text)).toBe(shown);
  });

  it.each([
    ["a<span aria-hidden=\"true\">b</span>c", "abc"],
    ["a<span data-hidden class=hidden>b</span>c", "abc"],
    ["a<span title=\"not hidden\">b</span>c", "abc"],
    ["a<span style=\"opacity: 0.5; display: inline\">b</span>c", "abc"],
    ["a<span hidden=\"\"></span>b<p>c</p>", "ab c "],
  ])("an element a page shows keeps its content: %j shows %j", (text, shown) => {
    expect(shownText(text)).toBe(shown);
  });

  it.each([
    ["a class", "<style>.x{display:none}</style>Yes.<span class=x> padding padding padding</span>", "Yes."],
    ["a type", "<style>small { visibility: hidden }</style>Yes.<small> padding</small>", "Yes."],
    ["an id, in a list of selectors", "<style>b, #pad { opacity: 0 }</style>Yes.<i id=\"pad\"> padding</i>", "Yes."],
    ["an attribute", "<style>[data-pad]{font-size:0}</style>Yes.<i data-pad> padding</i>", "Yes."],
    ["an attribute's value", "<style>[data-k=\"v\"]{display:none}</style>Yes.<i data-k=v> padding</i><i data-k=w>!</i>", "Yes.!"],
    ["a value's start, end, part and word", "<style>[a^=pre],[b$=end],[c*=mid],[d~=word]{display:none}</style>Y<i a=prefix>1</i><i b=the-end>2</i><i c=amidst>3</i><i d=\"a word\">4</i>es", "Yes"],
    ["a compound", "<style>span.x#y { display: none !important }</style>Yes.<span class=\"a x\" id=y> padding</span><span class=x>!</span>", "Yes.!"],
    ["the universal selector with a class", "<style>*.x{display:none}</style>Yes.<p class=x>padding</p>", "Yes."],
    ["a descendant, child or sibling combinator (its last compound)", "<style>div > p .x, h1 + .y, h2 ~ .z { display: none }</style>Yes.<b class=x>1</b><b class=y>2</b><b class=z>3</b>", "Yes."],
    ["an @media block", "<style>@media screen and (min-width: 1px) { @supports (display: grid) { .x { display: none } } }</style>Yes.<b class=x> padding</b>", "Yes."],
    ["a nested rule", "<style>.a { color: red; .x { display: none } }</style>Yes.<b class=x> padding</b>", "Yes."],
    ["a nested rule of the parent itself", "<style>.x { & { display: none } }</style>Yes.<b class=x> padding</b>", "Yes."],
    ["a rule after a comment, a string and other at-rules", "<style>@import url(\"a.css\"); @font-face { font-family: \"}\" } /* } */ .x{content:\"{\";display:none}</style>Yes.<b class=x> padding</b>", "Yes."],
    ["a class written with a CSS escape", "<style>.\\70 ad, .\\x{display:none}</style>Yes.<b class=pad> padding</b><b class=x>!</b>", "Yes."],
    ["a class written with a character reference", "<style>.pad{display:none}</style>Yes.<b class=\"&#112;ad\"> padding</b>", "Yes."],
    ["a sheet in an HTML-comment-looking block, which CSS reads", "<style><!-- .pad{display:none} --></style>Yes.<b class=pad> padding</b>", "Yes."],
    ["a sheet after the element, or inside a hidden one", "Yes.<b class=pad> padding</b><div hidden><style>.pad{display:none}</style></div>", "Yes."],
    ["a sheet whose block is left open", "<style>.pad{display:none</style>Yes.<b class=pad> padding</b>", "Yes."],
    ["a \"/*\" in a string, which opens no comment", "<style>.a{content:\"/*\"} .pad{display:none} .b{content:\"*/\"}</style>Yes.<b class=pad> padding</b>", "Yes."],
    ["a declaration written with a CSS escape or a comment", "<style>.pad{disp\\lay: n\\6f ne} .pad2{opacity:/* */0}</style>Yes.<b class=pad> padding</b><b class=pad2> padding</b>", "Yes."],
    ["an element name in upper case", "<style>SPAN{display:none}</style>Yes.<span> padding</span><Span>!</Span>", "Yes."],
  ])("an element a <style> rule hides shows none of its content, by %s", (_, text, shown) => {
    expect(shownText(text)).toBe(shown);
  });

  it("a hidden element's nested elements go with it, and what follows it shows", () => {
    expect(shownText("<style>.x{display:none}</style>a<div class=x><div>b</div><div class=y>c</div>d</div>e")).toBe("ae");
    expect(shownText("<style>.x{display:none}</style>a<span class=x>the rest, never closed")).toBe("a");
    expect(shownText("<style>.x{display:none}</style>a<img class=x src=b>c")).toBe("ac");
  });

  it("a pseudo-class may hide its element (.x:hover, .x:not(.y)): it counts as hidden; a pseudo-element that decorates (::before) hides none of its text", () => {
    expect(shownText("<style>.x:hover{display:none}</style>Yes.<b class=x> padding</b>")).toBe("Yes.");
    expect(shownText("<style>.x:not(.y){display:none}</style>Yes.<b class=\"x y\"> padding</b>")).toBe("Yes.");
    expect(shownText("<style>.x::first-line{font-size:0}</style>Yes.<b class=x> padding</b>")).toBe("Yes.");
    expect(shownText("<style>.x::before, .x:after, summary::-webkit-details-marker { display: none }</style>Yes.<b class=x> shown</b>")).toBe("Yes. shown");
  });

  it("a rule that hides the page around the response (body, *, :root) hides all of it", () => {
    for (const rule of ["body{display:none}", "*{opacity:0}", ":root{visibility:hidden}", "html, p{font-size:0}"]) expect(shownText(`Yes.<style>${rule}</style> padding`), rule).toBe("");
  });

  it.each([
    ["a rule that colours text", "<style>.x { color: red; font-weight: bold }</style>Yes.<b class=x> shown</b>", "Yes. shown"],
    ["a rule for a class no element has", "<style>.y{display:none}</style>Yes.<b class=x> shown</b>", "Yes. shown"],
    ["a rule for another id or type", "<style>#y, i{display:none}</style>Yes.<b id=x> shown</b>", "Yes. shown"],
    ["a class matched by its whole token", "<style>.x{display:none}</style>Yes.<b class=\"xx\"> shown</b><b class=y>!</b>", "Yes. shown!"],
    ["an id matched whole", "<style>#Pad{display:none}</style>Yes.<b id=padding> shown</b>", "Yes. shown"],
    ["a visible opacity or font size", "<style>.x{opacity:0.5;font-size:0.9em}</style>Yes.<b class=x> shown</b>", "Yes. shown"],
    ["a rule in a comment", "<style>/* .x{display:none} */</style>Yes.<b class=x> shown</b>", "Yes. shown"],
    ["a rule in @font-face or @keyframes", "<style>@font-face { display: none } @keyframes k { from { opacity: 0 } }</style>Yes.<b class=x> shown</b>", "Yes. shown"],
    ["a sheet inside a <template>, which a page never applies", "<template><style>.x{display:none}</style></template>Yes.<b class=x> shown</b>", "Yes. shown"],
    ["a sheet inside an HTML comment", "<!-- <style>.x{display:none}</style> -->Yes.<b class=x> shown</b>", "Yes. shown"],
    ["a \"<style>\" inside a script's text", "<script>s = \"<style>.x{display:none}</style>\"</script>Yes.<b class=x> shown</b>", "Yes. shown"],
    ["a rule without a hiding declaration, beside one with", "<style>.x{color:red} .y{display:none}</style>Yes.<b class=x> shown</b>", "Yes. shown"],
  ])("an element a <style> rule does not hide keeps its content: %s", (_, text, shown) => {
    expect(shownText(text)).toBe(shown);
  });

  it("class and id match without case, as a page in quirks mode (no doctype) matches them: .X might hide class=x, and might is enough", () => {
    expect(shownText("<style>.X{display:none}</style>Yes.<b class=x> hidden</b>")).toBe("Yes.");
    expect(shownText("<style>.x{display:none}</style>Yes.<b class=X> hidden</b>")).toBe("Yes.");
    expect(shownText("<style>#Pad{display:none}</style>Yes.<b id=pad> hidden</b>")).toBe("Yes.");
  });

  it("an inline style is read as CSS reads it: references, comments and escapes decoded before the hiding test", () => {
    for (const style of ["display&#58;none", "disp\\lay: none", "display:/* */none", "visibility: hid\\64 en", "opacity&colon; 0"]) {
      expect(shownText(`Yes.<span style="${style}"> padding</span>`), style).toBe("Yes.");
    }
    expect(shownText('Yes.<span style="color: red /* display:none */"> shown</span>')).toBe("Yes. shown");
  });

  it("a start tag that closes itself with no space (<br/>, <hr/>) is a tag, not text", () => {
    expect(shownText("stu<br/>pid")).toBe("stu pid");
    expect(shownText("a<hr/>b<img/>c<span/>d")).toBe("a bcd");
    expect(shownText("Yes.<span hidden/> padding")).toBe("Yes.");
  });

  it("a part of a response is read with the whole response's <style> rules", () => {
    const whole = "<style>.x{display:none}</style><answer><b class=x>42</b></answer>";
    expect(shownText("<b class=x>42</b>", pageStyles(whole))).toBe("");
    expect(shownText("<b class=x>42</b>")).toBe("42");
  });

  it("a sheet is read in linear time, whatever it holds", () => {
    const many = (unit: string, n = 100_000) => unit.repeat(n);
    for (const sheet of [many(".a{"), many("&{"), many("'\n"), many("[a"), many("("), many("\\"), many("/*"), many(" "), many(":is("), many("@media{"), many(".x.y"), many("[a=\"")]) {
      expect(shownText(`<style>${sheet}{display:none}</style>Yes.<b class=x>!</b>`).length, JSON.stringify(sheet.slice(0, 8))).toBeGreaterThanOrEqual(0);
    }
    // Many hiding rules sharing a class, and many elements with it: each element tests a bounded few.
    const rules = Array.from({ length: 20_000 }, (_, i) => `.x.y${i}{display:none}`).join("");
    expect(shownText(`<style>${rules}</style>${many("<i class=\"x z\">a</i>", 50_000)}`)).toBe("");
    expect(shownText(`<style>${many("<style>")}`)).toBe("");
    expect(shownText(`${many("<template><style>.x{display:none}</style></template>")}<b class=x>a</b>`)).toBe("a");
    // No clock: a reading quadratic in any of these would outlast the test's 60 s limit.
  });

  it("an unclosed comment, tag, link or override is left as written, in linear time", () => {
    // Hidden elements left open hide the rest, however many are nested.
    for (const unit of ["<span hidden>", "<i hidden><i>", "<b style=\"display:none\">"]) expect(shownText(`${unit.repeat(100_000)}z`), unit).toBe("");
    for (const unit of ["<!--", "<a x", "[a](b ", "!\\[", "&#1", "\u202Ea", "<b", "<a x=\">", "<a style=\";;;;"]) {
      const text = `${unit.repeat(100_000)}z`;
      expect(shownText(text).length, JSON.stringify(unit)).toBeGreaterThan(0);
    }
    expect(shownText("<!-- a".repeat(3))).toBe("<!-- a".repeat(3));
    // No clock: a reading quadratic in any of these runs would outlast the test's 60 s limit.
  });
});
