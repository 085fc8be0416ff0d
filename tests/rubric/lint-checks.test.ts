import { runCheck } from "../../src/checks/run.js";
import { describe, expect, it } from "vitest";
import { lintRubric } from "../../src/rubric/lint.js";
import { parseRubric } from "../../src/rubric/load.js";

const rules = (yaml: string) => lintRubric(parseRubric(`id: r\n${yaml}`, { filename: "r.yaml" })).filter((f) => ["question-for-check", "check-input-undeclared", "loose-threshold", "grades-reasoning", "regex-pitfall-as-written", "sql-one-database"].includes(f.rule)).map((f) => [f.criterion, f.rule, f.severity]);

describe("lint knows the code checks", () => {
  it("suggests a check for questions code answers exactly", () => {
    expect(rules("inputs: [response, answer]\ncriteria:\n  - id: q\n    question: Is the final answer equal to {{answer}}?\n")).toEqual([["q", "question-for-check", "info"]]);
    expect(rules("criteria:\n  - id: q\n    question: Does the agent call the search tool before answering?\n")).toEqual([["q", "question-for-check", "info"]]);
    expect(rules("criteria:\n  - id: q\n    question: Do the unit tests pass?\n")).toEqual([["q", "question-for-check", "info"]]);
    expect(rules("criteria:\n  - id: q\n    question: Does the response acknowledge the user's frustration?\n")).toEqual([]);
  });
  it("warns when a check reads an input the rubric does not declare", () => {
    expect(rules("inputs: [response]\ncriteria:\n  - id: m\n    check: { math: { expected: '{{answer}}' } }\n")).toEqual([["m", "check-input-undeclared", "warning"]]);
    expect(rules("inputs: [response]\ncriteria:\n  - id: t\n    check: { tool_calls: { called: search } }\n")).toEqual([["t", "check-input-undeclared", "warning"]]);
    expect(rules("inputs: [response, messages]\ncriteria:\n  - id: t\n    check: { tool_calls: { called: search } }\n")).toEqual([]);
    expect(rules("inputs: [response, answer]\ncriteria:\n  - id: m\n    check: { math: { expected: '{{answer}}' } }\n")).toEqual([]);
  });
  it("warns on a similarity threshold that lets unrelated text through", () => {
    expect(rules("inputs: [response, ref]\ncriteria:\n  - id: s\n    check: { similarity: { reference: '{{ref}}', min: 0.1 } }\n")).toEqual([["s", "loose-threshold", "warning"]]);
  });
  it("warns on sql-result-matches over one database, where a query that pastes the answer's rows passes", () => {
    const sql = (database: string) => `criteria:\n  - id: q\n    check: { custom: sql-result-matches, args: { database: ${database} } }\n`;
    expect(rules(sql("sql/shop.sql"))).toEqual([["q", "sql-one-database", "warning"]]);
    expect(rules(sql("[sql/shop.sql]"))).toEqual([["q", "sql-one-database", "warning"]]);
    expect(rules(sql("[sql/shop.sql, sql/shop-b.sql]"))).toEqual([]);
    expect(rules("criteria:\n  - id: q\n    check: { custom: my-check, args: { database: one.sql } }\n")).toEqual([]);
  });
  it("warns when an answer check grades the reasoning", () => {
    expect(rules("criteria:\n  - id: m\n    check: { math: { expected: 4 } }\n    reasoning: keep\n  - id: t\n    check: { tags: { required: [think] } }\n    reasoning: keep\n")).toEqual([["m", "grades-reasoning", "warning"]]);
  });
  it("warns on a regex pitfall, which look-alike letters escape, and not on a regex requirement or a contains pitfall", async () => {
    const rubric = "criteria:\n  - { id: rude, check: { regex: { pattern: stupid, flags: i } }, points: -2 }\n  - { id: shape, check: { regex: '^\\d+$' }, points: 1 }\n  - { id: rude2, check: { contains: stupid }, points: -2 }\n";
    expect(rules(rubric)).toEqual([["rude", "regex-pitfall-as-written", "warning"]]);
    // Why: the same disguise that the regex misses, contains catches.
    const disguised = { response: "that is stup\u0456d" };
    expect((await runCheck({ regex: { pattern: "stupid", flags: "i" } }, disguised)).pass).toBe(false);
    expect((await runCheck({ contains: "stupid" }, disguised)).pass).toBe(true);
  });
});

describe("regex-slow-on-long-text", () => {
  const slow = (pattern: string, flags = "") =>
    lintRubric(parseRubric(`id: r\ncriteria:\n  - id: c\n    check: { regex: { pattern: ${JSON.stringify(pattern)}, flags: "${flags}" } }\n`, { filename: "r.yaml" }))
      .filter((f) => f.rule === "regex-slow-on-long-text")
      .map((f) => [f.criterion, f.severity]);
  it("warns on an unanchored pattern whose counted repetitions make RE2's program large (seconds on a long response)", () => {
    for (const pattern of [".{0,500}\\d{3}", "(?:\\S+\\s+){0,100}answer", "(?:\\w+\\W+){0,300}conclusion"]) expect(slow(pattern), pattern).toEqual([["c", "warning"]]);
    // ^ does not anchor each line with m, nor an alternative after a |.
    expect(slow("^.{0,500}\\d{3}", "m")).toEqual([["c", "warning"]]);
    expect(slow("^x|.{0,500}\\d{3}")).toEqual([["c", "warning"]]);
  });
  it("is quiet on small programs and on patterns anchored at the start (RE2 tries one position)", () => {
    for (const pattern of ["^.{0,280}$", "^[\\s\\S]{0,280}$", "^.{0,500}\\d{3}", "Answer:.{0,40}\\d", "\\b(?:paris|lyon)\\b", "[A-Z][^.]{0,200}\\."]) expect(slow(pattern), pattern).toEqual([]);
  });
});

describe("lexical-only-reward (issue 28)", () => {
  const lexical = (yaml: string) => lintRubric(parseRubric(`id: r\ninputs: [response, reference]\n${yaml}`, { filename: "r.yaml" })).filter((f) => f.rule === "lexical-only-reward");
  const similar = "  - { id: close, check: { similarity: { reference: '{{reference}}', metric: rouge-l, min: 0.5 } }, points: 2 }\n";
  it("warns when every criterion that earns points is a similarity score", () => {
    expect(lexical(`criteria:\n${similar}  - { id: short, check: { length: { max: 50 } }, points: -1 }\n`)).toEqual([expect.objectContaining({ criterion: "*", severity: "warning", message: expect.stringMatching(/"close".*lexical/) })]);
  });
  it("is quiet when a correctness criterion also earns points or gates the reward", () => {
    expect(lexical(`criteria:\n${similar}  - { id: right, check: { equals: '{{reference}}' }, points: 1 }\n`)).toEqual([]);
    expect(lexical(`criteria:\n${similar}  - { id: gate, question: Does the response state the same facts as the reference?, points: 0, required: true }\n`)).toEqual([]);
  });
});
