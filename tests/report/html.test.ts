import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { details, escapeHtml, htmlPage, table } from "../../src/report/html.js";
import { barChart } from "../../src/report/svg.js";
import { assertBalanced } from "./xml-check.js";

describe("escapeHtml", () => {
  it("escapes the five special characters", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
    expect(escapeHtml(null)).toBe("");
    expect(escapeHtml(3)).toBe("3");
  });
  it("leaves no markup characters (property)", () => {
    fc.assert(fc.property(fc.string(), (s) => { expect(escapeHtml(s)).not.toMatch(/[<>"']/); }));
  });
});

describe("table", () => {
  const rows = [{ id: "<b>x</b>", n: 0.12345, note: null as string | null }];
  it("escapes cells, formats numbers and marks numeric columns", () => {
    const html = table(rows, [
      { label: "id", value: "id" },
      { label: "n", value: "n", numeric: true },
      { label: "note", value: (r) => r.note },
    ]);
    assertBalanced(html);
    expect(html).toContain("<td>&lt;b&gt;x&lt;/b&gt;</td>");
    expect(html).toContain('<td class="num">0.123</td>');
    expect(html).toContain("<td>—</td>");
    expect(html.match(/<tr>/g)).toHaveLength(2);
  });
  it("inserts html columns as they are and adds row attributes escaped", () => {
    const html = table(rows, [{ label: "more", value: () => details("open me", "<em>hi</em>"), html: true }], {
      rowAttrs: () => ({ "data-failed": 'a "b"' }),
    });
    assertBalanced(html);
    expect(html).toContain("<em>hi</em>");
    expect(html).toContain('data-failed="a &quot;b&quot;"');
  });
});

describe("htmlPage", () => {
  const page = htmlPage({
    title: "Report <1>",
    subtitle: "run & done",
    sections: [
      { title: "Chart", html: barChart([{ label: "a", value: 1 }], { title: "A" }) },
      { title: "Chart", html: "<p>again</p>" },
    ],
    script: "console.log('</script>')",
  });
  it("is one self-contained document: no external URLs, a strict CSP", () => {
    expect(page.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(page).toContain("Content-Security-Policy");
    expect(page).toContain("default-src 'none'");
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(page).not.toMatch(/<link|@import|url\(/);
    assertBalanced(page);
  });
  it("escapes the title, gives sections unique ids and a contents list", () => {
    expect(page).toContain("<title>Report &lt;1&gt;</title>");
    expect(page).toContain("run &amp; done");
    expect(page).toContain('id="chart"');
    expect(page).toContain('id="chart-2"');
    expect(page).toContain('href="#chart-2"');
  });
  it("cannot be broken out of by a script containing </script>", () => {
    expect(page.match(/<\/script>/g)).toHaveLength(1);
  });
});
