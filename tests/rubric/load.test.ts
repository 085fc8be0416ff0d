import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { RubricateError, type ErrorCode } from "../../src/errors.js";
import { loadRubric, loadRubricSync, parseRubric } from "../../src/rubric/load.js";
import { MAX_YAML_BYTES } from "../../src/config/yaml-source.js";
import { tempDir } from "../helpers/cli.js";

const DIR = "tests/fixtures/malformed";
const VALID = "tests/fixtures/valid";

function loadError(path: string): RubricateError {
  try {
    loadRubricSync(path);
  } catch (e) {
    if (e instanceof RubricateError) return e;
    throw new Error(`expected a RubricateError from ${path}, got ${String(e)}`);
  }
  throw new Error(`expected ${path} to fail to load`);
}

interface Case {
  file: string;
  code: ErrorCode;
  line: number;
  col: number;
  /** The message after "file:line:col: ", exactly, or a precise regex on it. */
  message: string | RegExp;
  /** File the location names, when it is not `file` itself (errors inside an extended file). */
  at?: string;
}

const CASES: Case[] = [
  { file: "yaml-syntax.yaml", code: "YAML_SYNTAX", line: 4, col: 15, message: 'missing closing " for the quoted string that starts here' },
  { file: "tab-indent.yaml", code: "YAML_SYNTAX", line: 3, col: 1, message: /^Tabs are not allowed as indentation\n.*tab-indent\.yaml:4:1: Tabs are not allowed as indentation$/ },
  { file: "duplicate-key.yaml", code: "YAML_SYNTAX", line: 6, col: 5, message: 'duplicate key "points" (keys of a mapping must be unique)' },
  { file: "unknown-top-key.yaml", code: "SCHEMA", line: 2, col: 1, message: 'unknown key "critera" (did you mean "criteria"?)' },
  { file: "unknown-criterion-key.yaml", code: "SCHEMA", line: 5, col: 5, message: 'unknown key "pionts" (did you mean "points"?)' },
  { file: "wrong-type.yaml", code: "SCHEMA", line: 5, col: 13, message: "criteria.0.points: Invalid input: expected number, received string" },
  { file: "missing-id.yaml", code: "SCHEMA", line: 3, col: 5, message: 'missing required key "id"' },
  { file: "question-and-check.yaml", code: "SCHEMA", line: 3, col: 5, message: "a criterion has both `question` and `check`; keep one (a question for the judge, or a check answered by code)" },
  { file: "neither.yaml", code: "SCHEMA", line: 3, col: 5, message: "a criterion needs a `question` (for the judge) or a `check` (answered by code)" },
  {
    file: "unknown-check.yaml",
    code: "SCHEMA",
    line: 4,
    col: 14,
    message: 'unknown check kind "regx" (did you mean "regex"?); expected one of: regex, contains, not_contains, equals, json_schema, number, length, custom, math, tags, final_answer, tool_calls, similarity, tests',
  },
  { file: "invalid-regex.yaml", code: "SCHEMA", line: 4, col: 21, message: "invalid regular expression /(unclosed/: Unterminated group" },
  { file: "bad-flags.yaml", code: "SCHEMA", line: 5, col: 38, message: "criteria.0.check.regex.flags: Invalid string: must match pattern /^[gimsuy]*$/" },
  {
    file: "invalid-json-schema.yaml",
    code: "SCHEMA",
    line: 5,
    col: 28,
    message: 'invalid JSON Schema: "type" must be equal to one of the allowed values (string, number, integer, boolean, object, array, null, or a list of them)',
  },
  { file: "bad-scoring-method.yaml", code: "SCHEMA", line: 2, col: 20, message: 'scoring.method: Invalid option: expected one of "points"|"mean"|"all"|"weighted"' },
  { file: "duplicate-criterion.yaml", code: "DUPLICATE_ID", line: 7, col: 9, message: 'duplicate criterion id "a" (first defined as criterion 1)' },
  { file: "when-missing.yaml", code: "WHEN_MISSING", line: 7, col: 11, message: "`when: c` names no criterion of this rubric" },
  { file: "when-cycle.yaml", code: "WHEN_CYCLE", line: 5, col: 11, message: "`when` cycle: a -> b -> a" },
  { file: "when-self.yaml", code: "WHEN_CYCLE", line: 7, col: 11, message: 'criterion "b" has `when` pointing to itself' },
  { file: "no-positive-points.yaml", code: "NO_POSITIVE_POINTS", line: 3, col: 3, message: "no criterion has positive points, so the `points` reward is undefined" },
  { file: "template-var.yaml", code: "SCHEMA", line: 5, col: 15, message: 'criterion "a" uses {{source}}, which is not in `inputs` (question, response)' },
  { file: "empty-criteria.yaml", code: "SCHEMA", line: 2, col: 1, message: "the rubric has no criteria" },
  {
    file: "extends-missing.yaml",
    code: "EXTENDS_NOT_FOUND",
    line: 2,
    col: 10,
    message: `extends "./does-not-exist.yaml": no such file (resolved to ${resolve(DIR, "does-not-exist.yaml")})`,
  },
  {
    file: "extends-cycle-a.yaml",
    code: "EXTENDS_CYCLE",
    at: "extends-cycle-b.yaml",
    line: 2,
    col: 10,
    message: `extends cycle: ${DIR}/extends-cycle-a.yaml -> ${DIR}/extends-cycle-b.yaml -> ${DIR}/extends-cycle-a.yaml`,
  },
  { file: "alias-bomb.yaml", code: "YAML_ALIAS_LIMIT", line: 3, col: 8, message: "too many alias expansions (limit 100); the file looks like an alias bomb" },
  { file: "not-a-mapping.yaml", code: "SCHEMA", line: 1, col: 1, message: "a rubric file is a YAML mapping with at least `id` and `criteria`" },
];

