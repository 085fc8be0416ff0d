import { describe, expect, it } from "vitest";
import { withMarkedSection, withoutEnclosed } from "../../src/text/markers.js";

describe("withMarkedSection", () => {
  it("replaces only what stands between the markers, keeping them and the rest", () => {
    expect(withMarkedSection("a\n<!-- s -->\nold\nlines\n<!-- e -->\nb", "<!-- s -->", "<!-- e -->", "new", "t")).toBe("a\n<!-- s -->\nnew\n<!-- e -->\nb");
  });
  it("missing or reversed markers are an error naming them", () => {
    expect(() => withMarkedSection("no markers", "<!-- s -->", "<!-- e -->", "x", "the table")).toThrow("the table markers are missing (<!-- s --> … <!-- e -->)");
    expect(() => withMarkedSection("<!-- e -->\n<!-- s -->", "<!-- s -->", "<!-- e -->", "x", "the table")).toThrow(/markers are missing/);
  });
});

describe("withoutEnclosed", () => {
  it("replaces each part from an opener to the next closer, and leaves an unclosed opener and the rest as written", () => {
    expect(withoutEnclosed("a /* b */ c /* d", "/*", "*/", " ")).toBe("a   c /* d");
    expect(withoutEnclosed("x<!-- a -->y<!-- b -- >z", "<!--", "-->")).toBe("xy<!-- b -- >z");
    expect(withoutEnclosed("/*/ a */b", "/*", "*/")).toBe("b"); // the closer is looked for after the opener, not inside it
    expect(withoutEnclosed("no markers", "/*", "*/")).toBe("no markers");
  });

  it("reads 200,000 unclosed openers in one pass", () => {
    // No clock: a lazy regex read to the end from every opener, which would outlast the test's 60 s limit here.
    expect(withoutEnclosed("<!-- ".repeat(200_000), "<!--", "-->")).toBe("<!-- ".repeat(200_000));
  });
});
