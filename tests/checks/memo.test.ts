/**
 * The work one sample's checks share (src/checks/memo.ts), and that scoring uses it: a response
 * folded once for all of a sample's contains criteria, not once per criterion, and a non-string
 * input turned into JSON once per sample (work counted with spies; no times are asserted).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { CheckMemo } from "../../src/checks/memo.js";
import { runClientChecks } from "../../src/checks/client-checks-worker.js";
import { parseRubric } from "../../src/rubric/load.js";
import { score } from "../../src/score/score.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("CheckMemo", () => {
  it("transforms a text once per name, and turns a value into JSON once", () => {
    const memo = new CheckMemo();
    const upper = vi.fn((t: string) => t.toUpperCase());
    expect([memo.text("up", "ab", upper), memo.text("up", "ab", upper), memo.text("up", "cd", upper), memo.text("other", "ab", (t) => `${t}!`)]).toEqual(["AB", "AB", "CD", "ab!"]);
    expect(upper).toHaveBeenCalledTimes(2);
    const value = { a: [1, 2] };
    const stringify = vi.spyOn(JSON, "stringify");
    expect([memo.jsonOf(value), memo.jsonOf(value), memo.jsonOf(3)]).toEqual(['{"a":[1,2]}', '{"a":[1,2]}', "3"]);
    expect(stringify.mock.calls.filter(([v]) => v === value)).toHaveLength(1);
  });
});

describe("scoring shares the work of a sample's checks (a client's run in a worker: runClientChecks, the worker's job, shares it too)", () => {
  // Not ASCII (the café): ASCII takes a shortcut that never normalizes, so these counts would say nothing.
  const response = `The answer is Paris, by the café. ${"filler words ".repeat(5000)}`;
  const rubric = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - { id: own, check: { contains: paris } }\n");
  const contains = (n: number, extra: object = {}) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, check: { contains: [`word-${i}`, "paris"], ...extra } }));

  it("a response is folded (NFKC, invisible characters, case) once per sample and case, not once per contains criterion", async () => {
    const normalize = vi.spyOn(String.prototype, "normalize");
    const samples = [
      { response, criteria: contains(64) },
      { response: `${response}!`, criteria: [...contains(30), ...contains(30, { case_sensitive: true }).map((c) => ({ ...c, id: `s${c.id}` }))] },
    ];
    const results = await score(rubric, samples, {});
    expect(results.map((r) => r.verdicts.filter((v) => v.status === "met").length)).toEqual([65, 31]);
    // A fold decomposes the whole text (NFKD, src/text/skeleton.ts), lower-cased first when the check is case-insensitive.
    const foldsOf = (text: string) => normalize.mock.calls.filter(([form], i) => form === "NFKD" && String(normalize.mock.contexts[i]).toLowerCase() === text.toLowerCase()).length;
    // The rubric's own criterion and the 64 client ones share one fold; the second sample folds once per case.
    expect([foldsOf(samples[0].response), foldsOf(samples[1].response)]).toEqual([1, 2]);
  });

  it("a non-string input that checks read is turned into JSON once per sample, not once per criterion", async () => {
    const data = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i}` })) };
    const stringify = vi.spyOn(JSON, "stringify");
    const criteria = Array.from({ length: 10 }, (_, i) => ({ id: `d${i}`, check: { contains: `row ${i}`, field: "data" } }));
    const [result] = await score(rubric, [{ response, data, criteria }], {});
    expect(result.verdicts.filter((v) => v.status === "met")).toHaveLength(11);
    expect(stringify.mock.calls.filter(([value]) => value === data)).toHaveLength(1);
  });

  it("equals normalizes the text once for all of a sample's equals criteria", async () => {
    const normalize = vi.spyOn(String.prototype, "normalize");
    const criteria = Array.from({ length: 20 }, (_, i) => ({ id: `e${i}`, check: { equals: `answer ${i}` } }));
    const [result] = await score(rubric, [{ response, criteria }], {});
    expect(result.verdicts.filter((v) => v.status === "unmet")).toHaveLength(20);
    // One fold for the rubric's contains (NFKD of the lower-cased text), one normalization (NFKC) for the twenty equals.
    const calls = (form: string, text: string) => normalize.mock.calls.filter(([f], i) => f === form && String(normalize.mock.contexts[i]) === text).length;
    expect([calls("NFKD", response.toLowerCase()), calls("NFKC", response)]).toEqual([1, 1]);
  });
});

describe("a client's checks in their worker share the work too", () => {
  it("runClientChecks (the worker's job) folds a response once for all of a sample's contains criteria", async () => {
    const normalize = vi.spyOn(String.prototype, "normalize");
    const response = `The answer is Paris, by the café. ${"filler words ".repeat(5000)}`;
    const checks = Array.from({ length: 64 }, (_, i) => ({ contains: [`word-${i}`, "paris"] }));
    const outcomes = await runClientChecks({ sample: { response }, checks });
    expect(outcomes.filter((o) => "verdict" in o && o.verdict.pass)).toHaveLength(64);
    expect(normalize.mock.calls.filter(([form], i) => form === "NFKD" && String(normalize.mock.contexts[i]) === response.toLowerCase())).toHaveLength(1);
  });
});