describe("malformed rubric files: code, file:line:col and message", () => {
  it("has at least 20 cases, each with its own fixture", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
    expect(new Set(CASES.map((c) => c.file)).size).toBe(CASES.length);
  });

  it.each(CASES)("$file → $code at $line:$col", (c) => {
    const path = `${DIR}/${c.file}`;
    const error = loadError(path);
    const file = c.at ? `${DIR}/${c.at}` : path;
    expect(error.code).toBe(c.code);
    expect(error.location).toEqual({ file, line: c.line, col: c.col });
    const prefix = `${file}:${c.line}:${c.col}: `;
    expect(error.message.startsWith(prefix)).toBe(true);
    const message = error.message.slice(prefix.length);
    if (typeof c.message === "string") expect(message).toBe(c.message);
    else expect(message).toMatch(c.message);
  });

  it.each([
    ["id: x\ncriteria:\n  - id: a\n    check: { custom: foo, arg: 1 }\n", "4:27", 'unknown key "arg" (did you mean "args"?)'],
    ["id: x\ncriteria:\n  - id: a\n    check: { number: { expected: 3, tolerence: 1 } }\n", "4:37", 'unknown key "tolerence" (did you mean "tolerance"?)'],
    ["id: x\ncriteria:\n  - id: a\n    check: { regex: { pattern: a, flag: i } }\n", "4:35", 'unknown key "flag" (did you mean "flags"?)'],
    ["id: x\ncriteria:\n  - id: a\n    check: { length: { max: 3, units: words } }\n", "4:32", 'unknown key "units" (did you mean "unit"?)'],
    ["id: x\nscoring: { methd: mean }\ncriteria:\n  - id: a\n    question: Q?\n", "2:12", 'unknown key "methd" (did you mean "method"?)'],
    ["id: x\ncriteria:\n  - id: a\n    question: Q?\n    examples:\n      - { response: r, answer: true, reasn: x }\n", "6:38", 'unknown key "reasn" (did you mean "reason"?)'],
    ["id: x\ncriteria:\n  - id: a\n    check: { number: { expected: 3, pick: middle } }\n", "4:43", 'criteria.0.check.number.pick: Invalid option: expected one of "last"|"first"|"boxed"'],
    ["id: x\ncriteria:\n  - id: a\n    check: { length: { min: 5, max: 2 } }\n", "4:22", "length min is greater than max, so no response can pass"],
    ["id: x\ncriteria:\n  - id: a\n    check: { length: { unit: words } }\n", "4:22", "length needs min or max"],
    ["id: x\ncriteria:\n  - id: a\n    check: { regex: a, contains: b }\n", "4:24", "a check has exactly one kind; found regex and contains"],
    ["id: x\ncriteria:\n  - id: a\n    question: Q?\n    required: yes\n", "5:15", "criteria.0.required: Invalid input: expected boolean, received string (write true or false)"],
    ["id: x\ncriteria:\n  - id: a b\n    question: Q?\n", "3:9", "criteria.0.id: ids use letters, digits, '-', '_' and '.'"],
    ["id: x\ncriteria:\n  - id: a\n    check:\n      json_schema:\n        properties:\n          a: { type: [strin] }\n", "7:22", 'invalid JSON Schema: "properties.a.type" must be equal to one of the allowed values (string, number, integer, boolean, object, array, null, or a list of them)'],
    ["id: x\ncriteria:\n  - id: a\n    check:\n      json_schema: { required: name }\n", "5:32", 'invalid JSON Schema: "required" must be array'],
    ["---\nid: a\n---\nid: b\n", "3:1", "a rubric file holds one YAML document; a second one (after `---`) starts here"],
  ])("inline: %j → %s %s", (text, where, message) => {
    let thrown: unknown;
    try {
      parseRubric(text, { filename: "f.yaml" });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(RubricateError);
    expect((thrown as RubricateError).code).toBe(text.startsWith("---") ? "YAML_SYNTAX" : "SCHEMA");
    expect((thrown as RubricateError).message).toBe(`f.yaml:${where}: ${message}`);
  });

  it("parseRubric gives the same located errors for text with a filename", () => {
    const text = "id: x\ncriteria:\n  - id: a\n    question: Q?\n    pionts: 1\n";
    expect(() => parseRubric(text, { filename: "inline.yaml" })).toThrow('inline.yaml:5:5: unknown key "pionts" (did you mean "points"?)');
  });

  it("names <input> when there is no filename", () => {
    expect(() => parseRubric("id: x\ncriteria: 3\n")).toThrow(/^<input>:2:11: criteria: Invalid input: expected array, received number$/);
  });

  it("lists every schema issue, each with its own location", () => {
    const text = "id: x\ncriteria:\n  - id: a\n    question: Q?\n    pionts: 1\n  - id: b\n    question: R?\n    points: many\n";
    const error = (() => {
      try {
        parseRubric(text, { filename: "many.yaml" });
      } catch (e) {
        return e as RubricateError;
      }
      throw new Error("expected an error");
    })();
    expect(error.issues?.map((i) => [i.location?.line, i.location?.col, i.message])).toEqual([
      [5, 5, 'unknown key "pionts" (did you mean "points"?)'],
      [8, 13, "criteria.1.points: Invalid input: expected number, received string"],
    ]);
    expect(error.message.split("\n")[1]).toBe("many.yaml:8:13: criteria.1.points: Invalid input: expected number, received string");
  });

  it("the second file of an extends cycle reports it too (cycle detected from either end)", () => {
    const error = loadError(`${DIR}/extends-cycle-b.yaml`);
    expect(error.code).toBe("EXTENDS_CYCLE");
    expect(error.location?.file).toBe(`${DIR}/extends-cycle-a.yaml`);
  });

  it("a file extending itself is a cycle", () => {
    const dir = tempDir("rubricate-load-");
    writeFileSync(join(dir, "self.yaml"), "id: self\nextends: self.yaml\ncriteria:\n  - id: a\n    question: Q?\n");
    const error = loadError(join(dir, "self.yaml"));
    expect(error.code).toBe("EXTENDS_CYCLE");
    expect(error.location).toMatchObject({ line: 2, col: 10 });
  });

  it("an oversized file is YAML_TOO_LARGE (text and file)", () => {
    const big = `id: big\ndescription: "${"x".repeat(MAX_YAML_BYTES)}"\ncriteria:\n  - id: a\n    question: Q?\n`;
    expect(() => parseRubric(big, { filename: "big.yaml" })).toThrow(expect.objectContaining({ code: "YAML_TOO_LARGE", location: { file: "big.yaml" } }));
    const dir = tempDir("rubricate-load-");
    const path = join(dir, "big.yaml");
    writeFileSync(path, big);
    const error = loadError(path);
    expect(error.code).toBe("YAML_TOO_LARGE");
    expect(error.message).toBe(`${path}: file is ${Buffer.byteLength(big)} bytes; the limit is ${MAX_YAML_BYTES}`);
    // A smaller limit may be set per call.
    expect(() => parseRubric("id: a\ncriteria:\n  - id: a\n    question: Q?\n", { maxBytes: 10 })).toThrow(expect.objectContaining({ code: "YAML_TOO_LARGE" }));
  });

  it("a missing file is FILE_NOT_FOUND", async () => {
    await expect(loadRubric(`${DIR}/no-such-file.yaml`)).rejects.toMatchObject({ code: "FILE_NOT_FOUND", message: expect.stringContaining("no-such-file.yaml: ENOENT") });
  });
});

