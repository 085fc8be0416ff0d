import { describe, expect, it } from "vitest";
import { parseJsonOrUndefined } from "../../src/text/json.js";

describe("parseJsonOrUndefined", () => {
  it("parses JSON of any kind, falsy values included", () => {
    expect(parseJsonOrUndefined('{"error":{"message":"bad"}}')).toEqual({ error: { message: "bad" } });
    expect(parseJsonOrUndefined("null")).toBeNull();
    expect(parseJsonOrUndefined("0")).toBe(0);
    expect(parseJsonOrUndefined('""')).toBe("");
  });

  it("is undefined for text that is not JSON, the empty text included", () => {
    for (const text of ["<html>proxy</html>", "", "{not json", "upstream connect error"]) expect(parseJsonOrUndefined(text)).toBeUndefined();
  });
});
