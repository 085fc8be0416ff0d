import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { llmbarJudges, loadLlmbar, loadPandalm } from "../../src/calibrate/datasets.js";
import { isRubricateError } from "../../src/errors.js";

const dir = resolve(process.env.RUBRICATE_DATASETS ?? join(process.cwd(), "..", "shared", "datasets"));
const have = existsSync(join(dir, "llmbar")) && existsSync(join(dir, "pandalm"));

describe.skipIf(!have)("dataset loaders", () => {
  it("LLMBar natural: 100 labels, both orders, vote-share probability", () => {
    expect(llmbarJudges(dir, "natural")).toContain("gpt-4-vanilla");
    const d = loadLlmbar(dir, "natural", "chatgpt-vanilla");
    expect(d.labels).toHaveLength(100);
    expect(d.verdicts.verdicts).toHaveLength(100);
    expect(d.pairwise).toHaveLength(100);
    // natural-6: chatgpt picked 1 in order 1-2 and 2 in order 2-1
    const v = d.verdicts.verdicts.find((x) => x.sampleId === "natural-6")!;
    expect(v.status).toBe("met");
    expect(v.probability).toBe(0.5);
    expect(d.pairwise.find((p) => p.id === "natural-6")).toMatchObject({ order12: "1", order21: "2" });
  });
  it("an LLMBar judge that a subset lacks is FILE_NOT_FOUND, listing what it has", () => {
    try {
      loadLlmbar(dir, "mt-bench", "chatgpt-vanilla");
      expect.unreachable();
    } catch (e) {
      expect(isRubricateError(e, "FILE_NOT_FOUND")).toBe(true);
      expect((e as Error).message).toContain("gpt-4-vanilla-norules");
    }
  });
  it("PandaLM: three annotators per item, ties and unreadable verdicts mapped", () => {
    const d = loadPandalm(dir, "gpt-3.5-turbo");
    expect(d.labels).toHaveLength(999 * 3);
    expect(d.annotators).toHaveLength(999);
    expect(d.verdicts.verdicts.filter((v) => v.status === "error")).toHaveLength(25);
    expect(d.pairwise.filter((p) => p.order12 === "tie")).toHaveLength(38);
    expect(d.pairwise.length + (d.noMajority ?? 0)).toBe(999);
    const p7 = loadPandalm(dir, "pandalm-7b");
    expect(p7.verdicts.verdicts.find((v) => v.sampleId === "pandalm-0")).toMatchObject({ status: "unmet" });
  });
});
