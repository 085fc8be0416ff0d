import { describe, expect, it } from "vitest";
import { refusedSampleCriterion } from "../../src/bridge/sample-criteria.js";
import { pureCheckKinds } from "../../src/checks/registry.js";

const withCheck = (check: object) => [{ response: "x", criteria: [{ id: "k", check }] }];

describe("per-sample criteria: only pure kinds (derived from the table of kinds)", () => {
  it("the pure kinds are the ones that read the sample's text and nothing else", () => {
    expect(pureCheckKinds()).toEqual(["regex", "contains", "not_contains", "equals", "json_schema", "number", "length"]);
  });

  it.each([
    ["tests", { tests: { language: "python", tests: ["open('/tmp/pwned', 'w')"] } }],
    ["custom", { custom: "sql-result-matches", args: { database: "/etc/passwd" } }],
    ["math", { math: { expected: "1" } }],
    ["similarity", { similarity: { reference: "a", min: 0.5 } }],
  ])("a %s check is refused, naming the pure kinds", (key, check) => {
    const refused = refusedSampleCriterion(withCheck(check), "questions");
    expect(refused).toMatchObject({ code: "SAMPLE_CHECK_REFUSED", field: "samples.0.criteria.0.check" });
    expect(refused!.message).toContain(`check.${key}`);
    expect(refused!.message).toContain("regex, contains, not_contains, equals, json_schema, number, length");
  });

  it("a pure check with its options, field and tag is allowed", () => {
    expect(refusedSampleCriterion(withCheck({ contains: ["a"], match: "all", case_sensitive: true, field: "response" }), "checks")).toBeUndefined();
  });
});
