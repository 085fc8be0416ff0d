/**
 * The result schema `hub serve` and `hub push` share: model names and criterion ids are any text
 * but the names JavaScript gives every object, which the hub would otherwise file as keys.
 */
import { describe, expect, it } from "vitest";
import { HUB_RESULT_SCHEMA, HubResultSchema, RESERVED_NAMES } from "../../src/hub/results.js";

const result = (model: string, criterion: string) => ({
  schema: HUB_RESULT_SCHEMA,
  env: { name: "demo-env", version: "1.0.0", integrity: "sha512-demo" },
  model,
  rubricateVersion: "0.1.0",
  finishedAt: "2026-12-01T10:00:00Z",
  stats: { rollouts: 2, tasks: 2, scored: 2, errors: 0, reward: { n: 2, mean: 0.5, low: 0, high: 1 }, passAtK: { "1": 0.5 }, criteria: [{ id: criterion, answered: 2, ok: 1, rate: 0.5 }], costUsd: 0, perTask: { t1: 1, t2: 0 } },
});

/** The path and message of each issue, as the hub's 422 names them. */
const issues = (body: unknown) => {
  const parsed = HubResultSchema.safeParse(body);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("HubResultSchema", () => {
  it("names __proto__, constructor and prototype as reserved, as a model and as a criterion id", () => {
    expect(RESERVED_NAMES).toEqual(["__proto__", "constructor", "prototype"]);
    for (const name of RESERVED_NAMES) {
      expect(issues(result(name, "correct"))).toEqual(["model: a reserved name (__proto__, constructor, prototype): use another"]);
      expect(issues(result("openai:gpt-4.1-mini", name))).toEqual(["stats.criteria.0.id: a reserved name (__proto__, constructor, prototype): use another"]);
    }
  });

  it("accepts other names, those that only look alike included", () => {
    for (const name of ["openai:gpt-4.1-mini", "toString", "proto", "__proto__x", "Constructor", "isAdmin"]) expect(issues(result(name, name))).toEqual([]);
    // An empty model was refused before and still is; an empty criterion id was accepted and still is.
    expect(issues(result("", "correct"))).toHaveLength(1);
    expect(issues(result("m", ""))).toEqual([]);
  });
});
