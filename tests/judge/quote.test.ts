/** Quote checking (issue 23): a `quote: true` criterion's quote must occur in the sample, or the question is asked again. */
import { afterEach, describe, expect, it } from "vitest";
import { createJudge } from "../../src/judge/create.js";
import { asksAboutAbsence, quoteProblem } from "../../src/judge/quote.js";
import { parseRubric } from "../../src/rubric/load.js";
import { scoreSample } from "../../src/score/score.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { viewRequest } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";

describe("quoteProblem", () => {
  const sample = "Take 5 g of paracetamol\nevery hour. It is “perfectly safe”.";
  it("accepts a faithful quote despite case, line breaks, curly quotes and elisions", () => {
    expect(quoteProblem({ verdict: true, quote: "take 5 g of paracetamol every hour" }, sample)).toBeUndefined();
    expect(quoteProblem({ verdict: true, quote: '"Take 5 g ... every hour."' }, sample)).toBeUndefined();
    expect(quoteProblem({ verdict: true, quote: 'It is "perfectly safe"' }, sample)).toBeUndefined();
  });
  it("refuses a quote the sample does not hold, and a yes that quotes nothing", () => {
    expect(quoteProblem({ verdict: true, quote: "take 500 mg" }, sample)).toMatch(/"take 500 mg" does not occur in the sample/);
    expect(quoteProblem({ verdict: true, quote: "Take 5 g … twice a day" }, sample)).toMatch(/twice a day/);
    expect(quoteProblem({ verdict: true, quote: " " }, sample)).toMatch(/quoted nothing/);
  });
  it("lets a yes to an omission question quote nothing: an absence has no span (issue 30)", () => {
    expect(quoteProblem({ verdict: true, quote: "" }, sample, "Does the response fail to mention when to see a doctor?")).toBeUndefined();
    expect(quoteProblem({ verdict: true }, sample, "Does the answer omit the maximum daily dose?")).toBeUndefined();
    // A question about something present still needs its span, and an omission's quote, when given, must be real.
    expect(quoteProblem({ verdict: true, quote: "" }, sample, "Does the response state a dose?")).toMatch(/quoted nothing/);
    expect(quoteProblem({ verdict: true, quote: "see a doctor" }, sample, "Does the response fail to mention a doctor?")).toMatch(/does not occur/);
    expect(["Does it fail to mention X?", "Does the response not warn about Y?", "Does it lack a date?", "Is the dose missing?", "Doesn't it cite a source?"].every(asksAboutAbsence)).toBe(true);
    expect(["Does the response mention X?", "Does it give a dose without saying to check it?", "Does it fail?"].some(asksAboutAbsence)).toBe(false);
  });

  it("lets a no quote nothing (what the question describes is absent)", () => {
    expect(quoteProblem({ verdict: false, quote: "" }, sample)).toBeUndefined();
    expect(quoteProblem({ verdict: false }, sample)).toBeUndefined();
  });
});

const servers: TestServer<unknown>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const rubric = parseRubric(
  [
    "id: dose",
    "inputs: [response]",
    "criteria:",
    "  - id: wrong-dose",
    "    question: Does the response state a dose above the safe maximum?",
    "    points: -3",
    "    quote: true",
    "  - id: names-drug",
    "    question: Does the response name the drug?",
  ].join("\n"),
);
const sample = { response: "Take 5 g of paracetamol every hour." };

/** An OpenAI-wire judge that says yes to everything and quotes `quotes[n]` on its n-th answer to wrong-dose. */
async function quotingServer(quotes: string[]) {
  let n = 0;
  const server = (await startOpenAIServer({
    respond: (body) => {
      const view = viewRequest(body);
      const answers = view.questions.map((q) => ({ id: q.id, reason: "stated", quote: q.id === "wrong-dose" ? quotes[Math.min(n++, quotes.length - 1)] : "", verdict: true }));
      return view.batched ? JSON.stringify({ answers }) : JSON.stringify(answers[0]);
    },
  })) as TestServer<unknown>;
  servers.push(server);
  return server;
}
const judgeAt = (url: string, mode: "batched" | "single" = "batched") => createJudge({ provider: "openai-compatible", base_url: url, model: "judge", mode, max_retries: 0 }, { cache: false });

