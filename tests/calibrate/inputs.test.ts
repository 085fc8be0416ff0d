import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseLabelsCsv, parseLabelsJsonl, parseResultsJsonl, readLabels, readVerdicts } from "../../src/calibrate/inputs.js";
import { isRubricateError } from "../../src/errors.js";
import { tempDir } from "../helpers/cli.js";

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return isRubricateError(e) ? `${e.code}: ${e.message}` : String(e);
  }
  return "no error";
};

describe("labels from JSONL", () => {
  it("accepts true/false, yes/no, 1/0 in any case, ids or samples with ids, annotators", () => {
    const text = [
      { id: "s1", criterion: "c", label: true },
      { id: 2, criterion: "c", label: "No", annotator: "ann" },
      { sample: { id: "s3", response: "hi" }, criterion: "c", label: 1 },
      { id: "s4", criterion: "c", label: "0" },
      { id: "s5", criterion: "c", label: "YES" },
    ].map((l) => JSON.stringify(l)).join("\n");
    const labels = parseLabelsJsonl(`${text}\n\n`);
    expect(labels.map((l) => [l.sampleId, l.label])).toEqual([["s1", true], ["2", false], ["s3", true], ["s4", false], ["s5", true]]);
    expect(labels[1].annotator).toBe("ann");
    expect(labels[2].sample).toEqual({ id: "s3", response: "hi" });
  });
  it("bad labels are BAD_INPUT with file and line", () => {
    expect(code(() => parseLabelsJsonl('{"id":"a","criterion":"c","label":true}\n{"id":"b","criterion":"c","label":"maybe"}', "l.jsonl"))).toMatch(/^BAD_INPUT: l\.jsonl:2: .*label must be/);
    expect(code(() => parseLabelsJsonl('{"criterion":"c","label":true}'))).toMatch(/needs an `id`/);
    expect(code(() => parseLabelsJsonl('{"id":"a","criterion":"c","label":true}\n{"id": bad}', "l.jsonl"))).toBe("BAD_INPUT: l.jsonl:2:8: invalid JSON: Unexpected token 'b', \"{\"id\": bad}\" is not valid JSON");
  });
});

describe("labels from CSV", () => {
  it("reads id/criterion/label/annotator; other columns become sample inputs", () => {
    const labels = parseLabelsCsv('id,criterion,label,annotator,response\ns1,c,yes,,"a, b"\ns2,c,false,ann2,x\n');
    expect(labels).toEqual([
      { sampleId: "s1", criterion: "c", label: true, sample: { id: "s1", response: "a, b" } },
      { sampleId: "s2", criterion: "c", label: false, annotator: "ann2", sample: { id: "s2", response: "x" } },
    ]);
  });
  it("rejects a bad label with its row", () => {
    expect(code(() => parseLabelsCsv("id,criterion,label\ns1,c,perhaps\n"))).toMatch(/CSV row 2/);
  });
});

describe("verdicts from a results JSONL", () => {
  const lines = [
    { id: "s1", reward: 1, verdicts: [{ id: "c", status: "met", points: 1, probability: 0.9, reasoning: "ok" }, { id: "d", status: "skipped" }], usage: { costUsd: 0.01 } },
    { id: 2, reward: null, verdicts: [{ id: "c", status: "error", error: { code: "JUDGE_PARSE", message: "x" } }], usage: { costUsd: 0.02 } },
  ];
  it("flattens to one verdict per sample × criterion and sums the cost", () => {
    const r = parseResultsJsonl(lines.map((l) => JSON.stringify(l)).join("\n"));
    expect(r.verdicts).toEqual([
      { sampleId: "s1", criterion: "c", status: "met", probability: 0.9, reasoning: "ok" },
      { sampleId: "s1", criterion: "d", status: "skipped" },
      { sampleId: "2", criterion: "c", status: "error" },
    ]);
    expect(r.costUsd).toBeCloseTo(0.03, 12);
  });
  it("rejects an unknown status", () => {
    expect(code(() => parseResultsJsonl('{"id":"a","verdicts":[{"id":"c","status":"maybe"}]}', "r.jsonl"))).toMatch(/^BAD_INPUT: r\.jsonl:1/);
  });
  it("reads files: name=path names the judge, a missing file is FILE_NOT_FOUND", () => {
    const dir = tempDir("cal-");
    writeFileSync(join(dir, "gpt.jsonl"), JSON.stringify(lines[0]));
    writeFileSync(join(dir, "labels.csv"), "id,criterion,label\ns1,c,yes\n");
    expect(readVerdicts(join(dir, "gpt.jsonl")).judge).toBe("gpt");
    expect(readVerdicts(`mine=${join(dir, "gpt.jsonl")}`).judge).toBe("mine");
    expect(readLabels(join(dir, "labels.csv"))).toHaveLength(1);
    expect(code(() => readLabels(join(dir, "nope.jsonl")))).toMatch(/^FILE_NOT_FOUND/);
  });
  // Each calibrated nothing and reported cells of "—" with exit 0; the Latin-1 one read "caf\uFFFD" as a sample id.
  it("refuses a labels file that holds no labels (empty, header only) and one that is not UTF-8, naming the file", () => {
    const dir = tempDir("cal-");
    writeFileSync(join(dir, "empty.jsonl"), "");
    writeFileSync(join(dir, "header.csv"), "id,criterion,label\n");
    writeFileSync(join(dir, "latin1.csv"), Buffer.concat([Buffer.from("id,criterion,label\ncaf"), Buffer.from([0xe9]), Buffer.from(",c,yes\n")]));
    expect(code(() => readLabels(join(dir, "empty.jsonl")))).toBe(`BAD_INPUT: ${join(dir, "empty.jsonl")}: ${join(dir, "empty.jsonl")} holds no labels`);
    expect(code(() => readLabels(join(dir, "header.csv")))).toMatch(/holds no labels$/);
    expect(code(() => readLabels(join(dir, "latin1.csv")))).toMatch(new RegExp(`^BAD_INPUT: ${join(dir, "latin1.csv")}:2:4: byte 0xE9 is not UTF-8 text`));
  });
});
