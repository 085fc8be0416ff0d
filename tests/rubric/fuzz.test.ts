import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { RubricateError } from "../../src/errors.js";
import { parseRubric } from "../../src/rubric/load.js";
import { tempDir } from "../helpers/cli.js";

// Relative `extends` in random documents resolve against an empty folder, so they never reach real files.
const baseDir = tempDir("rubricate-fuzz-");

/** parseRubric returns a rubric or throws a RubricateError with a code; anything else fails the property. */
function parsesOrFailsCleanly(text: string): void {
  try {
    const rubric = parseRubric(text, { filename: "fuzz.yaml", baseDir });
    expect(typeof rubric.id).toBe("string");
    expect(Array.isArray(rubric.criteria)).toBe(true);
    expect(rubric.criteria.length).toBeGreaterThan(0);
  } catch (e) {
    if (!(e instanceof RubricateError)) throw new Error(`parseRubric threw ${(e as Error)?.constructor?.name}: ${String((e as Error)?.stack ?? e)}\n--- input ---\n${text}`);
    expect(typeof e.code).toBe("string");
    expect(e.code.length).toBeGreaterThan(0);
    expect(e.message.length).toBeGreaterThan(0);
  }
}

const VALID = [
  ...readdirSync("rubrics")
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => readFileSync(join("rubrics", f), "utf8")),
  readFileSync("tests/fixtures/valid/nested/base.yaml", "utf8"),
];

const KEYS = ["id", "version", "description", "inputs", "judge", "scoring", "criteria", "extends", "context", "response_field", "method", "pass_threshold", "question", "check", "points", "required", "when", "tags", "examples", "weight", "regex", "contains", "not_contains", "equals", "json_schema", "number", "length", "custom", "field", "expected", "tolerance", "pick", "min", "max", "unit", "pattern", "flags", "type", "$ref", "response", "answer"];

/** JSON-ish values biased toward the rubric vocabulary, so documents get deep into validation. */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 12 }), fc.integer({ min: -20, max: 20 }), fc.double({ noNaN: false }), fc.boolean(), fc.constant(null), fc.constant("{{response}}"), fc.constant("(")),
  node: fc.oneof({ depthSize: "small", withCrossShrink: true }, tie("leaf"), fc.array(tie("node"), { maxLength: 4 }), fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })), tie("node"), { maxKeys: 5 })),
})).node;

