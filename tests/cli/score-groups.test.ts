import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRubric } from "../../src/rubric/load.js";
import { score, scoreGroups } from "../../src/score/score.js";
import { STD_EPSILON } from "../../src/score/group.js";
import { cli, cliInProcess, jsonLines } from "./helpers.js";
import { needsBubblewrap } from "../sandbox/helpers.js";
import { tempDir } from "../helpers/cli.js";

const bwrapNeed = needsBubblewrap();

const dir = tempDir("rubricate-groups-");

const RUBRIC_YAML = `id: grouped-math
inputs: [prompt, response, answer]
criteria:
  - id: correct
    check: { math: { expected: "{{answer}}" } }
`;
// Two prompts, k = 4 and k = 2 responses; correctness 1,0,0,1 and 0,0.
const SAMPLES = [
  { prompt: "p1", answer: "\\frac{1}{2}", response: "\\boxed{0.5}" },
  { prompt: "p2", answer: "3", response: "\\boxed{4}" },
  { prompt: "p1", answer: "\\frac{1}{2}", response: "\\boxed{2}" },
  { prompt: "p1", answer: "\\frac{1}{2}", response: "\\boxed{1/3}" },
  { prompt: "p2", answer: "3", response: "\\boxed{5}" },
  { prompt: "p1", answer: "\\frac{1}{2}", response: "so x = \\boxed{\\dfrac{2}{4}}" },
];
const advantage = 0.5 / (Math.sqrt(1 / 3) + STD_EPSILON);

describe("group rewards from score()", () => {
  const rubric = parseRubric(RUBRIC_YAML, { filename: "grouped.yaml" });
  it("score({ group }) adds group and advantage to each result, in input order", async () => {
    const results = await score(rubric, SAMPLES, { group: { by: "prompt" } });
    expect(results.map((r) => [r.index, (r as { group?: string }).group, r.reward])).toEqual([[0, "p1", 1], [1, "p2", 0], [2, "p1", 0], [3, "p1", 0], [4, "p2", 0], [5, "p1", 1]]);
    const advantages = results.map((r) => (r as { advantage?: number }).advantage!);
    [advantage, 0, -advantage, -advantage, 0, advantage].forEach((a, i) => expect(advantages[i]).toBeCloseTo(a, 12));
  });
  it("scoreGroups also gives pass@k per group and overall", async () => {
    const { groups, passAtK } = await scoreGroups(rubric, SAMPLES, { group: { by: "prompt", k: [1, 2] } });
    expect(groups.map((g) => [g.group, g.size, g.successes])).toEqual([["p1", 4, 2], ["p2", 2, 0]]);
    expect(groups[0].passAtK["1"]).toBe(0.5);
    expect(groups[0].passAtK["2"]).toBeCloseTo(1 - 1 / 6, 12); // 1 − C(2,2)/C(4,2)
    expect(groups[1].passAtK).toEqual({ "1": 0, "2": 0 });
    expect(passAtK["1"]).toBeCloseTo(0.25, 12);
  });
  it("a sample without the group key is a BAD_INPUT error before anything is scored", async () => {
    await expect(score(rubric, [{ response: "1", answer: "1" }], { group: { by: "prompt" } })).rejects.toMatchObject({ code: "BAD_INPUT" });
  });
});

