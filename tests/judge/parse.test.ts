import { Ajv } from "ajv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/text/canonical-json.js";
import { AnswerSchema, batchedAnswerJsonSchema, singleAnswerJsonSchema } from "../../src/judge/answer.js";
import { parseBatched, parseJsonText, parseSingle, verdictProbabilities } from "../../src/judge/parse.js";
import { RubricateError } from "../../src/errors.js";
import type { CompletionResponse, TokenLogprob } from "../../src/providers/types.js";

const reply = (text: string, extra: Partial<CompletionResponse> = {}): CompletionResponse => ({ text, finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 }, ...extra });

/** Question ids as rubrics write them. */
const ids = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/), { minLength: 1, maxLength: 6 });
const answerOf = fc.record({ reason: fc.string({ maxLength: 80 }), verdict: fc.boolean() });
/** Ways a model wraps JSON: bare, in a fence, in prose. */
const wrap = fc.constantFrom(
  (json: string) => json,
  (json: string) => "```json\n" + json + "\n```",
  (json: string) => "Here is my answer:\n```\n" + json + "```\nDone.",
  (json: string) => `Sure. ${json} Hope that helps.`,
);

/** OpenAI strict mode: every object closed and every property required, all the way down. */
function strictProblems(schema: unknown, path = "$"): string[] {
  if (schema === null || typeof schema !== "object") return [];
  const s = schema as Record<string, unknown>;
  const out: string[] = [];
  if (s.type === "object") {
    if (s.additionalProperties !== false) out.push(`${path}: additionalProperties is not false`);
    const keys = Object.keys((s.properties as object) ?? {});
    const required = (s.required as string[]) ?? [];
    if (keys.some((k) => !required.includes(k))) out.push(`${path}: not every property is required`);
  }
  for (const [k, v] of Object.entries(s)) {
    if (k === "properties") for (const [p, sub] of Object.entries(v as object)) out.push(...strictProblems(sub, `${path}.${p}`));
    else if (typeof v === "object") out.push(...strictProblems(v, `${path}.${k}`));
  }
  if (path === "$" && "$schema" in s) out.push("$: carries $schema");
  return out;
}

describe("the answer schema and the JSON Schema sent to providers", () => {
  it("is generated from the zod schema, strict-mode ready, and byte-identical to the hand-written one it replaced (cache keys unchanged)", () => {
    expect(strictProblems(singleAnswerJsonSchema())).toEqual([]);
    expect(strictProblems(batchedAnswerJsonSchema(["a", "b"]))).toEqual([]);
    const handWritten = {
      type: "object",
      additionalProperties: false,
      required: ["answers"],
      properties: {
        answers: {
          type: "array",
          items: {
            type: "object",
            additionalProperties: false,
            required: ["id", "reason", "verdict"],
            properties: { id: { type: "string", enum: ["a", "b"] }, reason: { type: "string" }, verdict: { type: "boolean" } },
          },
        },
      },
    };
    expect(canonicalJson(batchedAnswerJsonSchema(["a", "b"]))).toBe(canonicalJson(handWritten));
    expect(canonicalJson(singleAnswerJsonSchema())).toBe(canonicalJson({ type: "object", additionalProperties: false, required: ["reason", "verdict"], properties: { reason: { type: "string" }, verdict: { type: "boolean" } } }));
    // Reason before verdict: structured output writes fields in schema order, so the model reasons first.
    expect(Object.keys((singleAnswerJsonSchema().properties as object) ?? {})).toEqual(["reason", "verdict"]);
  });

  it("what the schema admits, parsing returns unchanged; what parsing returns, the schema admits", () => {
    const ajv = new Ajv({ strict: false });
    fc.assert(
      fc.property(ids, fc.array(answerOf, { minLength: 6, maxLength: 6 }), wrap, (qids, answers, wrapped) => {
        const body = { answers: qids.map((id, i) => ({ id, ...answers[i] })) };
        expect(ajv.validate(batchedAnswerJsonSchema(qids), body)).toBe(true);
        const parsed = parseBatched(reply(wrapped(JSON.stringify(body))), qids);
        expect(parsed.problems.size).toBe(0);
        for (const [i, id] of qids.entries()) {
          expect(parsed.answers.get(id)).toEqual(answers[i]);
          expect(AnswerSchema.safeParse(parsed.answers.get(id)).success).toBe(true);
        }
        const single = parseSingle(reply(wrapped(JSON.stringify(answers[0]))));
        expect(ajv.validate(singleAnswerJsonSchema(), answers[0])).toBe(true);
        expect(single).toEqual(answers[0]);
      }),
    );
  });
});

