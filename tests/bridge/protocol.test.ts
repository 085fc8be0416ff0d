import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isLoopback, tokenMatches } from "../../src/bridge/auth.js";
import { HttpError } from "../../src/bridge/http.js";
import { defaultMapping, extraLogKeys, openrlhfResponse, openrlhfSamples, promptEnd, responseOf, trainerJson, unfedInputs, DEFAULT_STRIP_SUFFIXES } from "../../src/bridge/protocol.js";
import { parseBytes } from "../../src/cli/run.js";
import type { ScoreResult } from "../../src/types.js";

describe("field mapping", () => {
  it("defaults to the rubric's response field and conventional prompt and label inputs", () => {
    expect(defaultMapping({ inputs: ["question", "response", "answer"] })).toMatchObject({ response: "response", prompt: "question", label: "answer" });
    // "problem" is a conventional prompt name too (rubrics/math-answer.yaml: problem, response, answer).
    expect(defaultMapping({ inputs: ["problem", "solution_text", "ground_truth"], response_field: "solution_text" })).toMatchObject({ response: "solution_text", prompt: "problem", label: "ground_truth" });
    expect(defaultMapping({ inputs: ["problem", "response", "answer"] })).toMatchObject({ prompt: "problem", label: "answer" });
    expect(defaultMapping({ inputs: ["response"] })).toMatchObject({ prompt: undefined, label: undefined });
    expect(defaultMapping({ inputs: ["q", "response", "gold"] }, { prompt: "q", label: "gold" })).toMatchObject({ prompt: "q", label: "gold" });
  });
});

describe("inputs a request feeds", () => {
  it("names the inputs no request field feeds; JSON-label fields and explicit fields count as fed", () => {
    const rubric = { inputs: ["diff", "issue", "response"] };
    expect(unfedInputs(rubric, defaultMapping(rubric))).toEqual(["diff", "issue"]);
    expect(unfedInputs(rubric, defaultMapping(rubric, { prompt: "diff", labelFields: ["issue"] }))).toEqual([]);
    const math = { inputs: ["problem", "response", "answer"] };
    expect(unfedInputs(math, defaultMapping(math))).toEqual([]);
  });
});

describe("left-cut prompts (current OpenRLHF keeps only a long prompt's last tokens)", () => {
  const prompt = `<|im_start|>system\nYou are careful.<|im_end|>\n<|im_start|>user\n${"Long context. ".repeat(40)}What is 6*7?<|im_end|>\n<|im_start|>assistant\n`;
  it("cuts the response after the prompt's kept end", () => {
    for (const keep of [30, 70, 200, prompt.length - 1]) {
      const query = `${prompt.slice(-keep)}It is 42.<|im_end|>`;
      expect(responseOf(query, prompt, DEFAULT_STRIP_SUFFIXES)).toBe("It is 42.");
    }
  });
  it("tolerates a broken first character from decoding a cut token list", () => {
    expect(responseOf(`\uFFFD${prompt.slice(-90)}Answer: 42</s>`, prompt, DEFAULT_STRIP_SUFFIXES)).toBe("Answer: 42");
  });
  it("prefers the longest match when the template repeats itself, and refuses a query that holds no prompt end", () => {
    const repeated = "<|im_start|>user\nhi<|im_end|>\n".repeat(6) + "<|im_start|>assistant\n";
    const query = `${repeated.slice(-100)}<|im_start|>user\nok<|im_end|>`;
    expect(promptEnd(query, repeated)).toBe(100);
    expect(responseOf("nothing of the prompt here", prompt, [])).toBeUndefined();
  });
});

/** promptEnd as it was before it became linear (quadratic: every anchor occurrence against the prompt's end): the oracle. */
function naivePromptEnd(query: string, prompt: string): number {
  if (query.startsWith(prompt)) return prompt.length;
  if (prompt.length === 0) return 0;
  for (const size of [64, 24, 8]) {
    const anchor = prompt.slice(-Math.min(size, prompt.length));
    let best = -1;
    for (let at = query.indexOf(anchor); at >= 0 && at + anchor.length <= prompt.length + 4; at = query.indexOf(anchor, at + 1)) {
      const end = at + anchor.length;
      for (let skip = 0; skip <= Math.min(4, at); skip++) {
        if (prompt.endsWith(query.slice(skip, end))) {
          best = end;
          break;
        }
      }
    }
    if (best >= 0) return best;
  }
  return -1;
}

