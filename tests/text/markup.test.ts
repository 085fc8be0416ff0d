import { describe, expect, it } from "vitest";
import { shownText } from "../../src/text/markup.js";

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
