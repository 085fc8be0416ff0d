import { describe, expect, it } from "vitest";
import { RubricateError } from "../../src/errors.js";
import { createPanel } from "../../src/judge/panel.js";
import type { Judge } from "../../src/judge/types.js";
import { parseRubric } from "../../src/rubric/load.js";
import { scoreSample } from "../../src/score/score.js";
import { emptyUsage, type VerdictOrError } from "../../src/types.js";

/** A judge answering from a table: true/false, a probability, or an error. */
function member(id: string, table: Record<string, boolean | [boolean, number] | "error">): Judge & { closed: boolean } {
  const j = {
    id,
    closed: false,
    async answer(req: Parameters<Judge["answer"]>[0]) {
      const verdicts = new Map<string, VerdictOrError>();
      for (const q of req.questions) {
        const t = table[q.id];
        if (t === "error") verdicts.set(q.id, new RubricateError("JUDGE_PARSE", `${id} could not answer`));
        else {
          const [pass, probability] = Array.isArray(t) ? t : [t, undefined];
          verdicts.set(q.id, { pass, ...(probability !== undefined ? { probability } : {}), reasoning: `${id} thinks so`, source: "llm" });
        }
      }
      return { verdicts, usage: { ...emptyUsage(), calls: 1 } };
    },
    usage: () => emptyUsage(),
    close() {
      j.closed = true;
    },
  };
  return j;
}

const rubric = parseRubric("id: r\ninputs: [response]\ncriteria:\n  - id: a\n    question: Is a there?\n  - id: b\n    question: Is b there?\n  - id: c\n    question: Is c there?\n");

describe("createPanel", () => {
  it("takes the members' majority, the mean of their P(yes), and every reason", async () => {
    const panel = createPanel([
      member("gpt", { a: [true, 0.9], b: false, c: "error" }),
      member("claude", { a: [true, 0.7], b: true, c: true }),
      member("qwen", { a: [false, 0.2], b: false, c: false }),
    ]);
    const r = await scoreSample(rubric, { response: "x" }, { judge: panel });
    const [a, b, c] = r.verdicts;
    expect(a).toMatchObject({ status: "met" });
    expect(a.probability).toBeCloseTo(0.6, 9);
    expect(a.reasoning).toBe("gpt: yes — gpt thinks so\nclaude: yes — claude thinks so\nqwen: no — qwen thinks so");
    expect(b).toMatchObject({ status: "unmet" });
    expect(b.probability).toBeCloseTo(1 / 3, 9);
    // c: one error left out, the other two split evenly: an error, never a "no".
    expect(c.status).toBe("error");
    expect(c.error!.message).toMatch(/split 1–1 on "c" \(1 member\(s\) gave no answer\)/);
    expect(r.usage!.calls).toBe(3);
  });

  it("decides by the mean P(yes) with decide: mean, where one confident member can outvote two lukewarm ones (issue 30)", async () => {
    const members = () => [member("gpt", { a: [true, 0.55], b: [true, 0.6], c: [true, 0.5] }), member("claude", { a: [true, 0.55], b: false, c: [false, 0.5] }), member("qwen", { a: [false, 0.0], b: false, c: [false, 0.5] })];
    const byMajority = await scoreSample(rubric, { response: "x" }, { judge: createPanel(members()) });
    const byMean = await scoreSample(rubric, { response: "x" }, { judge: createPanel(members(), { decide: "mean" }) });
    // a: two yes of three, mean 0.367; b: one yes, mean 0.2; c: mean exactly 0.5.
    expect(byMajority.verdicts.map((v) => v.status)).toEqual(["met", "unmet", "unmet"]);
    expect(byMean.verdicts.map((v) => v.status)).toEqual(["unmet", "unmet", "error"]);
    expect(byMean.verdicts[0].probability).toBeCloseTo(1.1 / 3, 9);
    expect(byMean.verdicts[2].error!.message).toMatch(/mean P\(yes\) on "c" is exactly 0.5/);
  });

  it("is an error when no member answers, and needs two members; closes its members", async () => {
    const one = member("gpt", { a: "error", b: "error", c: "error" });
    const two = member("claude", { a: "error", b: "error", c: "error" });
    const panel = createPanel([one, two]);
    const r = await scoreSample(rubric, { response: "x" }, { judge: panel });
    expect(r.verdicts.every((v) => v.status === "error")).toBe(true);
    await panel.close?.();
    expect(one.closed && two.closed).toBe(true);
    expect(() => createPanel([one])).toThrow(/at least two/);
  });
});

describe("a panel judge file", () => {
  it("builds every member on one engine and answers by majority", async () => {
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tempDir } = await import("../helpers/cli.js");
    const { startOpenAIServer } = await import("../../src/testing/servers/openai-server.js");
    const { judgeResponder } = await import("../../src/testing/servers/judge-responder.js");
    const { createJudge } = await import("../../src/judge/create.js");
    const { judgeFamilyWarning } = await import("../../src/judge/family.js");
    // Members gpt-a and gpt-b say yes to everything, claude-c says no.
    const server = await startOpenAIServer({ respond: (body) => judgeResponder(() => body.model !== "claude-c")(body) });
    try {
      const dir = tempDir("panel-");
      for (const m of ["gpt-a", "gpt-b", "claude-c"]) writeFileSync(join(dir, `${m}.yaml`), `provider: openai-compatible\nbase_url: ${server.url}\nmodel: ${m}\nmax_retries: 0\n`);
      const file = join(dir, "panel.yaml");
      writeFileSync(file, "id: trio\npanel: [gpt-a.yaml, gpt-b.yaml, claude-c.yaml]\n");
      const judge = createJudge(file, { cache: false });
      expect(judge.id).toBe("trio");
      expect(judge.members!.map((m) => m.config.model)).toEqual(["gpt-a", "gpt-b", "claude-c"]);
      const r = await scoreSample(rubric, { response: "x" }, { judge });
      expect(r.verdicts.map((v) => v.status)).toEqual(["met", "met", "met"]);
      expect(r.verdicts[0].probability).toBeCloseTo(2 / 3, 9);
      expect(server.requests).toHaveLength(3);
      // Two of three members are the policy's family: warn. One of three: do not.
      expect(judgeFamilyWarning(judge, { model: "gpt-4.1" }, "policy")).toMatch(/2 of the 3 panel judges \(gpt-a, gpt-b\) are of the policy's family/);
      expect(judgeFamilyWarning(judge, { model: "claude-sonnet-4-5" }, "policy")).toBeUndefined();
      await judge.close?.();
      writeFileSync(file, "panel: [gpt-a.yaml]\n");
      expect(() => createJudge(file, { cache: false })).toThrow(/panel\.yaml:1:\d+/);
    } finally {
      await server.close();
    }
  });
});
