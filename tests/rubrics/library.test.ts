import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import "../../src/checks/sql.js";
import { runCheck } from "../../src/checks/run.js";
import { loadJudgeConfig } from "../../src/judge/load.js";
import { lintFails, lintRubric } from "../../src/rubric/lint.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import { exampleSample, rubricFiles } from "./helpers.js";
import { setCodeRunner } from "../../src/checks/code/spec.js";
import { childProcessRunner } from "../../src/checks/code/runner.js";

// code-tests.yaml's examples run their code: the library's own examples are trusted code.
setCodeRunner(childProcessRunner());

const files = rubricFiles();

describe("the rubric library", () => {
  it("has at least eight full rubrics and the single-question judges", () => {
    expect(files.filter((f) => !f.includes("/single/")).length).toBeGreaterThanOrEqual(8);
    const singles = files.filter((f) => f.includes("/single/")).map((f) => f.replace(/^.*\//, ""));
    expect(singles).toEqual(expect.arrayContaining(["factual-correctness.yaml", "hallucination.yaml", "refusal.yaml", "harmful-content.yaml", "pii-leak.yaml", "language-match.yaml"]));
  });

  describe.each(files)("%s", (file) => {
    const text = readFileSync(file, "utf8");

    it("validates and lints clean under --strict", () => {
      const rubric = loadRubricSync(file);
      const findings = lintRubric(rubric);
      expect(findings.filter((f) => f.severity !== "info")).toEqual([]);
      expect(lintFails(findings, true)).toBe(false);
    });

    it("opens with the $schema line and a header comment naming its sources and scope", () => {
      const depth = file.split("/").length - 2;
      expect(text.split("\n")[0]).toBe(`# yaml-language-server: $schema=${"../".repeat(depth + 1)}schema/rubric.schema.json`);
      const header = text.split("\n").filter((l) => l.startsWith("#")).join("\n");
      expect(header).toMatch(/Sources?:/);
      expect(header).toMatch(/Scope:|scope/i);
    });

    it("has examples on most criteria, and a yes and a no for every question when it has several", () => {
      const rubric = loadRubricSync(file);
      const withExamples = rubric.criteria.filter((c) => (c.examples ?? []).length > 0);
      expect(withExamples.length / rubric.criteria.length).toBeGreaterThanOrEqual(0.8);
      for (const c of rubric.criteria.filter((c) => c.question !== undefined)) {
        expect(new Set((c.examples ?? []).map((e) => e.answer)), c.id).toEqual(new Set([true, false]));
      }
    });

    it("its code checks give each example's answer", async () => {
      const rubric = loadRubricSync(file);
      const rubricDir = dirname(file);
      for (const criterion of rubric.criteria.filter((c) => c.check !== undefined)) {
        for (const example of criterion.examples ?? []) {
          const verdict = await runCheck(criterion.check!, exampleSample(rubric, example), { defaultField: rubric.response_field, rubricDir });
          expect(verdict.pass, `${criterion.id}: ${example.response.slice(0, 60)} (${verdict.reasoning ?? ""})`).toBe(example.answer);
        }
      }
    });
  });
});

describe("the judge files", () => {
  const judges = readdirSync("judges").filter((f) => /\.ya?ml$/.test(f));
  it.each(judges)("%s validates and explains when to choose it", (name) => {
    const config = loadJudgeConfig(join("judges", name));
    expect(config.model.length).toBeGreaterThan(0);
    expect(readFileSync(join("judges", name), "utf8").startsWith("#")).toBe(true);
  });
});
