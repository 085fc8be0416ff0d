/**
 * A malformed JSON Lines input is named file:line:col: the column where the line stops being JSON,
 * counted in characters as an editor shows them.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BadLines, badLineError, jsonLineValue, jsonlEntries, type BadLine } from "../../src/config/jsonl.js";
import { tempDir } from "../helpers/cli.js";

const dir = tempDir("rubricate-jsonl-");

async function badLines(text: string): Promise<BadLine[]> {
  const path = join(dir, "in.jsonl");
  writeFileSync(path, text);
  const bad: BadLine[] = [];
  for await (const entry of jsonlEntries(path)) if ("bad" in entry) bad.push(entry.bad);
  return bad;
}

describe("jsonlEntries", () => {
  it("a line that is not JSON carries the column where it stops being JSON", async () => {
    const [trailingComma, unexpected, cut, notObject] = await badLines(['{"a": 1,}', '{"a": 1, "b": zzz}', '{"a": "é", "b": ', '  [1]', '{"ok": 1}'].join("\n"));
    const path = join(dir, "in.jsonl");
    expect(trailingComma).toEqual({ file: path, line: 1, col: 9, message: "invalid JSON: Expected double-quoted property name" });
    expect(unexpected).toMatchObject({ line: 2, col: 15 });
    expect(cut).toMatchObject({ line: 3, col: 17, message: "invalid JSON: Unexpected end of JSON input" });
    expect(notObject).toEqual({ file: path, line: 4, col: 3, message: "each line must be a JSON object" });
  });

  it("counts columns after a byte order mark as an editor does (the mark is not shown)", async () => {
    const [withMark] = await badLines('\uFEFF{"a": 1,}\n');
    expect(withMark).toMatchObject({ line: 1, col: 9 });
  });

  it("a line that is not UTF-8 is a bad line at its first invalid byte's column; the other lines are read", async () => {
    const path = join(dir, "latin1.jsonl");
    writeFileSync(path, Buffer.concat([Buffer.from('{"id": 1, "response": "ok"}\n{"id": 2, "response": "caf'), Buffer.from([0xe9]), Buffer.from('"}\n{"id": 3, "response": "\uFFFD is text"}\n')]));
    const entries = [];
    for await (const entry of jsonlEntries(path)) entries.push(entry);
    expect(entries.map((e) => ("bad" in e ? e.bad : e.value.id))).toEqual([
      1,
      { file: path, line: 2, col: 27, message: "byte 0xE9 is not UTF-8 text (was the file saved as Latin-1 or Windows-1252? save it as UTF-8)" },
      3,
    ]);
  });

  // JSON.parse read both ids as 1234567890123456800: two samples, one id.
  it("an id too large to read exactly is a bad line at the id; a quoted one and a safe one are read", async () => {
    const [rounded, roundedToo] = await badLines(['{"id": 1234567890123456789, "response": "a"}', '{"response": "b", "id": 1234567890123456790}', '{"id": "1234567890123456789"}', '{"id": 9007199254740991}', '{"id": 1.5e300}'].join("\n"));
    expect(rounded).toMatchObject({ line: 1, col: 2, message: expect.stringMatching(/^id 1234567890123456800 is a whole number past 2\^53: .*write it as a string$/) });
    expect(roundedToo).toMatchObject({ line: 2, col: 19 });
    expect(await badLines('{"id": 1.5}\n{"id": -9007199254740991}\n')).toEqual([]);
  });

  it("prints file:line:col wherever a bad line is reported", async () => {
    const [bad] = await badLines('{"a": 1,}\n');
    const path = join(dir, "in.jsonl");
    const report = new BadLines();
    report.add(bad);
    expect(report.describe()).toBe(`${path}:1:9: invalid JSON: Expected double-quoted property name\n`);
    expect(badLineError(bad).message).toBe(`${path}:1:9: invalid JSON: Expected double-quoted property name`);
    // An over-long line has no column: file:line.
    report.add({ file: path, line: 2, message: "line is 99 bytes, over the 10-byte limit" });
    expect(report.describe()).toContain(`${path}:2: line is 99 bytes`);
  });
});

describe("jsonLineValue", () => {
  it("is the line's value, a byte order mark on line 1 skipped", () => {
    expect(jsonLineValue('\uFEFF{"a": 1}', "f.jsonl", 1)).toEqual({ a: 1 });
  });

  it("throws BAD_INPUT naming file:line:col", () => {
    expect(() => jsonLineValue('{"a": [1 2]}', "f.jsonl", 3)).toThrow(expect.objectContaining({ code: "BAD_INPUT", location: { file: "f.jsonl", line: 3, col: 10 }, message: "f.jsonl:3:10: invalid JSON: Expected ',' or ']' after array element" }));
    expect(() => jsonLineValue('\uFEFF{"a": [1 2]}', "f.jsonl", 1)).toThrow(expect.objectContaining({ location: { file: "f.jsonl", line: 1, col: 10 } }));
  });
});
