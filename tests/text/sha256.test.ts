import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/text/sha256.js";

describe("sha256Hex", () => {
  it("is the sha256 of the text's UTF-8 bytes, in hex, as createHash gives it", () => {
    for (const text of ["", "abc", "rubric\0{\"response\":\"Paris\"}", "é ü ß 日本 🎉", "\ud800 lone surrogate", "x".repeat(100_000)]) {
      expect(sha256Hex(text)).toBe(createHash("sha256").update(text).digest("hex"));
    }
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