describe("promptEnd in linear time (a client's long prompt held the server ~19 s)", () => {
  // A tiny alphabet makes repeats, borders and near-misses common. Queries are random, or the
  // prompt's end after a few junk characters (reaching all three anchor lengths); periodic prompts
  // give heads at several skips at once, where the longer anchor must win over a further end.
  const text = (maxLength: number, size: fc.SizeForArbitrary = "max") => fc.string({ unit: fc.constantFrom("a", "b", "\u0000"), maxLength, size });
  const periodic = fc.tuple(text(6, "small"), fc.string({ unit: fc.constantFrom("a", "b"), minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 90 })).map(([head, unit, n]) => head + unit.repeat(Math.ceil(n / unit.length)));
  const cutFrom = (prompt: string) => fc.tuple(text(5, "small"), fc.nat({ max: prompt.length }), text(20, "small")).map(([junk, keep, rest]) => junk + prompt.slice(prompt.length - keep) + rest);
  const promptAndQuery = fc.oneof(text(90), periodic).chain((prompt) => fc.tuple(fc.constant(prompt), fc.oneof(text(100), cutFrom(prompt))));

  it("gives exactly the old definition's answer", () => {
    fc.assert(
      fc.property(promptAndQuery, ([prompt, query]) => {
        expect(promptEnd(query, prompt)).toBe(naivePromptEnd(query, prompt));
      }),
      { numRuns: 10_000 },
    );
  });

  it("finishes on the audit's 300,000-character prompt that the query does not start with", () => {
    const n = 300_000;
    expect(promptEnd(`${"a".repeat(n)} Paris`, `b${"a".repeat(n)}`)).toBe(n);
    expect(responseOf(`${"a".repeat(n)} Paris`, `b${"a".repeat(n)}`, [])).toBe("Paris");
  });
});

describe("responseOf", () => {
  it("cuts the prompt off the query and strips end markers and padding", () => {
    expect(responseOf("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>", "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", DEFAULT_STRIP_SUFFIXES)).toBe("Hello!");
    expect(responseOf("Q: x\nA: 42</s></s></s>", "Q: x\nA: ", DEFAULT_STRIP_SUFFIXES)).toBe("42");
    expect(responseOf("Q: x\nA: 42<|eot_id|>\n", "Q: x\nA: ", [])).toBe("42<|eot_id|>");
    expect(responseOf("whole text", undefined, DEFAULT_STRIP_SUFFIXES)).toBe("whole text");
    expect(responseOf("other", "prompt", DEFAULT_STRIP_SUFFIXES)).toBeUndefined();
  });
});

describe("openrlhfSamples", () => {
  const mapping = defaultMapping({ inputs: ["question", "response", "answer"] });
  it("builds samples from query, prompts and labels; an object label supplies inputs and wins over the prompt", () => {
    const rows = openrlhfSamples({ query: ["P1 r1", "P2 r2", "bad"], prompts: ["P1 ", "P2 ", "P3"], labels: ["a1", { answer: "a2", question: "raw q2" }, 3] }, mapping);
    expect(rows[0]).toEqual({ sample: { answer: "a1", question: "P1 ", response: "r1" } });
    expect(rows[1]).toEqual({ sample: { answer: "a2", question: "raw q2", response: "r2" } });
    expect(rows[2]).toMatchObject({ error: expect.stringMatching(/does not start with its prompt/) });
  });
  it("rejects prompts or labels of the wrong length with the field named", () => {
    expect(() => openrlhfSamples({ query: ["a", "b"], prompts: ["a"] }, mapping)).toThrow(HttpError);
    const error = (() => {
      try {
        openrlhfSamples({ query: ["a"], labels: ["x", "y"] }, mapping);
      } catch (e) {
        return e as HttpError;
      }
    })();
    expect(error?.field).toBe("labels");
    expect(error?.status).toBe(400);
  });
  it("a label's own __proto__ key (JSON.parse makes one) cannot give the sample inherited fields", () => {
    const label = JSON.parse('{"__proto__":{"answer":"Paris","criteria":[{"id":"c","check":{"contains":"P"}}]},"question":"q?"}') as unknown;
    const [row] = openrlhfSamples({ query: ["P1 r1"], prompts: ["P1 "], labels: [label] }, mapping);
    const sample = (row as { sample: Record<string, unknown> }).sample;
    expect(Object.getPrototypeOf(sample)).toBe(Object.prototype);
    expect(sample).toEqual({ question: "q?", response: "r1" });
    expect("answer" in sample).toBe(false);
    expect("criteria" in sample).toBe(false);
  });
});

