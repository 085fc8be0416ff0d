import { afterEach, describe, expect, it } from "vitest";
import { HttpError } from "../../src/bridge/http.js";
import { requestScorer, type RequestScoringOptions } from "../../src/bridge/request-scoring.js";
import { StatsRecorder } from "../../src/bridge/stats.js";
import { parseRubric } from "../../src/rubric/load.js";
import { createJudge } from "../../src/judge/create.js";
import { RubricateError } from "../../src/errors.js";
import { createScriptedProvider } from "../../src/testing/index.js";

const rubric = parseRubric("id: gated\ninputs: [response]\ncriteria:\n  - { id: said-ok, check: { custom: gate } }\n");

/** Responses starting "wait" are scored only once the gate opens; the others at once. */
let open: () => void = () => undefined;
let gate = new Promise<void>((r) => (open = r));
afterEach(() => {
  open();
  gate = new Promise<void>((r) => (open = r));
});
const checks = {
  gate: async (text: string) => {
    if (text.startsWith("wait")) await gate;
    return text.includes("ok");
  },
};

function scorer(over: Partial<RequestScoringOptions> = {}) {
  const lines: string[] = [];
  const score = requestScorer({ rubric, checks, maxSamples: 4, deadlineMs: 50, concurrency: 4, sampleCriteria: "checks", maxErrorShare: 1, retryAfter: "7", stats: new StatsRecorder(), log: (l) => lines.push(l), ...over });
  return { score, lines };
}

async function refusal(p: Promise<unknown>): Promise<HttpError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(HttpError);
  return e as HttpError;
}

describe("requestScorer", () => {
  it("a sample not scored by the deadline is a DEADLINE failure; the others keep their rewards", async () => {
    const { score, lines } = scorer();
    const results = await score([{ response: "ok now" }, { response: "wait ok" }], new AbortController().signal);
    expect(results[0].reward).toBe(1);
    expect(results[1].reward).toBeNull();
    expect(results[1].errors[0]).toMatchObject({ code: "DEADLINE" });
    expect(lines.join("\n")).toMatch(/1 of 2 sample\(s\) without a reward \(1 DEADLINE/);
  });

  it("nothing scored in time is a 504 TIMEOUT with Retry-After", async () => {
    const e = await refusal(scorer().score([{ response: "wait" }], new AbortController().signal));
    expect([e.status, e.code, e.headers["retry-after"]]).toEqual([504, "TIMEOUT", "7"]);
  });

  it("late samples count as a judge outage: past --max-error-share the request is a 503, not fallback rewards", async () => {
    const e = await refusal(scorer({ maxErrorShare: 0.25 }).score([{ response: "ok" }, { response: "wait" }], new AbortController().signal));
    expect([e.status, e.code, e.headers["retry-after"]]).toEqual([503, "JUDGE_UNAVAILABLE", "7"]);
  });

  it("refuses too many samples (413) and samples nested too deeply (400) before scoring any", async () => {
    const tooMany = await refusal(scorer().score(Array.from({ length: 5 }, () => ({ response: "ok" })), new AbortController().signal));
    expect([tooMany.status, tooMany.code]).toEqual([413, "TOO_MANY_SAMPLES"]);
    let deep: unknown = "x";
    for (let i = 0; i < 200; i++) deep = [deep];
    const tooDeep = await refusal(scorer().score([{ response: "ok" }, { response: "ok", extra: deep }], new AbortController().signal));
    expect([tooDeep.status, tooDeep.code, tooDeep.field]).toEqual([400, "SAMPLE_TOO_DEEP", "samples.1"]);
  });

  describe("what a retry costs, as the 503, the 504 and a DEADLINE say it", () => {
    const asked = parseRubric("id: asked\ninputs: [response]\ncriteria:\n  - { id: polite, question: Is the response polite? }\n  - { id: said-ok, check: { custom: gate } }\n");
    /** A judge that is down (every call a 500), with a cache (`false`: memory) or none (`null`: --no-cache). */
    const downJudge = (cache: false | null) =>
      createJudge({ provider: "openai-compatible", base_url: "http://127.0.0.1:9/v1", model: "m", max_retries: 0 }, { cache, provider: createScriptedProvider(() => Promise.reject(new RubricateError("PROVIDER_HTTP", "500 from the judge", { retryable: true }))) });

    it.each([
      [false, "retry later: answers already paid for are cached, so a retry is cheap"],
      [null, "retry later: nothing is cached (--no-cache), so a retry pays for every judge call again"],
    ] as const)("a judge outage (cache %s): the 503 says what a retry costs", async (cache, said) => {
      const judge = downJudge(cache);
      try {
        const e = await refusal(scorer({ rubric: asked, judge, maxErrorShare: 0.25, deadlineMs: 5_000 }).score([{ response: "ok" }], new AbortController().signal));
        expect([e.status, e.code]).toEqual([503, "JUDGE_UNAVAILABLE"]);
        expect(e.message.endsWith(said), e.message).toBe(true);
      } finally {
        await judge.close?.();
      }
    });

    it("under --no-cache neither the 504 nor a DEADLINE promise a cheap retry; without a judge they promise nothing paid", async () => {
      const judge = downJudge(null);
      try {
        const late = await refusal(scorer({ judge }).score([{ response: "wait" }], new AbortController().signal));
        expect(late.message).toBe("scoring took longer than 50 ms (--timeout-ms); nothing is cached (--no-cache), so a retry pays for every judge call again");
        const [, deadline] = await scorer({ judge }).score([{ response: "ok now" }, { response: "wait ok" }], new AbortController().signal);
        expect(deadline.errors[0].message).toBe("not scored within the request deadline of 50 ms (--timeout-ms); its judge calls go on, but nothing is cached (--no-cache): a retry pays for them again");
      } finally {
        await judge.close?.();
      }
      open();
      gate = new Promise<void>((r) => (open = r));
      const noJudge = await refusal(scorer().score([{ response: "wait" }], new AbortController().signal));
      expect(noJudge.message).toBe("scoring took longer than 50 ms (--timeout-ms); no judge call was paid, so a retry costs none");
    });
  });
});