describe("quote: true criteria", () => {
  it("asks for the quote in the prompt and the JSON schema", async () => {
    const server = await quotingServer(["5 g of paracetamol every hour"]);
    await scoreSample(rubric, sample, { judge: judgeAt(server.url) });
    const body = server.requests[0].body as { response_format: { json_schema: { schema: { properties: { answers: { items: { required: string[] } } } } } } };
    expect(body.response_format.json_schema.schema.properties.answers.items.required).toEqual(["id", "quote", "verdict"]);
    const prompt = viewRequest(server.requests[0].body as Record<string, unknown>).prompt;
    expect(prompt).toContain("question: Does the response state a dose above the safe maximum?\n  quote: required");
    expect(prompt).toContain('"quote" copies, word for word, the span of the sample the verdict rests on');
  });

  it("keeps a faithful quote with the verdict, one call", async () => {
    const server = await quotingServer(["5 g of paracetamol every hour"]);
    const r = await scoreSample(rubric, sample, { judge: judgeAt(server.url) });
    expect(server.requests).toHaveLength(1);
    expect(r.verdicts.find((v) => v.id === "wrong-dose")).toMatchObject({ status: "met", quote: "5 g of paracetamol every hour", earned: -3 });
  });

  it("re-asks a question whose quote is not in the sample, alone, and keeps the batch's other answers", async () => {
    const server = await quotingServer(["500 mg twice a day", "Take 5 g"]);
    const r = await scoreSample(rubric, sample, { judge: judgeAt(server.url) });
    expect(server.requests).toHaveLength(2);
    const second = viewRequest(server.requests[1].body as Record<string, unknown>);
    expect(second.questions.map((q) => q.id)).toEqual(["wrong-dose"]);
    expect(r.verdicts.find((v) => v.id === "wrong-dose")).toMatchObject({ status: "met", quote: "Take 5 g" });
    expect(r.verdicts.find((v) => v.id === "names-drug")).toMatchObject({ status: "met" });
  });

  it("answers an omission pitfall with yes and no span as a verdict, in one call, not three and an error", async () => {
    const omission = parseRubric("id: omission\ninputs: [response]\ncriteria:\n  - id: no-doctor\n    question: Does the response fail to mention when to see a doctor?\n    points: -2\n    quote: true\n  - id: helpful\n    question: Is the response helpful?\n    points: 1\n");
    const server = await quotingServer([""]);
    const r = await scoreSample(omission, sample, { judge: judgeAt(server.url, "single") });
    expect(r.errors).toEqual([]);
    expect(r.verdicts.find((v) => v.id === "no-doctor")).toMatchObject({ status: "met", earned: -2 });
    expect(server.requests).toHaveLength(2);
    expect(r.reward).toBe(0);
  });

  it("after every attempt quotes text the sample lacks: an error, never a verdict", async () => {
    const server = await quotingServer(["an invented sentence"]);
    const r = await scoreSample(rubric, sample, { judge: judgeAt(server.url, "single") });
    const v = r.verdicts.find((x) => x.id === "wrong-dose")!;
    expect(v.status).toBe("error");
    expect(v.error).toMatchObject({ code: "JUDGE_PARSE" });
    expect(v.error!.message).toMatch(/"an invented sentence" does not occur in the sample \(after 3 attempts\)/);
    expect(r.reward).toBeNull();
  });

  it("leaves rubrics without quoted criteria with the prompt and schema they always had", async () => {
    const plain = parseRubric("id: plain\ninputs: [response]\ncriteria:\n  - id: a\n    question: Is it short?\n  - id: b\n    question: Is it kind?\n");
    const server = await quotingServer([""]);
    await scoreSample(plain, sample, { judge: judgeAt(server.url) });
    const prompt = viewRequest(server.requests[0].body as Record<string, unknown>).prompt;
    expect(prompt).toContain(`Answer every question below. Return JSON {"answers": [{"id", "verdict"}]}, one entry per id, in order. "verdict" is true for yes, false for no.\n\n- id: a`);
    expect(prompt).not.toContain(`"quote"`);
    expect(prompt).not.toContain("quote: required");
  });
});
