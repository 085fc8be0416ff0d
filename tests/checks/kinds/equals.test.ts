import { describe, expect, it } from "vitest";
import { normalizeText } from "../../../src/checks/kinds/equals.js";
import { runCheck } from "../../../src/checks/run.js";

describe("equals on a long response: linear time", () => {
  it("a long run of punctuation that does not end the text is read in one pass (dropping trailing punctuation tried every start in the run: 50,000 dots took 5 s)", async () => {
    expect(await runCheck({ equals: "x" }, { response: `${".".repeat(300_000)}x` })).toMatchObject({ pass: false });
    expect(normalizeText(`${"!?".repeat(200_000)}a`)).toBe(`${"!?".repeat(200_000)}a`);
    // No clock: the quadratic reading took 76 s on 200,000 dots, so 300,000 would take ~170 s, past the test's 60 s limit.
  });

  it("trailing punctuation is still dropped, whatever its length, and punctuation before the end kept", async () => {
    expect(normalizeText("Paris?!.")).toBe("paris");
    expect(normalizeText(`Paris${".".repeat(100_000)}`)).toBe("paris");
    expect(normalizeText("a.b.")).toBe("a.b");
    expect(normalizeText("...")).toBe("");
    expect(await runCheck({ equals: "Paris" }, { response: `Paris${";".repeat(100_000)}` })).toMatchObject({ pass: true });
  });
});

describe("equals with a reference from the sample", () => {
  it("an empty reference is the data's error, not a value \"...\" or an empty answer matches; a literal \"\" in the rubric still means an empty answer", async () => {
    for (const answer of ["", "  ", "..."]) {
      await expect(runCheck({ equals: "{{answer}}" }, { response: "...", answer })).rejects.toMatchObject({ code: "MISSING_INPUT" });
    }
    expect(await runCheck({ equals: "{{answer}}" }, { response: "Paris.", answer: "paris" })).toMatchObject({ pass: true });
    expect(await runCheck({ equals: "" }, { response: "" })).toMatchObject({ pass: true });
    expect(await runCheck({ equals: "" }, { response: "Paris" })).toMatchObject({ pass: false });
  });
});