describe("valid rubrics: defaults and extends", () => {
  it("applies defaults", () => {
    const rubric = parseRubric("id: r\ncriteria:\n  - id: a\n    question: Q?\n");
    expect(rubric).toMatchObject({ id: "r", version: 1, inputs: ["response"], scoring: { method: "points" } });
    expect(rubric.criteria[0]).toEqual({ id: "a", question: "Q?", points: 1, required: false });
  });

  it("extends resolves relative to the file, the child overrides an inherited criterion in place, inputs merge", async () => {
    const rubric = await loadRubric(`${VALID}/child.yaml`);
    expect(rubric.id).toBe("child");
    expect(rubric.source).toBe(`${VALID}/child.yaml`);
    expect(rubric.criteria.map((c) => c.id)).toEqual(["answers-question", "polite", "matches-reference"]);
    const polite = rubric.criteria.find((c) => c.id === "polite")!;
    expect(polite.points).toBe(3);
    expect(polite.check).toEqual({ not_contains: ["idiot"] });
    expect(rubric.inputs).toEqual(["response", "reference", "question"]);
    // Not set in the child: inherited.
    expect(rubric.scoring).toEqual({ method: "mean", pass_threshold: 0.5 });
    expect(rubric.judge).toBe("base-judge");
    expect(rubric.context).toBe("Shared background.");
    expect("extends" in rubric).toBe(false);
  });

  it("extends with a list (and ./ and ../ paths) keeps the order of the list", () => {
    const sibling = loadRubricSync(`${VALID}/sibling.yaml`);
    expect(sibling.criteria.map((c) => c.id)).toEqual(["answers-question", "polite", "other-check", "extra"]);
    expect(sibling.inputs).toEqual(["question", "response"]);
    const up = loadRubricSync(`${VALID}/nested/extends-up.yaml`);
    expect(up.criteria.map((c) => c.id)).toEqual(["other-check", "short"]);
    expect(up.scoring.method).toBe("all");
  });

  it("parseRubric resolves extends against baseDir", () => {
    const rubric = parseRubric("id: p\nextends: other.yaml\ncriteria:\n  - id: mine\n    check: { contains: x }\n", { baseDir: resolve(VALID) });
    expect(rubric.criteria.map((c) => c.id)).toEqual(["other-check", "mine"]);
  });

  it("a child's own scoring wins over the inherited one", () => {
    const rubric = parseRubric("id: p\nextends: other.yaml\nscoring: { method: mean }\ncriteria:\n  - id: mine\n    check: { contains: x }\n", { baseDir: resolve(VALID) });
    expect(rubric.scoring.method).toBe("mean");
  });

  it("a when pointing to an inherited criterion is valid", () => {
    const rubric = parseRubric("id: p\nextends: other.yaml\ncriteria:\n  - id: mine\n    check: { contains: x }\n    when: other-check\n", { baseDir: resolve(VALID) });
    expect(rubric.criteria[1].when).toBe("other-check");
  });

  it("loads every rubric in rubrics/", () => {
    for (const name of ["math-answer", "structured-output"]) {
      const rubric = loadRubricSync(`rubrics/${name}.yaml`);
      expect(rubric.id).toBe(name);
      expect(rubric.criteria.length).toBeGreaterThan(0);
    }
  });
});

