import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appendTasks, envTarget, readTaskLines, removedTasksFile, rewriteTasks, taskQuestion } from "../../src/corpus/tasks-file.js";
import { RubricateError } from "../../src/errors.js";
import { tempDir } from "../helpers/cli.js";

const RUBRIC = "id: r\ncriteria:\n  - id: ok\n    question: Does the response name a day?\n";

describe("envTarget", () => {
  it("finds the tasks file and rubric through a package folder, even while the tasks file is empty", () => {
    const dir = tempDir("rubricate-target-");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x-env", version: "1.0.0", rubricate: "env.yaml" }));
    writeFileSync(join(dir, "env.yaml"), "id: x\ndataset: data/tasks.jsonl\nrubric: rubric.yaml\n");
    writeFileSync(join(dir, "rubric.yaml"), RUBRIC);
    const target = envTarget(dir);
    expect(target.envFile).toBe(join(dir, "env.yaml"));
    expect(target.tasksFile).toBe(join(dir, "data", "tasks.jsonl"));
    expect(target.rubric.criteria.map((c) => c.id)).toEqual(["ok"]);
  });

  it("reads an inline rubric, and refuses inline tasks (nothing to append to) naming the file", () => {
    const dir = tempDir("rubricate-target-");
    writeFileSync(join(dir, "env.yaml"), `id: x\ndataset: tasks.jsonl\nrubric:\n  ${RUBRIC.replace(/\n/g, "\n  ")}`);
    expect(envTarget(join(dir, "env.yaml")).rubric.id).toBe("r");
    writeFileSync(join(dir, "inline.yaml"), `id: x\ndataset: [{ inputs: { prompt: hi } }]\nrubric: rubric.yaml\n`);
    expect(() => envTarget(join(dir, "inline.yaml"))).toThrow(`${join(dir, "inline.yaml")}: \`dataset:\` must name a tasks file (JSONL) for tasks to be written to it`);
    // The file is named once ("…/inline.yaml: …/inline.yaml: …" before).
    expect(() => envTarget(join(dir, "inline.yaml"))).not.toThrow(/inline\.yaml: .*inline\.yaml/);
    writeFileSync(join(dir, "norubric.yaml"), `id: x\ndataset: tasks.jsonl\n`);
    expect(() => envTarget(join(dir, "norubric.yaml"))).toThrow(new RegExp(`^${join(dir, "norubric.yaml")}: no \`rubric:\`$`));
    expect(() => envTarget(join(dir, "missing.yaml"))).toThrow(RubricateError);
    // Malformed YAML is located like any config file's (a YAMLParseError and its stack trace from env synth/filter before).
    writeFileSync(join(dir, "tabs.yaml"), "id: x\ndataset: tasks.jsonl\nrubric:\n  id: r\n\tcriteria: []\n");
    expect(() => envTarget(join(dir, "tabs.yaml"))).toThrow(expect.objectContaining({ code: "YAML_SYNTAX", message: expect.stringMatching(new RegExp(`^${join(dir, "tabs.yaml")}:5:1: Tabs are not allowed`)) }));
  });
});

describe("the tasks file", () => {
  it("numbers tasks without an id as the environment does, and names the line of a bad one", () => {
    const dir = tempDir("rubricate-tasks-");
    const path = join(dir, "tasks.jsonl");
    writeFileSync(path, '{"id": "a", "inputs": {"question": "Q1"}}\n\n{"question": "Q2"}\n');
    expect(readTaskLines(path).map((l) => [l.line, l.id, taskQuestion(l.raw)])).toEqual([
      [1, "a", "Q1"],
      [3, "2", "Q2"],
    ]);
    expect(readTaskLines(join(dir, "none.jsonl"))).toEqual([]);
    writeFileSync(path, '{"id": "a"}\n{oops\n');
    expect(() => readTaskLines(path)).toThrow(expect.objectContaining({ location: { file: path, line: 2, col: 2 } }));
  });

  it("appends after a last line missing its newline, and rewrites through a rename", () => {
    const dir = tempDir("rubricate-tasks-");
    const path = join(dir, "tasks.jsonl");
    writeFileSync(path, '{"id": "a"}');
    appendTasks(path, [{ id: "b" }]);
    expect(readFileSync(path, "utf8")).toBe('{"id": "a"}\n{"id":"b"}\n');
    rewriteTasks(path, [{ id: "c" }]);
    expect(readFileSync(path, "utf8")).toBe('{"id":"c"}\n');
    expect(removedTasksFile(path)).toBe(join(dir, "tasks.removed.jsonl"));
  });
});
