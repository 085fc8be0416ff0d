import { describe, expect, it } from "vitest";
import { z } from "zod";
import { issueLines } from "../../src/config/issues.js";

const Task = z.object({ id: z.string(), inputs: z.object({ question: z.string() }) }).strict();
const errorOf = (value: unknown) => Task.safeParse(value).error!;

describe("issueLines", () => {
  it("writes each issue as its dotted path and message", () => {
    expect(issueLines(errorOf({ id: 3, inputs: { question: 4 } }))).toEqual([
      "id: Invalid input: expected string, received number",
      "inputs.question: Invalid input: expected string, received number",
    ]);
  });

  it("names a path-less issue by the root given, and leaves its message alone without one", () => {
    const notAnObject = errorOf("a string");
    expect(issueLines(notAnObject, { root: "task" })).toEqual(["task: Invalid input: expected object, received string"]);
    expect(issueLines(notAnObject)).toEqual(["Invalid input: expected object, received string"]);
  });

  it("writes the prefix before every path, and before none when the path is empty", () => {
    expect(issueLines(errorOf({ id: "a", inputs: {} }), { prefix: ["data", "spec"], root: "unused" })).toEqual(["data.spec.inputs.question: Invalid input: expected string, received undefined"]);
    expect(issueLines(errorOf(7), { prefix: ["data"] })).toEqual(["data: Invalid input: expected object, received number"]);
  });

  it("keeps at most `max` issues, in zod's order", () => {
    const many = z.array(z.string()).safeParse([1, 2, 3, 4]).error!;
    expect(issueLines(many, { max: 2 })).toEqual(["0: Invalid input: expected string, received number", "1: Invalid input: expected string, received number"]);
  });
});