describe("parseBatched", () => {
  // JSON.parse kept the last verdict, "no", as if the judge had meant it.
  it("an answer with a key twice reads two ways: every id is a problem, asked again alone", () => {
    const text = '{"answers": [{"id": "a", "verdict": true, "verdict": false}, {"id": "b", "verdict": true}]}';
    const parsed = parseBatched(reply(text), ["a", "b"]);
    expect(parsed.answers.size).toBe(0);
    expect([...parsed.problems]).toEqual([
      ["a", `the judge's answer reads two ways: the key "verdict" appears twice in one object`],
      ["b", `the judge's answer reads two ways: the key "verdict" appears twice in one object`],
    ]);
    expect(parseBatched(reply('{"answers": [{"id": "a", "verdict": true}, {"id": "b", "verdict": false}]}'), ["a", "b"]).problems.size).toBe(0);
  });

  it("never guesses: every id is answered from its own well-formed entry or named a problem, whatever the model wrote", () => {
    const entry = fc.record(
      {
        id: fc.oneof(fc.constantFrom("a", "b", "c", "zz"), fc.string(), fc.integer()),
        reason: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        verdict: fc.oneof(fc.boolean(), fc.constantFrom("yes", "no", "YES ", "true", "false", "maybe", ""), fc.integer(), fc.constant(null)),
        extra: fc.anything(),
      },
      { requiredKeys: [] },
    );
    const text = fc.oneof(
      fc.string(),
      fc.array(entry, { maxLength: 8 }).map((answers) => JSON.stringify({ answers })),
      fc.array(entry, { maxLength: 8 }).map((answers) => JSON.stringify(answers)),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.tuple(fc.string(), fc.array(entry, { maxLength: 4 }), fc.string()).map(([a, answers, b]) => `${a}\`\`\`json\n${JSON.stringify({ answers })}\n\`\`\`${b}`),
    );
    fc.assert(
      fc.property(text, (t) => {
        const want = ["a", "b", "c"];
        const { answers, problems } = parseBatched(reply(t), want);
        expect([...answers.keys(), ...problems.keys()].sort()).toEqual(want);
        for (const [id, answer] of answers) {
          expect(problems.has(id)).toBe(false);
          expect(typeof answer.verdict).toBe("boolean");
          expect(AnswerSchema.safeParse({ reason: answer.reason, verdict: answer.verdict }).success).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("re-asks what is duplicated, missing or malformed, drops ids it did not ask, reads yes/no strings", () => {
    const text = JSON.stringify({
      answers: [
        { id: "a", reason: "r", verdict: "Yes" },
        { id: "b", verdict: false },
        { id: "b", reason: "again", verdict: true },
        { id: "c", reason: "?", verdict: "perhaps" },
        { id: "stray", reason: "", verdict: true },
      ],
    });
    const { answers, problems } = parseBatched(reply(text), ["a", "b", "c", "d"]);
    expect(Object.fromEntries(answers)).toEqual({ a: { reason: "r", verdict: true } });
    expect(Object.fromEntries(problems)).toEqual({ b: '"b" answered 2 times', c: 'malformed verdict "perhaps" for "c"', d: 'no answer for "d"' });
    const cut = parseBatched(reply('{"answers": [{"id": "a", "reas', { finishReason: "length" }), ["a"]);
    expect(cut.problems.get("a")).toBe('the judge\'s answer has no "answers" list (output truncated)');
  });

  it("raises a refusal instead of reading it as an answer", () => {
    expect(() => parseBatched(reply("", { refusal: "I can't" }), ["a"])).toThrow(expect.objectContaining({ code: "JUDGE_REFUSAL" }));
  });
});

describe("parseSingle", () => {
  it("either reads a boolean verdict or throws a retryable JUDGE_PARSE: never an unreadable answer read as no", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify(v)), fc.string().map((s) => `{"verdict": ${JSON.stringify(s)}}`)), (t) => {
        try {
          const answer = parseSingle(reply(t));
          expect(typeof answer.verdict).toBe("boolean");
          // A verdict was really there to read.
          expect(t).toMatch(/verdict/);
        } catch (e) {
          expect(e).toBeInstanceOf(RubricateError);
          expect((e as RubricateError).code).toBe("JUDGE_PARSE");
          expect((e as RubricateError).retryable).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("takes the answer from { answers: {...} } or a one-entry list, and says when the output was cut", () => {
    expect(parseSingle(reply('{"answers": {"reason": "x", "verdict": "no"}}'))).toEqual({ reason: "x", verdict: false });
    expect(parseSingle(reply('{"answers": [{"id": "q", "verdict": true}]}'))).toEqual({ reason: "", verdict: true });
    expect(() => parseSingle(reply('{"reason": "long', { finishReason: "length" }))).toThrow(/output truncated/);
  });

  // Each was scored: the first as the asked question's "yes", the second as "no" (the last key).
  it("refuses, retryably, an answer to another question and an answer with two verdicts; a reason quoting JSON is no second verdict", () => {
    const refused = (text: string, id?: string) => {
      try {
        parseSingle(reply(text), id);
      } catch (e) {
        expect((e as RubricateError).code).toBe("JUDGE_PARSE");
        expect((e as RubricateError).retryable).toBe(true);
        return (e as RubricateError).message;
      }
      return "read";
    };
    expect(refused('{"answers": [{"id": "other", "verdict": true}]}', "asked")).toMatch(/^the judge answered "other", not the question asked \("asked"\)/);
    expect(refused('{"answers": {"id": "other", "verdict": true}}', "asked")).toMatch(/not the question asked/);
    expect(refused('{"verdict": true, "verdict": false}')).toMatch(/^the judge's answer reads two ways: the key "verdict" appears twice in one object/);
    expect(refused('Sure: {"reason": "x", "verdict" : "yes", "verdict":"no"}')).toMatch(/reads two ways/);
    expect(refused('{"answers": [{"id": "asked", "verdict": true}]}', "asked")).toBe("read");
    expect(refused('{"answers": [{"verdict": true}]}', "asked")).toBe("read");
    expect(parseSingle(reply(JSON.stringify({ reason: 'it wrote {"verdict": false} first', verdict: true })), "asked")).toEqual({ reason: 'it wrote {"verdict": false} first', verdict: true });
  });
});

describe("long outputs", () => {
  it("reads a megabyte of prose around the answer, and an unclosed fence over a long white space run, in linear time", () => {
    const pad = "lorem ipsum ".repeat(90_000);
    expect(parseSingle(reply(`${pad}\n\`\`\`json\n{"reason": "ok", "verdict": true}\n\`\`\`\n${pad}`))).toEqual({ reason: "ok", verdict: true });
    // Quadratic with the former fence regex (\s* then a lazy body re-scanned for every split of the run).
    expect(parseJsonText("```" + " ".repeat(400_000) + "x")).toBeUndefined();
  });

  it("finds verdict probabilities in 200k logprob tokens (the former regex over the growing text was quadratic)", () => {
    const tokens: TokenLogprob[] = [];
    for (let i = 0; i < 50_000; i++) tokens.push({ token: '{"id": "q", "reason": "', logprob: 0 }, { token: "words ".repeat(3), logprob: 0 }, { token: '", "verdict"  :\n ', logprob: 0 });
    tokens.push({ token: "true", logprob: Math.log(0.8), top: [{ token: "true", logprob: Math.log(0.8) }, { token: "false", logprob: Math.log(0.2) }] });
    const found = verdictProbabilities(tokens);
    expect(found).toHaveLength(1);
    expect(found[0]).toBeCloseTo(0.8, 12);
  });

  it("matches the key across token boundaries and white space, as before", () => {
    const split = ['{"ver', 'dict"', " ", ":", "\t", " t", "rue}"].map((token) => ({ token, logprob: -0.1 }));
    expect(verdictProbabilities(split)).toEqual([1]);
    expect(verdictProbabilities([{ token: '"verdict": ', logprob: 0 }, { token: "maybe", logprob: 0 }])).toEqual([]);
  });
});
