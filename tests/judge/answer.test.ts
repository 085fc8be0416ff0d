import { zodResponseFormat } from "openai/helpers/zod";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { answerFields, AnswerSchema, batchedAnswerJsonSchema, batchedAnswerSchema, singleAnswerJsonSchema } from "../../src/judge/answer.js";
import { buildJudgeRequest } from "../../src/judge/prompt.js";

/** What the OpenAI SDK itself sends for a zod schema in strict mode (its toStrictJsonSchema), less the dialect line. */
function openAIStrict(schema: Parameters<typeof zodResponseFormat>[0]): unknown {
  const { $schema: _dialect, ...json } = zodResponseFormat(schema, "x").json_schema.schema as Record<string, unknown>;
  return json;
}

describe("the structured-output schema, against OpenAI's own strict-mode converter", () => {
  it("is what openai/helpers/zod makes of the same zod schema: already strict, nothing for the converter to fix", () => {
    expect(singleAnswerJsonSchema()).toEqual(openAIStrict(AnswerSchema));
    expect(batchedAnswerJsonSchema(["a", "b-2"])).toEqual(openAIStrict(batchedAnswerSchema(["a", "b-2"])));
    for (const reasoning of ["none", "after"] as const) {
      expect(singleAnswerJsonSchema({ reasoning })).toEqual(openAIStrict(z.strictObject(answerFields({ reasoning }))));
      expect(batchedAnswerJsonSchema(["a"], { reasoning, quote: true })).toEqual(openAIStrict(batchedAnswerSchema(["a"], { reasoning, quote: true })));
    }
  });

  it("orders the reason as the judge's `reasoning` says: first, after the verdict, or not at all", () => {
    const keys = (reasoning: "none" | "after" | "before") => Object.keys((singleAnswerJsonSchema({ reasoning }) as { properties: object }).properties);
    expect(keys("before")).toEqual(["reason", "verdict"]);
    expect(keys("after")).toEqual(["verdict", "reason"]);
    expect(keys("none")).toEqual(["verdict"]);
  });

  it("is what the judge sends, single and batched, only with structured output on", () => {
    const settings = { model: "m", temperature: 0, maxTokens: 10, logprobs: false, structuredOutput: true };
    const rubric = { id: "r", inputs: ["response"] };
    expect(buildJudgeRequest(rubric, { response: "x" }, [{ id: "q", question: "?" }], false, settings).jsonSchema).toEqual({ name: "verdict", schema: singleAnswerJsonSchema({ reasoning: "none" }) });
    expect(buildJudgeRequest(rubric, { response: "x" }, [{ id: "q", question: "?" }], false, { ...settings, reasoning: "before" }).jsonSchema).toEqual({ name: "verdict", schema: singleAnswerJsonSchema() });
    const batched = buildJudgeRequest(rubric, { response: "x" }, [{ id: "q", question: "?" }, { id: "p", question: "?" }], true, settings);
    expect(batched.jsonSchema).toEqual({ name: "verdicts", schema: batchedAnswerJsonSchema(["q", "p"], { reasoning: "none" }) });
    expect(buildJudgeRequest(rubric, { response: "x" }, [{ id: "q", question: "?" }], false, { ...settings, structuredOutput: false }).jsonSchema).toBeUndefined();
  });
});
