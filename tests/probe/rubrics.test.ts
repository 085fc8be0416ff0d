import { describe, expect, it } from "vitest";
import { samplesFromExamples } from "../../src/probe/samples.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import { rubricFiles } from "./library.js";
import { expectLibraryProbe } from "./library-checks.js";
import { setCodeRunner } from "../../src/checks/code/spec.js";
import { childProcessRunner } from "../../src/checks/code/runner.js";

// code-tests.yaml's `tests` check runs the attack responses' code; they are built from the rubric's own examples (trusted).
setCodeRunner(childProcessRunner());

const files = rubricFiles();

describe("the probe on every rubric in rubrics/", () => {
  it("finds the rubric library", () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
  });

  // The lexical judge's battery is tests/probe/rubrics-lexical.test.ts: another worker runs it.
  it("runs the whole battery on each rubric with the literal judge, keeps every response inside the sample block, and gives a fix per finding", { timeout: 120_000 }, () => expectLibraryProbe(files, "literal"));

  it("builds distinct samples that carry the examples' inputs", () => {
    for (const file of files) {
      const rubric = loadRubricSync(file);
      const samples = samplesFromExamples(rubric);
      expect(new Set(samples.map((s) => s.id)).size, file).toBe(samples.length);
      const exampleInputs = rubric.criteria.flatMap((c) => c.examples ?? []).filter((e) => e.inputs).map((e) => e.inputs!);
      for (const inputs of exampleInputs) expect(samples.some((s) => Object.entries(inputs).every(([k, v]) => s[k] === v)), file).toBe(true);
    }
  });
});