describe("openrlhfResponse", () => {
  const result = (reward: number | null, statuses: Record<string, "met" | "unmet" | "skipped" | "error">): ScoreResult => ({
    reward,
    verdicts: Object.entries(statuses).map(([id, status]) => ({ id, status, points: 1, earned: status === "met" ? 1 : 0, required: false, source: "llm" as const })),
    errors: reward === null ? [{ criterion: "b", code: "JUDGE_PARSE", message: "no verdict" }] : [],
    feedback: "",
  });
  it("gives rewards and identical scores with the fallback for a sample without one, fixed per-criterion logs and parallel errors", () => {
    const out = openrlhfResponse([result(0.5, { a: "met", b: "skipped" }), result(null, { a: "unmet", b: "error" }), "BAD_INPUT: cut failed"], ["a", "b"], 0);
    expect(out.rewards).toEqual([0.5, 0, 0]);
    expect(out.scores).toEqual(out.rewards);
    expect(out.extra_logs).toEqual({ a: [1, 0, 0], b: [0, 0, 0], rubricate_error: [0, 1, 1], "rubricate_error/a": [0, 0, 1], "rubricate_error/b": [0, 1, 1] });
    expect(out.errors).toEqual([null, "b: JUDGE_PARSE: no verdict", "BAD_INPUT: cut failed"]);
  });
  it("carries the same extra_logs keys in every answer, an empty one included", () => {
    const empty = openrlhfResponse([], ["a", "b"], 0);
    expect(Object.keys(empty.extra_logs)).toEqual(extraLogKeys(["a", "b"]));
    expect(Object.values(empty.extra_logs).every((v) => v.length === 0)).toBe(true);
  });
});

describe("trainerJson", () => {
  it("writes every number as a float, so Python reads floats (an int list would become an int64 tensor)", () => {
    expect(trainerJson({ rewards: [1, 0, 0.5], extra_logs: { a: [1, 0] }, errors: [null, "x"] })).toBe('{"rewards":[1.0,0.0,0.5],"extra_logs":{"a":[1.0,0.0]},"errors":[null,"x"]}');
    expect(JSON.parse(trainerJson({ n: -3, big: 1e21, tiny: 1e-7 }))).toEqual({ n: -3, big: 1e21, tiny: 1e-7 });
    expect(() => trainerJson([Number.NaN])).toThrow(/NaN/);
  });
});

describe("safety helpers", () => {
  it("compares tokens exactly, whatever their lengths", () => {
    expect(tokenMatches("secret", "secret")).toBe(true);
    expect(tokenMatches("secreT", "secret")).toBe(false);
    expect(tokenMatches("secret-and-more", "secret")).toBe(false);
    expect(tokenMatches("", "secret")).toBe(false);
    expect(tokenMatches(undefined, "secret")).toBe(false);
  });
  it("knows loopback addresses", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) expect(isLoopback(h)).toBe(true);
    for (const h of ["0.0.0.0", "::", "192.168.1.5", "example.com", "128.0.0.1"]) expect(isLoopback(h)).toBe(false);
  });
  it("parses body sizes", () => {
    expect(parseBytes("16mb")).toBe(16 * 1024 * 1024);
    expect(parseBytes("512k")).toBe(512 * 1024);
    expect(parseBytes("1000")).toBe(1000);
    expect(parseBytes("1.5gb")).toBe(1.5 * 1024 ** 3);
    expect(parseBytes("2 MB")).toBe(2 * 1024 * 1024);
    expect(() => parseBytes("16 megabytes")).toThrow(/size/);
    expect(() => parseBytes("-5mb")).toThrow(/size/);
    expect(() => parseBytes("lots")).toThrow(/size/);
    expect(() => parseBytes("0")).toThrow(/positive/);
  });
});
