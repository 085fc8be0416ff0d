/**
 * The prompt layout a provider's cache can reuse (issue 30), measured on the request bodies the
 * local OpenAI and Anthropic servers received: a 12-question rubric with worked examples over
 * distinct samples shares ≥ 90% of every request's non-sample characters with the same call for
 * another sample, batched and single; a one-question call is no larger than autoevals 0.3.0's.
 */
import { describe, expect, it } from "vitest";
import { AUTOEVALS_CASE, patientSamples, twelveQuestions, wireRequests } from "../../bench/prompt.js";
import { parseRubric } from "../../src/rubric/load.js";
import { commonPrefix, measurePromptShare, promptOrder } from "../../src/testing/prompt-share.js";

/** autoevals 0.3.0 ClosedQA's request body for AUTOEVALS_CASE with use_cot (its default), measured on the wire (BENCHMARKS.md). */
const AUTOEVALS_CLOSED_QA_CHARS = 1357;

describe("judge prompt layout for provider prompt caches", () => {
  for (const provider of ["openai", "anthropic"] as const) {
    for (const mode of ["batched", "single"] as const) {
      it(`${provider}, ${mode}: ≥ 90% of a request's non-sample characters are shared across samples`, async () => {
        const groups = await wireRequests(twelveQuestions(), patientSamples(3), provider, { mode });
        expect(groups).toHaveLength(mode === "batched" ? 1 : 12);
        for (const g of groups) expect(g).toHaveLength(3);
        const m = measurePromptShare(groups);
        expect(m.share).toBeGreaterThanOrEqual(0.9);
        // Everything shared is the part before the sample: the shared prefix ends where the sample block starts.
        for (const g of groups) {
          const p = promptOrder(g[0].body);
          expect(commonPrefix(p, promptOrder(g[1].body))).toBeLessThanOrEqual(p.search(/<sample-[0-9a-f]{16}>/) + "<sample-".length);
        }
      });
    }
  }

  it("marks one Anthropic cache breakpoint, at the end of the rubric-level part, never on the sample", async () => {
    const [group] = await wireRequests(twelveQuestions(), patientSamples(2), "anthropic", { mode: "batched" });
    for (const r of group) {
      const blocks = (r.body.messages as { content: { text: string; cache_control?: unknown }[] }[]).flatMap((m) => m.content);
      const marked = blocks.filter((b) => b.cache_control !== undefined);
      expect(marked).toHaveLength(1);
      expect(marked[0].text).not.toMatch(/<sample-[0-9a-f]{16}>/);
      expect(blocks.at(-1)!.text).toMatch(/^<sample-[0-9a-f]{16}>/);
    }
  });

  it("a one-question call of the default judge is no larger than autoevals' ClosedQA for the same question", async () => {
    const one = parseRubric(`id: closed-qa\ninputs: [input, output]\ncriteria:\n  - { id: meets, question: ${JSON.stringify(AUTOEVALS_CASE.criteria)} }\n`);
    const [[request]] = await wireRequests(one, [{ input: AUTOEVALS_CASE.input, output: AUTOEVALS_CASE.output }], "openai", { mode: "single" });
    expect(JSON.stringify(request.body).length).toBeLessThanOrEqual(AUTOEVALS_CLOSED_QA_CHARS);
  });
});
