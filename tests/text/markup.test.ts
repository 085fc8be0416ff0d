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
  ])("%j shows %j", (text, shown) => {
    expect(shownText(text)).toBe(shown);
  });

  it("an unclosed comment, tag, link or override is left as written, in linear time", () => {
    for (const unit of ["<!--", "<a x", "[a](b ", "!\\[", "&#1", "\u202Ea", "<b"]) {
      const text = `${unit.repeat(100_000)}z`;
      expect(shownText(text).length, JSON.stringify(unit)).toBeGreaterThan(0);
    }
    expect(shownText("<!-- a".repeat(3))).toBe("<!-- a".repeat(3));
    // No clock: a reading quadratic in any of these runs would outlast the test's 60 s limit.
  });
});
