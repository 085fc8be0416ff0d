import { describe, expect, it } from "vitest";
import { withMarkedSection } from "../../src/text/markers.js";

describe("withMarkedSection", () => {
  it("replaces only what stands between the markers, keeping them and the rest", () => {
    expect(withMarkedSection("a\n<!-- s -->\nold\nlines\n<!-- e -->\nb", "<!-- s -->", "<!-- e -->", "new", "t")).toBe("a\n<!-- s -->\nnew\n<!-- e -->\nb");
  });
  it("missing or reversed markers are an error naming them", () => {
    expect(() => withMarkedSection("no markers", "<!-- s -->", "<!-- e -->", "x", "the table")).toThrow("the table markers are missing (<!-- s --> … <!-- e -->)");
    expect(() => withMarkedSection("<!-- e -->\n<!-- s -->", "<!-- s -->", "<!-- e -->", "x", "the table")).toThrow(/markers are missing/);
  });
});