const rubricLike = fc.record(
  {
    id: fc.oneof(fc.constantFrom("r", "rubric-1", ""), fc.string({ maxLength: 8 })),
    inputs: fc.oneof(fc.constant(["response"]), fc.array(fc.constantFrom("response", "question", "answer", ""), { maxLength: 3 }), value),
    scoring: fc.oneof(fc.record({ method: fc.constantFrom("points", "mean", "all", "weighted", "median"), pass_threshold: fc.double({ min: -1, max: 2 }) }, { requiredKeys: [] }), value),
    extends: fc.oneof(fc.constantFrom("missing.yaml", "./x.yaml", ["a.yaml"], ""), value),
    criteria: fc.oneof(
      fc.array(
        fc.record(
          {
            id: fc.constantFrom("a", "b", "c", "a b", ""),
            question: fc.constantFrom("Is it {{response}}?", "Q?", "{{nope}}", ""),
            check: fc.oneof(
              fc.constantFrom<unknown>({ regex: "(" }, { regex: "^a" }, { contains: [] }, { json_schema: { type: "objekt" } }, { json_schema: { type: "object" } }, { number: { expected: "{{answer}}" } }, { length: {} }, { custom: "x" }, { regx: 1 }, { regex: "a", contains: "b" }),
              value,
            ),
            points: fc.oneof(fc.integer({ min: -5, max: 5 }), value),
            required: fc.oneof(fc.boolean(), value),
            when: fc.constantFrom("a", "b", "c", "zzz"),
            weight: fc.oneof(fc.double({ min: -1, max: 3 }), value),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 5 },
      ),
      value,
    ),
    extra: value,
  },
  { requiredKeys: [] },
);

function mutate(text: string, edits: { kind: number; at: number; len: number; insert: string }[]): string {
  let out = text;
  for (const e of edits) {
    const at = out.length === 0 ? 0 : e.at % out.length;
    switch (e.kind) {
      case 0: // delete a range
        out = out.slice(0, at) + out.slice(at + e.len);
        break;
      case 1: // insert text
        out = out.slice(0, at) + e.insert + out.slice(at);
        break;
      case 2: {
        // duplicate or drop a line
        const lines = out.split("\n");
        const i = at % Math.max(1, lines.length);
        if (e.len % 2 === 0) lines.splice(i, 0, lines[i] ?? "");
        else lines.splice(i, 1);
        out = lines.join("\n");
        break;
      }
      case 3: // re-indent a line by a few spaces or a tab
        out = out.slice(0, at) + (e.len % 3 === 0 ? "\t" : " ".repeat(e.len % 4)) + out.slice(at);
        break;
      default: {
        // swap two lines
        const lines = out.split("\n");
        const i = at % lines.length;
        const j = (at + e.len) % lines.length;
        [lines[i], lines[j]] = [lines[j], lines[i]];
        out = lines.join("\n");
      }
    }
  }
  return out;
}

const edit = fc.record({ kind: fc.integer({ min: 0, max: 4 }), at: fc.nat(), len: fc.integer({ min: 0, max: 40 }), insert: fc.oneof(fc.constantFrom(":", "- ", "&a ", "*a", "[", "{", "}", '"', "'", "\n", "  ", "!!binary ", "? ", "---\n", "...", "|\n", "<<: *a\n", "%YAML 1.2\n", "{{x}}"), fc.string({ maxLength: 10 })) });

describe("parseRubric never fails with anything but a RubricateError (fuzz)", () => {
  it("random strings", () => {
    fc.assert(fc.property(fc.string({ maxLength: 300, unit: "grapheme" }), parsesOrFailsCleanly), { numRuns: 300 });
  });

  it("random bytes decoded as UTF-8 and as Latin-1", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        parsesOrFailsCleanly(Buffer.from(bytes).toString("utf8"));
        parsesOrFailsCleanly(Buffer.from(bytes).toString("latin1"));
      }),
      { numRuns: 300 },
    );
  });

  it("random YAML-syntax soup", () => {
    const token = fc.constantFrom("id: x\n", "criteria:\n", "  - id: a\n", "    question: Q?\n", "    check: ", "{ regex: a }", "&a ", "*a", "<<: *a\n", "[", "]", "{", "}", ",", ": ", "- ", "? ", "\t", "  ", "\n", "---\n", "...\n", "!!str ", "!tag ", "|\n", ">-\n", "#c\n", '"', "'", "%TAG ! tag:x:\n");
    fc.assert(fc.property(fc.array(token, { maxLength: 40 }), (tokens) => parsesOrFailsCleanly(tokens.join(""))), { numRuns: 300 });
  });

  it("arbitrary JSON values serialised as YAML", () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => parsesOrFailsCleanly(stringify(v))), { numRuns: 200 });
  });

  it("rubric-shaped documents with wrong, missing and extra parts", () => {
    fc.assert(
      fc.property(rubricLike, (doc) => {
        parsesOrFailsCleanly(stringify(doc));
        parsesOrFailsCleanly(JSON.stringify(doc)); // JSON is YAML too
      }),
      { numRuns: 400 },
    );
  });

  it("near-valid rubrics (cross-references: when, duplicate ids, points, template variables)", () => {
    const near = fc.record({
      id: fc.constant("r"),
      inputs: fc.constantFrom(["response"], ["response", "answer"], []),
      scoring: fc.record({ method: fc.constantFrom("points", "mean", "all", "weighted") }),
      criteria: fc.array(
        fc.record(
          {
            id: fc.constantFrom("a", "b", "c"),
            question: fc.constantFrom("Q?", "Is {{response}} ok?", "Is {{answer.x}} ok?"),
            points: fc.integer({ min: -3, max: 3 }),
            when: fc.constantFrom("a", "b", "c", "d"),
            required: fc.boolean(),
          },
          { requiredKeys: ["id", "question"] },
        ),
        { maxLength: 4 },
      ),
    });
    fc.assert(fc.property(near, (doc) => parsesOrFailsCleanly(stringify(doc))), { numRuns: 400 });
  });

  it("mutated valid rubrics", () => {
    fc.assert(
      fc.property(fc.constantFrom(...VALID), fc.array(edit, { minLength: 1, maxLength: 6 }), (text, edits) => parsesOrFailsCleanly(mutate(text, edits))),
      { numRuns: 400 },
    );
  });

  it("the valid rubrics themselves parse (the harness can tell success from failure)", () => {
    for (const text of VALID) expect(() => parseRubric(text, { filename: "v.yaml", baseDir: resolve("rubrics") })).not.toThrow();
    expect(() => parseRubric("[", { filename: "x.yaml" })).toThrow(RubricateError);
  });

  it("inputs crafted to reach odd paths: prototype keys, huge numbers, deep nesting, alias reuse", () => {
    const cases = [
      "__proto__: { id: x }\nid: y\ncriteria:\n  - id: a\n    question: Q?\n",
      "id: x\ncriteria:\n  - id: constructor\n    question: Q?\n    when: toString\n",
      "id: x\ncriteria:\n  - id: a\n    question: Q?\n    points: 1e400\n",
      "id: x\ncriteria:\n  - id: a\n    question: Q?\n    points: .nan\n",
      `id: x\ncriteria: ${"[".repeat(200)}${"]".repeat(200)}\n`,
      `id: x\ndescription: ${"{a: ".repeat(100)}1${"}".repeat(100)}\ncriteria:\n  - id: a\n    question: Q?\n`,
      "id: x\ncriteria:\n  - &c { id: a, question: Q? }\n  - *c\n",
      "id: x\ncriteria:\n  - id: a\n    check: { json_schema: { $ref: '#/definitions/nope' } }\n",
      "id: x\ncriteria:\n  - id: a\n    check: { json_schema: { $ref: 'http://example.com/s.json' } }\n",
      "id: x\nextends: /\ncriteria:\n  - id: a\n    question: Q?\n",
      "id: x\nextends: /dev/zero\ncriteria:\n  - id: a\n    question: Q?\n",
      "id: x\nextends: [.]\ncriteria:\n  - id: a\n    question: Q?\n",
      "? [a, b]\n: c\nid: x\n",
      "!!binary aGVsbG8=\n",
      "id: !!int 3\n",
      "",
      "# only a comment\n",
      "---\nid: a\n---\nid: b\n",
    ];
    for (const text of cases) parsesOrFailsCleanly(text);
  });
});
