import { describe, expect, it } from "vitest";
import { isLoopback, tokenMatches } from "../../src/bridge/auth.js";
import { HttpError } from "../../src/bridge/http.js";
import { defaultMapping, openrlhfResponse, openrlhfSamples, responseOf, DEFAULT_STRIP_SUFFIXES } from "../../src/bridge/protocol.js";
import { parseBytes } from "../../src/cli/commands/serve.js";
import type { ScoreResult } from "../../src/types.js";

describe("field mapping", () => {
  it("defaults to the rubric's response field and conventional prompt and label inputs", () => {
    expect(defaultMapping({ inputs: ["question", "response", "answer"] })).toMatchObject({ response: "response", prompt: "question", label: "answer" });
    expect(defaultMapping({ inputs: ["problem", "solution_text", "ground_truth"], response_field: "solution_text" })).toMatchObject({ response: "solution_text", prompt: undefined, label: "ground_truth" });
    expect(defaultMapping({ inputs: ["response"] })).toMatchObject({ prompt: undefined, label: undefined });
    expect(defaultMapping({ inputs: ["q", "response", "gold"] }, { prompt: "q", label: "gold" })).toMatchObject({ prompt: "q", label: "gold" });
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
});

describe("openrlhfResponse", () => {
  const result = (reward: number | null, statuses: Record<string, "met" | "unmet" | "skipped" | "error">): ScoreResult => ({
    reward,
    verdicts: Object.entries(statuses).map(([id, status]) => ({ id, status, points: 1, earned: status === "met" ? 1 : 0, required: false, source: "llm" as const })),
    errors: reward === null ? [{ criterion: "b", code: "JUDGE_PARSE", message: "no verdict" }] : [],
    feedback: "",
  });
  it("gives rewards, identical scores, per-criterion logs and parallel errors", () => {
    const out = openrlhfResponse([result(0.5, { a: "met", b: "skipped" }), result(null, { a: "unmet", b: "error" }), "BAD_INPUT: cut failed"]);
    expect(out.rewards).toEqual([0.5, null, null]);
    expect(out.scores).toEqual(out.rewards);
    expect(out.extra_logs).toEqual({ a: [1, 0, null], b: [0, null, null], rubricate_error: [0, 1, 1] });
    expect(out.errors).toEqual([null, "b: JUDGE_PARSE: no verdict", "BAD_INPUT: cut failed"]);
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
    expect(() => parseBytes("lots")).toThrow(/size/);
    expect(() => parseBytes("0")).toThrow(/positive/);
  });
});
