import { afterEach, describe, expect, it } from "vitest";
import { HttpError } from "../../src/bridge/http.js";
import { requestScorer, type RequestScoringOptions } from "../../src/bridge/request-scoring.js";
import { StatsRecorder } from "../../src/bridge/stats.js";
import { parseRubric } from "../../src/rubric/load.js";

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
});
