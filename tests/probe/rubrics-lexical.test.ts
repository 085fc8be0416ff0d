import { describe, it } from "vitest";
import { setCodeRunner } from "../../src/checks/code/spec.js";
import { childProcessRunner } from "../../src/checks/code/runner.js";
import { rubricFiles } from "./library.js";
import { expectLibraryProbe } from "./library-checks.js";

// code-tests.yaml's `tests` check runs the attack responses' code; they are built from the rubric's own examples (trusted).
setCodeRunner(childProcessRunner());

// The literal judge's battery, and the library's other checks, are in rubrics.test.ts.
describe("the probe on every rubric in rubrics/", () => {
  it("runs the whole battery on each rubric with the lexical judge, keeps every response inside the sample block, and gives a fix per finding", { timeout: 120_000 }, () => expectLibraryProbe(rubricFiles(), "lexical"));
});