describe("rubricate score --group-by", () => {
  const rubricPath = join(dir, "grouped.yaml");
  const samplesPath = join(dir, "samples.jsonl");
  writeFileSync(rubricPath, RUBRIC_YAML);
  writeFileSync(samplesPath, SAMPLES.map((s) => JSON.stringify(s)).join("\n") + "\n");

  it("lines gain group and advantage; stderr and --summary-json report pass@k", async () => {
    const summary = join(dir, "summary.json");
    const r = await cliInProcess(["score", rubricPath, samplesPath, "--group-by", "prompt", "--pass-k", "1,2", "--summary-json", summary]);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines.map((l) => [l.index, l.group])).toEqual([[0, "p1"], [1, "p2"], [2, "p1"], [3, "p1"], [4, "p2"], [5, "p1"]]);
    expect(lines[0].advantage).toBeCloseTo(advantage, 12);
    expect(lines[1].advantage).toBe(0);
    expect(r.stderr).toContain("groups: 2; pass@1 0.250, pass@2 0.417");
    const written = JSON.parse(readFileSync(summary, "utf8")).groups;
    expect(written.groups).toBe(2);
    expect(written.passAtK["1"]).toBe(0.25);
    expect(written.passAtK["2"]).toBeCloseTo((1 - 1 / 6) / 2, 12);
  });
  it("--advantage none gives r − mean; --length-penalty adds Kimi's term", async () => {
    const r = await cliInProcess(["score", rubricPath, samplesPath, "--group-by", "prompt", "--advantage", "none", "--length-penalty", "1", "-q"]);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout);
    // p1 lengths 11 (correct), 9, 11, 27 (correct): λ = 0.5 − (len − 9)/18; wrong answers get min(0, λ) = 0. p2: equal lengths.
    const expected = [0.5 - 2 / 18, 0, 0, 0, 0, -0.5];
    lines.forEach((l, i) => expect(l.lengthPenalty).toBeCloseTo(expected[i], 12));
    expect(lines[1].advantage).toBe(0);
  });
  it("bad flags are usage errors", async () => {
    expect((await cliInProcess(["score", rubricPath, samplesPath, "--pass-k", "2"])).stderr).toContain("need --group-by");
    expect((await cliInProcess(["score", rubricPath, samplesPath, "--group-by", "prompt", "--advantage", "std"])).stderr).toContain("Allowed choices are group, batch, none");
    expect((await cliInProcess(["score", rubricPath, samplesPath, "--group-by", "prompt", "--pass-k", "0"])).stderr).toContain("--pass-k takes positive integers");
  });
});

describe("rubricate score: tests checks in the sandbox", () => {
  const write = () => {
    const rubricPath = join(dir, "js-tests.yaml");
    writeFileSync(rubricPath, `id: js-tests\ncriteria:\n  - id: passes\n    check: { tests: { language: javascript, tests: ["assert.strictEqual(add(1, 2), 3)"] } }\n`);
    const samplesPath = join(dir, "js-samples.jsonl");
    writeFileSync(samplesPath, `${JSON.stringify({ response: "function add(a, b) { return a + b }" })}\n`);
    return { rubricPath, samplesPath };
  };
  bwrapNeed.describe("with bubblewrap", () => {
    it("run in bubblewrap by default, with no flag", async () => {
      const { rubricPath, samplesPath } = write();
      const scored = await cliInProcess(["score", rubricPath, samplesPath, "-q"]);
      expect(scored.code, scored.stderr).toBe(0);
      expect(jsonLines(scored.stdout)[0]).toMatchObject({ reward: 1 });
    });
  });
  it("where bubblewrap cannot run, an error naming why and the opt-in (never a silent null); --unsafe-no-sandbox runs the code", async () => {
    const { rubricPath, samplesPath } = write();
    const refused = await cli(["score", rubricPath, samplesPath, "-q"], { env: { RUBRICATE_BWRAP: join(dir, "no-such-bwrap") } });
    expect(refused.code).toBe(3);
    expect(jsonLines(refused.stdout)[0]).toMatchObject({ reward: null, errors: [{ criterion: "passes", code: "SANDBOX", message: expect.stringMatching(/not installed.*--unsafe-no-sandbox/) }] });
    const allowed = await cli(["score", rubricPath, samplesPath, "-q", "--unsafe-no-sandbox"], { env: { RUBRICATE_BWRAP: join(dir, "no-such-bwrap") } });
    expect(allowed.code).toBe(0);
    expect(jsonLines(allowed.stdout)[0]).toMatchObject({ reward: 1 });
  });
});