describe("hardening (issue 16)", () => {
  it("100k-deep nesting is a located YAML_SYNTAX error, not a stack overflow", async () => {
    const { parseRubric } = await import("../../src/rubric/load.js");
    const { isRubricateError } = await import("../../src/errors.js");
    const text = `id: deep\ncriteria: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`;
    let error: unknown;
    try {
      parseRubric(text, { filename: "deep.yaml" });
    } catch (e) {
      error = e;
    }
    expect(isRubricateError(error, "YAML_SYNTAX")).toBe(true);
    expect((error as Error).message).toMatch(/deep\.yaml:2:\d+: nesting deeper than 200 levels/);
    expect((error as Error).message).not.toMatch(/call stack/);
  });

  it("a schema error does not hide an invalid regex in the same file: both are reported", async () => {
    const { parseRubric } = await import("../../src/rubric/load.js");
    const text = ["id: both", "version: 1", "criteria:", "  - id: a", '    check: { regex: "(" }', "  - id: b", '    points: "many"', "    question: Is it?"].join("\n");
    let error: unknown;
    try {
      parseRubric(text, { filename: "both.yaml" });
    } catch (e) {
      error = e;
    }
    const message = (error as Error).message;
    expect(message).toMatch(/both\.yaml:5:\d+: invalid regular expression/);
    expect(message).toMatch(/both\.yaml:7:\d+: criteria\.1\.points/);
  });
});
