import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "./helpers.js";

describe("rubricate validate", () => {
  it("exits 0 on good files and says ok for each", async () => {
    const r = await cli(["validate", "rubrics/math-answer.yaml", "rubrics/structured-output.yaml"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("ok rubrics/math-answer.yaml (math-answer: 4 criteria)\nok rubrics/structured-output.yaml (structured-output: 4 criteria)\n");
    expect(r.stderr).toBe("");
  });

  it("exits 1 with file:line:col, message and code for a bad file; still checks the others", async () => {
    const r = await cli(["validate", "tests/fixtures/malformed/wrong-type.yaml", "rubrics/math-answer.yaml", "tests/fixtures/malformed/unknown-top-key.yaml"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      [
        "tests/fixtures/malformed/wrong-type.yaml:5:13: criteria.0.points: Invalid input: expected number, received string [SCHEMA]",
        'tests/fixtures/malformed/unknown-top-key.yaml:2:1: unknown key "critera" (did you mean "criteria"?) [SCHEMA]',
        "",
      ].join("\n"),
    );
    expect(r.stdout).toBe("ok rubrics/math-answer.yaml (math-answer: 4 criteria)\n");
  });

  it("reports YAML syntax errors and a missing file", async () => {
    const r = await cli(["validate", "-q", "tests/fixtures/malformed/yaml-syntax.yaml", "tests/fixtures/malformed/nope.yaml"]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines[0]).toBe('tests/fixtures/malformed/yaml-syntax.yaml:4:15: missing closing " for the quoted string that starts here [YAML_SYNTAX]');
    expect(lines[1]).toMatch(/^cannot read rubric file tests\/fixtures\/malformed\/nope\.yaml: ENOENT \[FILE_NOT_FOUND\]$/);
    expect(r.stdout).toBe("");
  });

  it("reports every cross-reference problem of a rubric at once, not only the first (one per run before)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rubricate-validate-"));
    const file = join(dir, "many.yaml");
    writeFileSync(file, ["id: many", "inputs: [response]", "criteria:", "  - id: a", "    question: Is {{answer}} right?", "    when: nope", "  - id: b", "    question: Is it short?", "  - id: b", "    question: Is it kind?", ""].join("\n"));
    const r = await cli(["validate", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      [
        `${file}:9:9: duplicate criterion id "b" (first defined as criterion 2)`,
        `${file}:6:11: \`when: nope\` names no criterion of this rubric`,
        `${file}:5:15: criterion "a" uses {{answer}}, which is not in \`inputs\` (response) [DUPLICATE_ID]`,
        "",
      ].join("\n"),
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it("says so when a file is the other kind: a judge file without --judge, a rubric with it (a list of unknown keys only, before)", async () => {
    const judge = await cli(["validate", "judges/openai-small.yaml"]);
    expect(judge.code).toBe(1);
    expect(judge.stderr).toContain("judges/openai-small.yaml: this looks like a judge file: check it with `rubricate validate --judge judges/openai-small.yaml`\n");
    const rubric = await cli(["validate", "--judge", "rubrics/math-answer.yaml"]);
    expect(rubric.code).toBe(1);
    expect(rubric.stderr).toContain("rubrics/math-answer.yaml: this looks like a rubric: check it without --judge\n");
  });

  it("-q prints nothing for good files", async () => {
    const r = await cli(["validate", "-q", "rubrics/math-answer.yaml"]);
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("without files is a usage error (exit 2)", async () => {
    const r = await cli(["validate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("missing required argument 'files'");
  });
});
