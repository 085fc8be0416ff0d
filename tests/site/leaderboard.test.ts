/**
 * The environment page's numbers as pure functions of stored results, with names from the results
 * that JavaScript also gives every object: they are filed as data, and Object.prototype is never
 * written (a result stored before the schema refused them is still shown).
 */
import { afterEach, describe, expect, it } from "vitest";
import { compareModels, criterionRates, history } from "../../src/site/leaderboard.js";
import type { StoredResult } from "../../src/site/store.js";
import { hubResult } from "./fixtures.js";

const pristine = Object.getOwnPropertyDescriptors(Object.prototype);
afterEach(() => {
  for (const key of Reflect.ownKeys(Object.prototype)) if (!Object.hasOwn(pristine, key)) delete (Object.prototype as Record<PropertyKey, unknown>)[key];
  Object.defineProperties(Object.prototype, pristine);
});

let nextId = 1;
const stored = (model: string, options: { version?: string; criterion?: string; perTask?: Record<string, number> } = {}): StoredResult => ({
  id: nextId++,
  receivedAt: "2026-12-01T10:00:00.000Z",
  submittedBy: "mallory",
  result: hubResult({ name: "demo-env", version: options.version ?? "1.0.0", model, perTask: options.perTask ?? { t1: 1, t2: 0 }, criteria: [{ id: options.criterion ?? "correct", rate: 0.5 }] }),
});

describe("leaderboard with names every object inherits", () => {
  it("criterionRates files a criterion __proto__ and a model constructor as data", () => {
    const rates = criterionRates([stored("isAdmin", { criterion: "__proto__" }), stored("constructor", { criterion: "constructor" }), stored("toString")]);
    expect(Reflect.ownKeys(Object.prototype)).toEqual(Reflect.ownKeys(pristine));
    // Criteria in the order of the rows that name them (equal rewards: by model name).
    expect(rates.criteria).toEqual(["constructor", "__proto__", "correct"]);
    expect(Object.keys(rates.rates)).toEqual(rates.criteria);
    expect(rates.rates["__proto__"].isAdmin).toBe(0.5);
    expect(rates.rates.constructor.constructor).toBe(0.5);
    expect(rates.rates.correct.toString).toBe(0.5);
    // A model that did not answer a criterion has no rate, not an inherited one.
    expect(rates.rates["__proto__"].constructor).toBeUndefined();
    expect(JSON.parse(JSON.stringify(rates.rates))).toEqual({ ["__proto__"]: { isAdmin: 0.5 }, constructor: { constructor: 0.5 }, correct: { toString: 0.5 } });
  });

  it("history files a model __proto__ as data, across versions", () => {
    const h = history([stored("__proto__"), stored("__proto__", { version: "1.1.0", perTask: { t1: 1, t2: 1 } }), stored("hasOwnProperty")], ["1.0.0", "1.1.0"]);
    expect(Reflect.ownKeys(Object.prototype)).toEqual(Reflect.ownKeys(pristine));
    expect(h.models).toEqual(["__proto__", "hasOwnProperty"]);
    expect(h.means["__proto__"]).toEqual({ "1.0.0": 0.5, "1.1.0": 1 });
    expect(h.means["hasOwnProperty"]).toEqual({ "1.0.0": 0.5 });
  });

  it("compareModels pairs only tasks both models have: a task named constructor in one is not shared by inheritance", () => {
    const cmp = compareModels([stored("a", { perTask: { t1: 1, constructor: 0 } }), stored("b", { perTask: { t1: 0, t2: 1 } })], "a", "b");
    expect(cmp.tasks).toEqual([{ task: "t1", a: 1, b: 0 }]);
  });
});
