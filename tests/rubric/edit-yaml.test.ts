import { describe, expect, it } from "vitest";
import { editCriteriaYaml } from "../../src/rubric/edit-yaml.js";
import { isRubricateError } from "../../src/errors.js";

const RUBRIC = `# a comment kept
id: r
criteria:
  - id: a # first
    question: Is it A?
  - id: b
    question: Is it B?
`;

describe("editCriteriaYaml", () => {
  it("edits only the named criteria and keeps comments, order and other fields", () => {
    const out = editCriteriaYaml(RUBRIC, ["b"], (item) => item.set("threshold", 0.5));
    expect(out).toBe(RUBRIC.replace("    question: Is it B?\n", "    question: Is it B?\n    threshold: 0.5\n"));
  });
  it("a criterion the file does not define is BAD_INPUT naming it, with the caller's hint", () => {
    try {
      editCriteriaYaml(RUBRIC, ["a", "zz"], () => undefined, "r.yaml", "; edit it there");
      expect.unreachable();
    } catch (e) {
      expect(isRubricateError(e, "BAD_INPUT")).toBe(true);
      expect((e as Error).message).toMatch(/r\.yaml does not itself define criteria zz .*; edit it there$/);
    }
  });
  it("a file without a criteria list, or not YAML, is refused", () => {
    expect(() => editCriteriaYaml("id: r\n", ["a"], () => undefined)).toThrow(/has no criteria list/);
    expect(() => editCriteriaYaml("id: [r\n", ["a"], () => undefined)).toThrow(/rubric:/);
  });
});
